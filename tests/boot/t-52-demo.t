#!/usr/bin/env bash
# make demo's pair at a quarter of its size: the kernel as shipped against the same kernel
# booted with init_on_alloc=0, in demo.job's precise mode (icount, RAM disk), must come out
# improved with a tight CI from 5 runs a side, and the A/A beside it must find no change.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 9
job="$ROOT/configs/jobs/demo.job"
"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" --warmup 0 -n 5 --set params.size=16M \
	--patched-set 'job.cmdline=quiet init_on_alloc=0' -o "$WORK/ab" >"$WORK/ab.out" 2>"$WORK/ab.err"
is $? 0 "ab: nothing regressed"
c="$WORK/ab/comparison.json"
is "$(jqr "$c" '[.metrics.write_s.verdict, .metrics.read_s.verdict] | join(" ")')" "improved improved" \
	"init_on_alloc=0: write_s and read_s improved"
jqt "$c" '.metrics.read_s | .ratio_ci_high < 0.97 and .ratio_ci_high - .ratio_ci_low < 0.01'
ok $? "read_s at least 3 % faster, CI under 1 point wide ($(jqr "$c" '.metrics.read_s | "\(.ratio_ci_low)-\(.ratio_ci_high)"'))"
jqr "$c" '.summary[0]' | grep -q '^patched is [0-9.]* % faster on write_s (95 % CI [0-9.-]* %) and [0-9.]* % faster on read_s (95 % CI [0-9.-]* %) than stock, 5 runs a side$'
ok $? "the finding in one sentence: $(jqr "$c" '.summary[0]')"
sed -n '/^ab: .* vs .*, 10 runs$/{n;p;q}' "$WORK/ab.out" | grep -q '^patched is .* faster on write_s'
ok $? "the terminal table opens with it"
is "$(jqr "$c" .command)" "harness/kpair ab configs/jobs/demo.job --stock $KERNEL --patched $KERNEL --set params.size=16M --patched-set 'job.cmdline=quiet init_on_alloc=0' -n 5 --seed 1 --warmup 0" \
	"comparison.json: the exact command to rerun it"
grep -q '<p class="headline"><b>patched is .* faster on write_s' "$WORK/ab/report.html"
ok $? "report.html opens with the finding"

# A/A: the shipped kernel on both sides, in the same mode: no change
"$KPAIR" calibrate "$job" --kernel "$KERNEL" --warmup 0 -n 2 --set params.size=16M -o "$WORK/aa" \
	>"$WORK/aa.out" 2>"$WORK/aa.err"
is $? 0 "calibrate exits 0"
is "$(jqr "$WORK/aa/comparison.json" '[.metrics.write_s.verdict, .metrics.read_s.verdict] | join(" ")')" \
	"no-change no-change" "A/A: no change on either metric"
done_testing
