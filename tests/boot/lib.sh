# tests/boot/lib.sh - TAP helpers for the boot tests: real QEMU guests, real kernels
# Sourced by tests/boot/*.t; KPAIR_KERNEL names the kernel in images/kernels.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KPAIR="$ROOT/harness/kpair"
KERNEL=${KPAIR_KERNEL:-6.1.0-57-amd64}
T_NUM=0
T_FAIL=0
mkdir -p "$ROOT/results"
WORK=$(mktemp -d "$ROOT/results/.test-XXXXXX")
# KPAIR_TEST_KEEP=1 keeps the test's files (named on stderr) to look at after a failure
if [ -n "${KPAIR_TEST_KEEP:-}" ]; then echo "# files kept in $WORK" >&2; else trap 'rm -rf "$WORK"' EXIT; fi

plan() { echo "1..$1"; }
ok() {	# ok CONDITION-STATUS DESCRIPTION
	T_NUM=$((T_NUM + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_NUM - $2"
	else
		echo "not ok $T_NUM - $2"
		echo "#   Failed test $T_NUM - $2 ($(basename "$0"))" >&2	# prove shows stderr
		T_FAIL=$((T_FAIL + 1))
	fi
	return $(($1 != 0))	# ok ... || diagnostics
}
is() {	# is GOT WANT DESCRIPTION
	[ "$1" = "$2" ]
	local r=$?
	ok $r "$3"
	[ $r -eq 0 ] || echo "#   got '$1', want '$2'" | tee /dev/stderr
}
# jq query on a JSON file; prints the raw value
jqr() { jq -r "$2" "$1"; }
# true when jq expression evaluates to true
jqt() { [ "$(jq -r "$2" "$1")" = true ]; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
need_kernel() {
	[ -f "$ROOT/images/kernels/$KERNEL/kernel.json" ] ||
		{ echo "Bail out! kernel $KERNEL is not fetched (make kernel)"; exit 1; }
}
# kpair_run NAME [kpair run args...]: runs into $WORK/NAME; sets RC, DIR, SECS
kpair_run() {
	local name=$1 t0
	shift
	DIR="$WORK/$name"
	t0=$(date +%s.%N)
	"$KPAIR" run -q -o "$DIR" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	RC=$?
	SECS=$(echo "$(date +%s.%N) - $t0" | bc)
	if [ ! -f "$DIR/result.json" ]; then
		echo "# no result.json; stderr:"; sed 's/^/#   /' "$WORK/$name.err"
	fi
}
# no QEMU left running for a run directory: none with the run's -name, and the pid
# result.json recorded is gone or no longer a QEMU
no_qemu_left() {
	local id pid
	id=$(jq -r '.run_id // empty' "$1/result.json" 2>/dev/null)
	pid=$(jq -r '.qemu.pid // 0' "$1/result.json" 2>/dev/null)
	[ -n "$id" ] || { echo "#   no run_id in $1/result.json"; return 1; }
	! pgrep -f "qemu-system.* -name $id " >/dev/null &&
		! { [ "${pid:-0}" -gt 0 ] && grep -qa qemu "/proc/$pid/cmdline" 2>/dev/null; }
}
done_testing() { exit $((T_FAIL > 0)); }
# kcidb_valid FILE: KCIDB JSON against the v5.0 schema (tests/golden), with format checks
kcidb_valid() {
	/usr/bin/python3 - "$ROOT/tests/golden/kcidb-io-schema-v5.0.json" "$1" <<'EOF'
import json, sys, jsonschema
schema, doc = (json.load(open(p)) for p in sys.argv[1:3])
try:
    jsonschema.validate(doc, schema, format_checker=jsonschema.FormatChecker())
except jsonschema.ValidationError as e:
    print("#   invalid:", e.message[:300], "at", list(e.absolute_path))
    sys.exit(1)
EOF
}
# kcidb_ab DIR OUT: export the A/B directory DIR as KCIDB into OUT; 0 when it is valid and has a
# test for every metric of DIR's comparison.json, named by its whole (dotted) name
kcidb_ab() {
	"$KPAIR" export kcidb "$1" -o "$2" >/dev/null 2>"$2.err" || { sed 's/^/#   /' "$2.err"; return 1; }
	kcidb_valid "$2" || return 1
	[ "$(jq -c '[.metrics | keys[]] | sort' "$1/comparison.json")" = \
	  "$(jq -c '[.tests[] | select(.path | test("[.]ab[.]")) | .misc.metric] | sort' "$2")" ]
}
# the test kernel git repository (scripts/test-linux-git, made once into images/test-linux)
test_repo() {
	"$ROOT/scripts/test-linux-git" 2>"$WORK/test-repo.err" ||
		{ echo "Bail out! scripts/test-linux-git failed: $(tail -3 "$WORK/test-repo.err")"; exit 1; }
}
# user_config REPO OUT: a developer's own whole .config, made with the kernel's own make:
# tinyconfig + tests/boot/data/modules.fragment (virtio, ext4 and xfs as modules)
user_config() {
	local o="$WORK/user-config-obj"
	make -s -C "$1" O="$o" tinyconfig >/dev/null 2>&1 &&
		"$1/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" \
			"$ROOT/tests/boot/data/modules.fragment" >/dev/null 2>&1 &&
		make -s -C "$1" O="$o" olddefconfig >/dev/null 2>&1 && cp "$o/.config" "$2" ||
		{ echo "Bail out! cannot make the user's config in $o"; exit 1; }
}
# tree_state REPO: what a build must leave as it was (status, HEAD, index, stash, worktrees)
tree_state() {
	git -C "$1" status --porcelain --untracked-files=all
	git -C "$1" rev-parse HEAD
	git -C "$1" symbolic-ref -q HEAD
	sha256sum <"$1/.git/index"
	git -C "$1" stash list
	git -C "$1" worktree list --porcelain
}
# headless Chromium on a page: --dump-dom to read it as rendered, --screenshot=F to look
chromium_dom() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$WORK/chromium" "$@" 2>/dev/null
}
