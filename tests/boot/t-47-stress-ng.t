#!/usr/bin/env bash
# stress-ng: the host's stress-ng (Debian's package) in an x86_64 guest over the host's / shared
# read-only (docs/benchmarks.md). Two stressors in one boot give each one's bogo ops, with the
# op count asked; an A/B where the patched side boots with pti=on (a page-table switch on
# every system call: a planted difference in the syscall path) comes out regressed on the
# get* syscalls stressor. The refusals before boot: tests/golden.
. "$(dirname "$0")/lib.sh"
need_kernel
[ -x /usr/bin/stress-ng ] || skip_all "no /usr/bin/stress-ng (scripts/deps installs stress-ng)"
plan 10
val() { jqr "$DIR/result.json" ".samples[\"$1\"].values[0]"; }

kpair_run two "$ROOT/configs/jobs/stress-ng-pipe.job" --kernel "$KERNEL" \
	--set params.stressors="pipe switch" --set params.ops=2000
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "stress-ng pipe then switch: status ok (${SECS} s)"
is "$(val pipe.bogo_ops) $(val switch.bogo_ops)" "2000 2000" "each stressor did the 2000 bogo ops asked"
jqt "$r" '.samples["pipe.bogo_ops_s"].values[0] > 0 and .samples["switch.bogo_ops_s"].values[0] > 0'
ok $? "bogo ops/s of each: pipe $(val pipe.bogo_ops_s), switch $(val switch.bogo_ops_s)"
is "$(jqr "$r" '.samples["pipe.bogo_ops_s"].unit + " " + .samples["pipe.wall_s"].unit')" "ops/s s" \
	"units: ops/s (higher is better), s (lower)"
jqr "$r" .qemu.cmdline | grep -q -- 'readonly=on'
ok $? "the host's / is shared read-only"

"$KPAIR" ab "$ROOT/configs/jobs/stress-ng-syscall.job" --stock "$KERNEL" --patched "$KERNEL" \
	-n 5 --seed 5 --set params.ops=300 --patched-set job.cmdline=pti=on -o "$WORK/ab" \
	>"$WORK/ab.out" 2>"$WORK/ab.err"
is $? 1 "ab, patched side booted with pti=on: exit 1 (a regression)"
c="$WORK/ab/comparison.json"
is "$(jqr "$c" '.metrics["get.bogo_ops_s"].verdict')" regressed \
	"get.bogo_ops_s: regressed (ratio $(jqr "$c" '.metrics["get.bogo_ops_s"].ratio'))"
is "$(jqr "$c" '.metrics["get.bogo_ops_s"].better')" higher "bogo ops/s: higher is better"
jqt "$c" '.metrics["get.bogo_ops"].better == "none"'
ok $? "the op count itself has no direction"
kcidb_ab "$WORK/ab" "$WORK/ab.kcidb.json"
ok $? "export kcidb of the A/B: valid KCIDB v5.0, a test for each dotted metric name ($(jq '.tests | length' "$WORK/ab.kcidb.json") tests)"
done_testing
