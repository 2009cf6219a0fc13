#!/usr/bin/env bash
# golden: hostile job and target files. Every file in tests/golden/bad-jobs/*.job and
# bad-targets/*.target is refused before anything is made or booted, with exit 2 and exactly
# the messages of its sibling .expect (file:line: section.key: reason; @ROOT@ stands for the
# project directory). The corpus: unknown, repeated and misplaced keys and sections, bad units,
# negative, zero, huge and overflowing numbers, missing sections and required keys, empty and
# comment-only files, syntax errors, long lines, names and paths that escape the results or
# project directory, control characters, non-UTF-8 text, NUL bytes, UTF-16 and binary junk.
. "$(dirname "$0")/../boot/lib.sh"
cd "$ROOT" || exit 1
jobs=(tests/golden/bad-jobs/*.job)
targets=(tests/golden/bad-targets/*.target)
plan $(( 2 * (${#jobs[@]} + ${#targets[@]}) + 4 ))
nokernel=golden-no-such-kernel	# never reached: every file fails before the kernel stage

# try NAME EXPECT-FILE ARGS...: exit 2, stderr is the .expect, nothing made
try() {
	local name=$1 expect=$2 out="$WORK/out-$1" rc
	shift 2
	"$KPAIR" run -q --kernel "$nokernel" -o "$out" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	rc=$?
	[ "$rc" = 2 ] && [ ! -e "$out" ] && [ ! -s "$WORK/$name.out" ]
	ok $? "$name: exit 2, nothing made ($rc)"
	sed "s|@ROOT@|$ROOT|g" "$expect" | diff -u - "$WORK/$name.err" >"$WORK/$name.diff"
	ok $? "$name: $(head -1 "$expect" | sed 's/^kpair: [^ ]*: //' | cut -c1-70)"
	[ -s "$WORK/$name.diff" ] && sed 's/^/#   /' "$WORK/$name.diff"
}

for f in "${jobs[@]}"; do
	try "$(basename "$f")" "${f%.job}.expect" "$f"
done
for f in "${targets[@]}"; do
	try "$(basename "$f")" "${f%.target}.expect" tests/golden/bad-targets/good.job --set job.target="$f"
done

[ "${#jobs[@]}" -ge 50 ]
ok $? "at least 50 bad job files (${#jobs[@]}) and ${#targets[@]} bad targets"
missing=0
for f in "${jobs[@]%.job}" "${targets[@]%.target}"; do [ -f "$f.expect" ] || missing=$((missing + 1)); done
for f in tests/golden/bad-jobs/*.expect tests/golden/bad-targets/*.expect; do
	b=${f%.expect}
	[ -f "$b.job" ] || [ -f "$b.target" ] || missing=$((missing + 1))
done
is "$missing" 0 "every bad file has its .expect and every .expect its file"
# the good job and target get past parsing: the failures above are the files', not the runner's
"$KPAIR" run -q --kernel "$nokernel" -o "$WORK/good" tests/golden/bad-targets/good.job 2>"$WORK/good.err"
[ $? = 2 ] && grep -q "kernel '$nokernel' is not in the store" "$WORK/good.err"
ok $? "the good job fails only at the kernel stage"
# a --set on the command line is the user's choice: a target path outside the project is fine
outside=$(mktemp -d /tmp/kpair-golden.XXXXXX)
cp configs/targets/x86_64.target "$outside/outside.target"
"$KPAIR" run -q --kernel "$nokernel" tests/golden/bad-targets/good.job \
	--set job.target="$outside/outside.target" 2>"$WORK/set.err"
grep -q "is not in the store" "$WORK/set.err"
ok $? "--set job.target=$outside/outside.target is taken from the command line"
rm -rf "$outside"
done_testing
