#!/usr/bin/env bash
# bisect: a 4-patch series on linux-source-6.1 (configs/patches/bisect-demo) where patch 3 puts a
# 300 ms busy wait into vfs_fsync_range(); bisect on write_s names patch 3 with the evidence of
# each step, in at most 1 + log2(4) A/Bs and the retest of the boundary pair; a second bisect reuses the kernels and the runs on disk.
# Runs after t-70-build.t, which builds the stock kernel; each prefix is an incremental build.
. "$(dirname "$0")/lib.sh"
plan 8
series="$ROOT/configs/patches/bisect-demo/series"
job="$ROOT/configs/jobs/smoke.job"
bisect() {
	"$KPAIR" bisect "$job" --source linux-source-6.1 --series "$series" --metric write_s \
		-n 5 --max-runs 6 --set params.size=4M -o "$WORK/bisect" "$@" >"$WORK/bisect.out" 2>"$WORK/bisect.err"
}

t0=$(date +%s)
bisect
rc=$?
secs=$(( $(date +%s) - t0 ))
is $rc 0 "bisect finds a first bad patch (${secs} s)"
grep -q "^bisect: first bad patch: 0003-fsync-delay.patch (3 of 4)" "$WORK/bisect.out"
ok $? "it is 0003-fsync-delay.patch: $(grep '^bisect: first bad' "$WORK/bisect.out")"
b="$WORK/bisect/bisect.json"
jqt "$b" '.first_bad.index == 3 and .patches == 4 and .ab_steps <= 4'
ok $? "bisect.json: first bad 3 of 4, $(jqr "$b" .ab_steps) A/B steps (1 + log2 4, and the retest of the boundary: 4 at most)"
jqt "$b" '[.steps[] | select(.patches >= 3) | .result] | all(. == "bad")' &&
	jqt "$b" '[.steps[] | select(.patches < 3) | .result] | all(. == "good")'
ok $? "every step with patch 3 is bad, every step without it good"
[ "$(grep '^bisect: step [0-9]*: patches 1\.\.[0-9] .*p_adjusted' "$WORK/bisect.out" | cut -d: -f2 | sort -u | wc -l)" = "$(jqr "$b" '.steps | length')" ]
ok $? "the evidence of each step is printed"
jqt "$b" '.steps[] | select(.patches == 4) | .ratio_ci_low > 1.2'
ok $? "the whole series: write_s ratio CI above +20 %"

t0=$(date +%s)
bisect
rc=$?
secs=$(( $(date +%s) - t0 ))
[ $rc = 0 ] && grep -q "^bisect: first bad patch: 0003-fsync-delay.patch" "$WORK/bisect.out"
ok $? "a second bisect gives the same answer"
n=$(ls -d "$WORK"/bisect/step-*/runs/[0-9]* | wc -l)
[ "$secs" -lt 30 ] && [ "$n" = "$(jqr "$b" '[.steps[] | .n_a + .n_b] | add')" ] && ! grep -q "build: .* in /" "$WORK/bisect.err"
ok $? "and reuses the kernels and the runs on disk: nothing built, no run added (${secs} s)"
done_testing
