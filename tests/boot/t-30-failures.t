#!/usr/bin/env bash
# failure is a status, never a hang: boot timeout, kernel panic, agent error, bad job
. "$(dirname "$0")/lib.sh"
need_kernel
plan 14
job="$ROOT/configs/jobs/smoke.job"

kpair_run timeout "$job" --kernel "$KERNEL" --set job.boot_timeout=1s
is "$RC" 10 "impossible boot timeout: exit 10"
is "$(jqr "$DIR/result.json" .status)" boot-timeout "status boot-timeout"
[ "$(echo "$SECS < 8" | bc)" = 1 ]
ok $? "boot timeout is fast (${SECS} s)"
no_qemu_left "$DIR"
ok $? "QEMU reaped after the timeout"

kpair_run panic "$job" --kernel "$KERNEL" --set "job.cmdline=rdinit=/nonexistent root=/dev/nonexistent"
is "$RC" 12 "kernel that cannot find init or root: exit 12"
is "$(jqr "$DIR/result.json" .status)" kernel-panic "status kernel-panic"
jqr "$DIR/result.json" .reason | grep -q "Kernel panic - not syncing"
ok $? "reason is the panic line"
jqr "$DIR/result.json" .console_excerpt | grep -q "Kernel panic"
ok $? "console excerpt in result.json"

kpair_run mountfail "$job" --kernel "$KERNEL" --set disk.mount_options=no_such_option
is "$RC" 16 "mount option the kernel refuses: exit 16"
is "$(jqr "$DIR/result.json" .status)" workload-failed "status workload-failed"
jqr "$DIR/result.json" .reason | grep -q "agent: mount:"
ok $? "reason names the agent's failing stage"

printf '[job]\nname = x\nworkload = smoke\ntimeout = 12parsecs\n' >"$WORK/bad.job"
t0=$(date +%s%N)
"$KPAIR" run -q --kernel "$KERNEL" "$WORK/bad.job" >/dev/null 2>"$WORK/bad.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
is "$rc" 2 "bad job file: exit 2"
grep -q "bad.job:4: job.timeout: '12parsecs': bad unit" "$WORK/bad.err"
ok $? "error names file, line and field"
[ $ms -lt 1000 ]
ok $? "rejected before any boot (${ms} ms)"
done_testing
