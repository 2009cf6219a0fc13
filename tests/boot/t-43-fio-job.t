#!/usr/bin/env bash
# fio-job: the user's own fio job file in the guest (docs/benchmarks.md). A file with two
# jobs gives both jobs' metrics, with fio's byte counts equal to each job's size=; a mixed
# job of configs/fio gives read and write apart; a job that fails in the guest is
# workload-failed with fio's own message. The refusals before boot: tests/golden.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 15
val() { jqr "$DIR/result.json" ".samples[\"$1\"].values[0]"; }

"$ROOT/scripts/build-fio" >"$WORK/build-fio.out" 2>&1
ok $? "scripts/build-fio: the static fio (built, or the cache)"

kpair_run two "fio:$ROOT/tests/boot/jobs/fio-two-jobs.fio" --kernel "$KERNEL"
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "fio:FILE with two jobs: status ok (${SECS} s)"
is "$(jqr "$r" .job.workload)" fio-job "kpair run fio:FILE is the fio-job workload"
is "$(val writer.write.io_bytes)" 2097152 "job 1 (writer): fio wrote its size=2m"
is "$(val reader.read.io_bytes)" 2097152 "job 2 (reader): fio read its size=2m"
jqt "$r" '.samples as $s | [$s["writer.write.bw"], $s["writer.write.iops"], $s["reader.read.bw"],
	$s["reader.read.iops"]] | map(.values[0] > 0) | all'
ok $? "both jobs: bw and iops positive"
jqt "$r" '.samples as $s | [$s["reader.read.clat_ns.p50"], $s["reader.read.clat_ns.p99"],
	$s["reader.read.clat_ns.p99.9"]] | map(.values[0]) | (.[0] > 0 and . == sort)'
ok $? "reader: clat p50 <= p99 <= p99.9 from fio's percentiles"
jqt "$r" '.samples | keys | map(select(startswith("writer.read.") or startswith("reader.write.")))
	| length == 0'
ok $? "no metrics for the direction a job did not do"
jqt "$r" '.samples["writer.write.bw"].unit == "KiB/s" and .samples["reader.read.clat_ns.p99"].unit == "ns"'
ok $? "units: bandwidth in KiB/s (higher is better), latency in ns (lower)"
cmp -s "$DIR/param-jobfile" "$ROOT/tests/boot/jobs/fio-two-jobs.fio"
ok $? "the run keeps the job file it ran (param-jobfile)"

kpair_run mixed "fio:$ROOT/configs/fio/randrw-70-30.fio" --kernel "$KERNEL"
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "configs/fio/randrw-70-30.fio: status ok (${SECS} s)"
is "$(jqr "$r" '(.samples["randrw.read.io_bytes"].values[0] + .samples["randrw.write.io_bytes"].values[0])')" \
	16777216 "mixed job: reads and writes apart, adding up to its size=16m"
jqt "$r" '.samples["randrw.sync.lat_ns.mean"].values[0] > 0'
ok $? "mixed job: fsync=32 gives the sync latency"

kpair_run enospc "fio:$ROOT/tests/boot/jobs/fio-enospc.fio" --kernel "$KERNEL" --set disk.size=32M
r="$DIR/result.json"
is "$(jqr "$r" .status)" workload-failed "a 64 MiB job on a 32 MiB disk: workload-failed (${SECS} s)"
jqr "$r" .reason | grep -q 'fio exited with status 1: .*No space left on device'
ok $? "the reason is fio's own stderr: $(jqr "$r" .reason | cut -c1-90)"
done_testing
