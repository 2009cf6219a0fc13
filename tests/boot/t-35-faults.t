#!/usr/bin/env bash
# faults inside the guest, each injected by a TEST ONLY workload (kpair help workloads): a
# hang, a kernel panic mid-workload, the agent (PID 1) crashing, a hung-task report, lying
# records and a full scratch disk. Each gets its own status and exit code, a one-line reason
# and a console excerpt in result.json; QEMU is reaped and no image is left behind.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 59
job="$ROOT/tests/boot/jobs/fault.job"
shm_before=$(ls /dev/shm | grep -c '^kpair-')

# fault NAME EXIT STATUS REASON-ERE EXCERPT-ERE: the run's verdict, reason, excerpt and cleanup
fault() {
	local name=$1 rc=$2 status=$3 reason=$4 excerpt=$5 r="$DIR/result.json"
	is "$RC" "$rc" "$name: exit $rc"
	is "$(jqr "$r" .status)" "$status" "$name: status $status"
	jqr "$r" .reason | grep -Eq -- "$reason" && [ "$(jqr "$r" .reason | wc -l)" = 1 ]
	ok $? "$name: one-line reason: $(jqr "$r" .reason | cut -c1-90)"
	jqr "$r" .console_excerpt | grep -Eq -- "$excerpt"
	ok $? "$name: console excerpt has /$excerpt/"
	no_qemu_left "$DIR" && [ ! -e "$DIR/scratch.img" ] && [ ! -e "$DIR/initramfs.cpio" ] &&
		[ ! -e "$DIR/qemu.pid" ] && ! ls "$DIR" | grep -q '\.tmp'
	ok $? "$name: QEMU reaped, no image, pid file or temp file left"
}
run() { kpair_run "$1" "$job" --kernel "$KERNEL" --set job.workload="$2" "${@:3}"; }

# a guest that hangs after hello, sending a heartbeat: stopped at job.timeout, samples kept
run hang hang --set job.timeout=3s --set params.beat=300ms
fault hang 11 workload-timeout '^no done within 3\.0 s after hello \([0-9]+ samples in\); console: ' .
beats=$(grep -c '"metric":"hang_beat"' "$DIR/samples.jsonl")
[ "$beats" -ge 3 ] && [ "$(jqr "$DIR/result.json" .records)" = "$beats" ]
ok $? "hang: the $beats heartbeats that arrived are in samples.jsonl and result.json"

# sysrq c in the middle of the workload
run crash crash
fault crash 12 kernel-panic '^Kernel panic - not syncing: sysrq triggered crash$' 'sysrq triggered crash'
grep -q '"metric":"crash_armed"' "$DIR/samples.jsonl"
ok $? "crash: the sample sent before the panic is kept"

# the agent is PID 1: abort() in it is an agent crash, not a kernel bug
run exit exit --set params.how=1
fault exit 13 agent-exit '^the agent \(PID 1\) died, killed by signal 11 \(Segmentation fault\): Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b$' \
	'Attempted to kill init'

# a real hung-task report (a write blocked on a frozen fs): the run completes, but is marked
run hungtask hungtask
fault hungtask 0 ok '^ok, but the console has [0-9]+ warning line\(s\), first: \[ *[0-9.]+\] INFO: task .* blocked for more than 1 seconds\.$' \
	'blocked for more than'
jqt "$DIR/result.json" '.console.warnings >= 1 and (.console.first_warning | test("^\\[ *[0-9.]+\\] INFO: task "))'
ok $? "hungtask: console.warnings and first_warning in result.json"

# a guest that lies on the channel: one good sample, then one bad record
garble() {	# garble MODE REASON-ERE
	run "garble$1" garble --set params.mode="$1"
	fault "garble$1" 15 bad-record "$2" .
	[ "$(grep -c . "$DIR/samples.jsonl")" = 2 ] && grep -q '"metric":"garble_ok"' "$DIR/samples.jsonl"
	ok $? "garble$1: hello and the good sample are stored, nothing after the bad record"
}
garble 1 "^record 2: bad JSON at column 1: "
garble 2 "^sample record has seq 1, expected 2$"
garble 3 "^sample record has seq 3, expected 2$"
garble 4 "^record 2 is over the 4096-byte limit$"
garble 5 "^stream ends inside record 2 \\([0-9]+ bytes, no newline\\)$"

# the scratch disk fills up: ENOSPC is the workload's failure, with how far it got
run fill fill
fault fill 16 workload-failed '^agent: fill: scratch disk full after [0-9]+ bytes: write: No space left on device$' \
	'kpair-agent: fill: scratch disk full'

is "$(ls /dev/shm | grep -c '^kpair-')" "$shm_before" "no kpair file left in /dev/shm"
done_testing
