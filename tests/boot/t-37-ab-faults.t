#!/usr/bin/env bash
# an A/B where exactly one run fails (its QEMU is SIGKILLed mid-run, once): the failed run is
# recorded with its status and reason, retried on the same side, and counted in the verdict;
# no side shrinks. A second kpair on the same A/B directory is refused while the first runs.
# An A/B whose kpair is SIGKILLed mid-run resumes with nothing lost, doubled or left running.
# A side whose warm-up and first run fail the same way stops at once.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 18
job="$ROOT/configs/jobs/smoke.job"
D="$WORK/ab"
wait_for() { local i; for i in $(seq 600); do eval "$1" && return 0; sleep 0.1; done; return 1; }

"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" -n 2 --seed 3 --set params.size=4M \
	--set job.memory=256M -o "$D" >"$WORK/ab.out" 2>"$WORK/ab.err" &
ab=$!
# while run 001 boots: a second kpair on the directory, then its QEMU is killed
wait_for "[ -f $D/runs/001-*/qemu.pid ] 2>/dev/null && grep -qa qemu /proc/\$(cat $D/runs/001-*/qemu.pid)/cmdline"
ok $? "run 001 is booting"
"$KPAIR" resume "$D" >"$WORK/resume.out" 2>"$WORK/resume.err"
is "$?" 2 "kpair resume on an A/B directory in use: exit 2"
grep -q "kpair: '$D' is in use by another kpair process" "$WORK/resume.err" && [ ! -e "$D/runs/001-stock.interrupted-"* ] &&
	[ ! -e "$D/runs/001-patched.interrupted-"* ]
ok $? "  it says so, and moved no run aside"
sleep 1
kill -9 "$(cat "$D"/runs/001-*/qemu.pid)"
wait $ab
is "$?" 0 "the A/B finishes (exit 0: no regression on an A/A pair)"
c="$D/comparison.json"
jqt "$c" '.failed_runs == 1 and (.failed_a + .failed_b) == 1'
ok $? "comparison.json: failed_runs 1"
jqt "$c" '[.order[] | select(.status != "ok")] | length == 1 and .[0].index == 1 and .[0].status == "qemu-died" and (.[0].reason | test("^QEMU killed by signal 9"))'
ok $? "the failed run is in the order with its status and reason"
side=$(jq -r '.order[1].side' "$c")
jqt "$c" ".order | length == 5 and .[2].side == \"$side\" and .[2].status == \"ok\""
ok $? "  and was retried at once on the same side ($side)"
jqt "$c" '.metrics.write_s.n_a == 2 and .metrics.write_s.n_b == 2 and (.metrics.write_s.values_a | length) == 2'
ok $? "two good runs a side: the failure shrank neither"
grep -Eq "^  failed runs: [01] stock, [01] patched \(left out of the statistics\)$" "$WORK/ab.out"
ok $? "the verdict table says how many failed: $(grep 'failed runs' "$WORK/ab.out")"
is "$(jqr "$D/runs/001-$side/result.json" .status)" qemu-died "the failed run's own result.json says qemu-died"
ok_samples=$(for r in "$D"/runs/[0-9][0-9][0-9]-*/; do
	[ "$(jqr "$r/result.json" .status)" = ok ] && grep -c '"type":"sample"' "$r/samples.jsonl"
done | paste -sd+ | bc)
is "$ok_samples" 16 "samples of the four good runs on disk: 4 x 4"

# kpair SIGKILLed in the middle of a run, then resumed: the run is moved aside clean, redone
D="$WORK/kill"
"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" -n 1 --seed 3 --set params.size=4M \
	--set job.memory=256M -o "$D" >"$WORK/kill.out" 2>&1 &
ab=$!
wait_for "[ -f $D/runs/001-*/qemu.pid ] 2>/dev/null && grep -qa qemu /proc/\$(cat $D/runs/001-*/qemu.pid)/cmdline"
qpid=$(cat "$D"/runs/001-*/qemu.pid)
{ kill -9 $ab && wait $ab; } 2>/dev/null
wait_for "! grep -qa qemu /proc/$qpid/cmdline 2>/dev/null"
ok $? "kpair SIGKILLed mid-run: its QEMU dies with it"
"$KPAIR" resume "$D" >"$WORK/kill-resume.out" 2>&1
is "$?" 0 "resume finishes the A/B"
i=$(ls -d "$D"/runs/001-*.interrupted-* 2>/dev/null)
[ -d "$i" ] && [ ! -e "$i/qemu.pid" ] && [ ! -e "$i/scratch.img" ] && [ ! -e "$i/initramfs.cpio" ]
ok $? "the interrupted run is kept aside, with no stale pid file, image or initramfs"
jqt "$D/comparison.json" '.metrics.write_s.n_a == 1 and .metrics.write_s.n_b == 1 and ([.metrics[] | (.values_a | length) + (.values_b | length)] | add) == 8 and .failed_runs == 0'
ok $? "one run a side after resume, the interrupted one's samples not counted"
n=$(cat "$D"/runs/00[0-9]-stock/samples.jsonl "$D"/runs/00[0-9]-patched/samples.jsonl | grep -c '"type":"sample"')
is "$n" 8 "samples on disk: 2 runs x 4, none lost, none doubled"

# a failure that cannot go away: the patched side writes 200 MiB to a 128 MiB disk. Its warm-up
# and its first run fail the same way; the A/B stops there (2 boots, not 7) and says why
D="$WORK/certain"
"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" -n 3 --set params.size=4M --set disk.size=128M \
	--patched-set params.size=200M -o "$D" >"$WORK/certain.out" 2>"$WORK/certain.err"
is "$?/$(ls -d "$D"/runs/* | wc -l)" 3/2 "a side failing the same way twice stops the A/B: exit 3 after 2 boots"
grep -q "every patched run fails the same way (workload-failed: .*No space left on device): stopping" "$WORK/certain.err" &&
	jqr "$D/comparison.json" '.summary[0]' | grep -q '^no verdict: no patched run ended ok (workload-failed: .*No space left on device)$' &&
	grep -q '^  no patched run ended ok: workload-failed: ' "$WORK/certain.out"
ok $? "it says why, in the error, the summary and under the table"
done_testing
