#!/usr/bin/env bash
# a user's fio file of two jobs (a sequential write, then a random read: 15 performance metrics)
# in the demo's precise mode, A/B'd at the default settings between the kernel as shipped and
# the same kernel booted with init_on_alloc=0: the metrics that moved (5-10 %, runs that repeat
# exactly) are called, not lost to the correction for fifteen (Holm called none of them at 5 runs
# a side). The A/A of the same file finds no change on any of them.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 11
job="$ROOT/tests/boot/jobs/fio-ab.job"
"$ROOT/scripts/build-fio" >"$WORK/build-fio.out" 2>&1 || { sed 's/^/#   /' "$WORK/build-fio.out"; }

"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" --patched-set 'job.cmdline=quiet init_on_alloc=0' \
	-o "$WORK/ab" >"$WORK/ab.out" 2>"$WORK/ab.err"
is $? 0 "ab at the default settings: nothing regressed"
c="$WORK/ab/comparison.json"
perf='[.metrics[] | select(.better != "none")]'
is "$(jqr "$c" "$perf | length")/$(jqr "$c" '.metrics["seqwrite.write.bw"].n_a')" 15/5 \
	"15 performance metrics, 5 runs a side"
n=$(jqr "$c" "[$perf[] | select(.verdict == \"improved\")] | length")
[ "$n" -ge 12 ]
ok $? "init_on_alloc=0: $n of the 15 improved"
jqt "$c" '[.metrics | to_entries[] | select(.key | test("\\.(bw|runtime|clat_ns\\.p50)$")) | .value.verdict] | length == 6 and all(. == "improved")'
ok $? "both jobs' bandwidth, runtime and median latency among them"
jqt "$c" "[$perf[] | select(.verdict == \"improved\") | (.p_adjusted < 0.05 and (.ratio_ci_high < 0.98 or .ratio_ci_low > 1.02))] | all"
ok $? "each with p_adjusted < 0.05 and a CI beyond the 2 % threshold"
jqt "$c" '.rule.secondaries == 15 and .rule.primary == null and (.rule.secondary_rule | test("^Benjamini-Hochberg")) and .outcome == "pass"'
ok $? "comparison.json states the rule: one Benjamini-Hochberg family of 15, no primary"
grep -q "ab: 15 performance metrics, one Benjamini-Hochberg family" "$WORK/ab.err"
ok $? "ab says the family before it runs the rest: $(grep -m1 'performance metrics' "$WORK/ab.err" | cut -c1-90)"
jqr "$c" '.summary[0]' | grep -q '^patched is .* faster on seqwrite.write.bw'
ok $? "the finding in one sentence names them"
kcidb_ab "$WORK/ab" "$WORK/ab.kcidb.json"
ok $? "export kcidb of the A/B: valid KCIDB v5.0, a test for each of fio's dotted metric names"

"$KPAIR" calibrate "$job" --kernel "$KERNEL" -o "$WORK/aa" >"$WORK/aa.out" 2>"$WORK/aa.err"
is $? 0 "A/A of the same file at the default settings: exit 0"
a="$WORK/aa/comparison.json"
jqt "$a" "[$perf[] | select(.verdict != \"no-change\" and .verdict != \"inconclusive\")] | length == 0"
ok $? "A/A: no verdict of a change on any of the 15 ($(jqr "$a" "[$perf[] | .verdict] | group_by(.) | map(\"\(length) \(.[0])\") | join(\", \")"))"
done_testing
