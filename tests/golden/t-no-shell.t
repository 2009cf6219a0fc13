#!/usr/bin/env bash
# golden: no shell, ever. The host harness and the guest agent start every child through
# harness/spawn.c with an argv vector: no system(), popen(), wordexp(), "sh -c" or /bin/sh in
# harness/ or guest/, and no predictable temporary names (tmpnam, tempnam, mktemp, a mkdir of
# a tmp path instead of mkdtemp). The checker is first shown to catch each pattern it knows.
. "$(dirname "$0")/../boot/lib.sh"
plan 5
patterns=(
	'\bsystem[[:space:]]*\('
	'\bpopen[[:space:]]*\('
	'\bwordexp[[:space:]]*\('
	'sh -c'
	'"sh",[[:space:]]*"-c"'
	'"/bin/(ba|da)?sh"'
	'\b(tmpnam|tempnam|mktemp)[[:space:]]*\('
	'\bmkdir(_p)?[[:space:]]*\([[:space:]]*[a-z_]*tmp[a-z_]*[[:space:]]*,'
)
# offenders DIR...: every line of a C source or header under DIR that matches a pattern
offenders() {
	local p
	for p in "${patterns[@]}"; do
		grep -rnE --include='*.c' --include='*.h' "$p" "$@"
	done
}

# the checker catches each pattern, in a planted file
mkdir -p "$WORK/planted"
cat >"$WORK/planted/bad.c" <<'C'
int a(void) { return system("make"); }
FILE *b(void) { return popen("ls", "r"); }
int c(wordexp_t *w) { return wordexp("$HOME", w, 0); }
const char *d = "sh -c 'echo'";
const char *e[] = { "sh", "-c", "x", 0 };
int f(void) { return execl("/bin/sh", "sh", 0); }
char *g(char *t) { return mktemp(t); }
int h(char *tmp) { return mkdir_p(tmp, 0755); }
int ok_filesystem(void) { return filesystem(1) + ecosystem (2); }
C
is "$(offenders "$WORK/planted" | wc -l)" "${#patterns[@]}" "the checker finds all ${#patterns[@]} planted patterns and not 'filesystem('"

offenders "$ROOT/harness" >"$WORK/harness.txt"
[ ! -s "$WORK/harness.txt" ]
ok $? "harness/: no shell, no predictable temp names"
sed 's/^/#   /' "$WORK/harness.txt"
offenders "$ROOT/guest" >"$WORK/guest.txt"
[ ! -s "$WORK/guest.txt" ]
ok $? "guest/: no shell, no predictable temp names"
sed 's/^/#   /' "$WORK/guest.txt"
# every fork in the harness is spawn.c's (the libvirt backend forks nothing)
grep -rln --include='*.c' '\bfork[[:space:]]*(' "$ROOT/harness" | sed "s|$ROOT/||" | sort >"$WORK/forks.txt"
is "$(grep -v '^harness/\(spawn\|ab-runs\)\.c$' "$WORK/forks.txt" | tr '\n' ' ')" "" \
	"fork() only in harness/spawn.c and ab-runs.c (children of ab -j run kpair code, no exec)"
# exec only in spawn.c
is "$(grep -rln --include='*.c' '\bexec[lv]p\?e\?[[:space:]]*(' "$ROOT/harness" | sed "s|$ROOT/||" | tr '\n' ' ')" \
	"harness/spawn.c " "exec*() only in harness/spawn.c"
done_testing
