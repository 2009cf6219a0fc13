#!/usr/bin/env bash
# faults outside the guest: QEMU SIGKILLed mid-run, kpair itself SIGKILLed, a boot that
# hangs, a missing or corrupt kernel image (also one changed in place after a run), module
# or agent, mkfs refusing its options, the results directory running out of space (a small
# tmpfs as -o), and a second kpair on the same run directory. Each is a status with a
# reason; nothing is left running or half-written.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 53
job="$ROOT/tests/boot/jobs/fault.job"
K="$ROOT/images/kernels/$KERNEL"
shm_before=$(ls /dev/shm | grep -c '^kpair-')
# wait_for COND-COMMAND: up to 60 s
wait_for() { local i; for i in $(seq 600); do eval "$1" && return 0; sleep 0.1; done; return 1; }
qemu_up() { [ -f "$1/qemu.pid" ] && grep -qa qemu "/proc/$(cat "$1/qemu.pid")/cmdline" 2>/dev/null; }
hello_in() { grep -q '"type":"hello"' "$1/samples.jsonl" 2>/dev/null; }
clean() {	# clean DIR: no image, initramfs, pid or temp file left in it
	[ ! -e "$1/scratch.img" ] && [ ! -e "$1/initramfs.cpio" ] && [ ! -e "$1/qemu.pid" ] &&
		! ls -a "$1" | grep -q '\.tmp'
}

# 1. QEMU SIGKILLed mid-run; a second kpair on the same run directory meanwhile is refused
D="$WORK/killed"
"$KPAIR" run -q -o "$D" "$job" --kernel "$KERNEL" --set params.beat=200ms >/dev/null 2>"$WORK/killed.err" &
kp=$!
wait_for "qemu_up $D && hello_in $D"
"$KPAIR" run -q -o "$D" "$job" --kernel "$KERNEL" >/dev/null 2>"$WORK/second.err"
is "$?" 3 "a second kpair on a run directory in use: exit 3"
grep -q "kpair: '$D' is in use by another kpair process" "$WORK/second.err"
ok $? "  and it says the directory is in use"
qpid=$(cat "$D/qemu.pid")
sleep 1
kill -9 "$qpid"
wait $kp
is "$?" 14 "QEMU SIGKILLed mid-run: exit 14"
r="$D/result.json"
is "$(jqr "$r" .status)" qemu-died "  status qemu-died"
jqr "$r" .reason | grep -Eq '^QEMU killed by signal 9 \(Killed\) after hello, [0-9]+ samples in$'
ok $? "  reason: $(jqr "$r" .reason)"
[ "$(jqr "$r" .qemu.pid)" = "$qpid" ] && [ -n "$(jqr "$r" .console_excerpt)" ]
ok $? "  result.json has QEMU's pid and a console excerpt"
n=$(grep -c '"metric":"hang_beat"' "$D/samples.jsonl")
[ "$n" -ge 2 ] && [ "$(jqr "$r" .records)" = "$n" ]
ok $? "  the $n samples that arrived are kept, the second kpair wrote nothing into them"
no_qemu_left "$D" && clean "$D"
ok $? "  nothing left running or on disk"

# 2. kpair itself SIGKILLed: QEMU goes with it, the images were never left on disk
D="$WORK/kpair-killed"
"$KPAIR" run -q -o "$D" "$job" --kernel "$KERNEL" --set disk.backing=tmpfs >/dev/null 2>&1 &
kp=$!
wait_for "qemu_up $D"
qpid=$(cat "$D/qemu.pid")
{ kill -9 $kp && wait $kp; } 2>/dev/null
wait_for "! grep -qa qemu /proc/$qpid/cmdline 2>/dev/null"
ok $? "kpair SIGKILLed: its QEMU ($qpid) dies with it"
[ ! -e "$D/scratch.img" ] && [ ! -e "$D/initramfs.cpio" ] &&
	[ "$(ls /dev/shm | grep -c '^kpair-')" = "$shm_before" ]
ok $? "  no scratch image (run dir or /dev/shm) and no initramfs left"

# 3. a boot that hangs for real: the kernel waits forever for a root device that never comes
kpair_run boothang "$job" --kernel "$KERNEL" --set job.boot_timeout=10s \
	--set "job.cmdline=rdinit=/nonexistent root=/dev/vdz rootwait"
is "$RC" 10 "boot hang (rootwait on a missing disk): exit 10"
is "$(jqr "$DIR/result.json" .status)" boot-timeout "  status boot-timeout"
jqr "$DIR/result.json" .reason | grep -Eq '^no hello within 10\.0 s of QEMU start; console: \[ *[0-9.]+\] ' &&
	jqr "$DIR/result.json" .console_excerpt | grep -q '^\[ *[0-9.]*\] Waiting for root device /dev/vdz\.\.\.$'
ok $? "  reason: $(jqr "$DIR/result.json" .reason | cut -c1-100); the excerpt shows the wait"
no_qemu_left "$DIR" && clean "$DIR"
ok $? "  QEMU reaped, nothing left"

# 4-8. a broken kernel store entry, module or agent: setup-failed before anything boots
mkkernel() {	# mkkernel DIR: a kernel directory like the store's, modules as symlinks
	mkdir -p "$1/lib/modules/$KERNEL"
	cp "$K/kernel.json" "$K/config" "$1/"
	cp "$K/lib/modules/$KERNEL"/modules.{dep,builtin,order} "$1/lib/modules/$KERNEL/" 2>/dev/null
	cp -rs "$K/lib/modules/$KERNEL/kernel" "$1/lib/modules/$KERNEL/"
}
setup_failed() {	# setup_failed NAME REASON-ERE: exit 3, the reason, nothing booted or left
	is "$RC" 3 "$1: exit 3"
	jqt "$DIR/result.json" '.status == "setup-failed" and .exit_code == 3 and .qemu.cmdline == ""' &&
		[ ! -e "$DIR/console.log" ]
	ok $? "  setup-failed in result.json, QEMU never started"
	jqr "$DIR/result.json" .reason | grep -Eq -- "$2"
	ok $? "  reason: $(jqr "$DIR/result.json" .reason | cut -c1-150)"
	clean "$DIR"
	ok $? "  no image or temp file left"
}
mkkernel "$WORK/k-missing"
kpair_run k-missing "$job" --kernel "$WORK/k-missing"
setup_failed "missing kernel image" "^kernel '$KERNEL': image '$WORK/k-missing/vmlinuz' is missing$"

mkkernel "$WORK/k-trunc"
head -c 100000 "$K/vmlinuz" >"$WORK/k-trunc/vmlinuz"
kpair_run k-trunc "$job" --kernel "$WORK/k-trunc"
setup_failed "truncated kernel image" "^kernel '$KERNEL': image '.*/vmlinuz' has sha256 [0-9a-f]{12}\.\.\., kernel.json says [0-9a-f]{12}\.\.\.: corrupt or replaced"

# an image changed in place after a run trusted it: its digest stamp no longer matches the
# file's stat identity, so it is hashed again and refused
mkkernel "$WORK/k-stale"
cp "$K/vmlinuz" "$WORK/k-stale/"
sleep 3	# past the racy window, in which a just-changed file gets no stamp
kpair_run k-stale "$job" --kernel "$WORK/k-stale" --set "disk.mkfs_options=-O no_such_feature"
[ "$RC" = 3 ] && grep -q " $(jq -r .image_sha256 "$K/kernel.json")\$" "$WORK/k-stale/vmlinuz.sha256"
ok $? "a kernel image that passed its digest check gets a stamp (the run then fails at mkfs)"
printf 'X' | dd of="$WORK/k-stale/vmlinuz" bs=1 seek=100000 conv=notrunc 2>/dev/null
kpair_run k-stale2 "$job" --kernel "$WORK/k-stale"
setup_failed "kernel image changed in place after its stamp" "^kernel '$KERNEL': image '.*/k-stale/vmlinuz' has sha256 [0-9a-f]{12}\.\.\., kernel.json says [0-9a-f]{12}\.\.\.: corrupt or replaced"

mkkernel "$WORK/k-junk"
jq 'del(.image_sha256)' "$K/kernel.json" >"$WORK/k-junk/kernel.json"
head -c 9000000 /dev/urandom >"$WORK/k-junk/vmlinuz"
kpair_run k-junk "$job" --kernel "$WORK/k-junk"
setup_failed "junk kernel image, no digest" "is not an amd64 kernel image \(no bzImage HdrS header\): corrupt or truncated$"

mkkernel "$WORK/k-mod"
ln -sf "$K/vmlinuz" "$WORK/k-mod/vmlinuz"
m=$(find "$WORK/k-mod/lib/modules" -name 'virtio_blk.ko*')
rm -f "$m" && echo "not a module" >"$m"
kpair_run k-mod "$job" --kernel "$WORK/k-mod"
setup_failed "corrupt module" "^module '.*virtio_blk\.ko(\.xz)?' is not an ELF object or an xz, zstd or gzip file: corrupt$"

sed "s|^agent .*|agent = ${WORK#$ROOT/}/junk-agent|" "$ROOT/configs/targets/x86_64.target" >"$WORK/junk.target"
printf '#!/bin/sh\necho not an agent\n' >"$WORK/junk-agent"
kpair_run agent "$job" --kernel "$KERNEL" --set job.target="$WORK/junk.target"
setup_failed "corrupt agent" "^guest agent '$WORK/junk-agent' is not an ELF executable: corrupt \(run make\)$"

# 9. mkfs refuses an option
kpair_run mkfs "$job" --kernel "$KERNEL" --set "disk.mkfs_options=-O no_such_feature"
setup_failed "mkfs failure" "^cannot make the ext4 scratch disk: mkfs failed \(exit 1\): mkfs\.ext4 -F -q -b 4096 -O no_such_feature .*/scratch\.img: "
jqr "$DIR/result.json" .disk.mkfs | grep -q '^mkfs.ext4 -F -q -b 4096 -O no_such_feature .*scratch.img$'
ok $? "  the mkfs command is recorded"

# 10. out of space for the results: a small tmpfs as the run directory
M="$WORK/tmpfs"
mkdir -p "$M"
if mount -t tmpfs -o size=1M kpair-test "$M" 2>/dev/null; then
	# the initramfs does not fit
	"$KPAIR" run -q -o "$M/run" "$job" --kernel "$KERNEL" >/dev/null 2>"$WORK/t1.err"
	is "$?" 3 "results dir 1 MiB: exit 3"
	jqr "$M/run/result.json" .reason | grep -q "^cannot write initramfs '$M/run/initramfs.cpio': .*No space left on device$"
	ok $? "  reason: $(jqr "$M/run/result.json" .reason | cut -c1-120)"
	clean "$M/run"
	ok $? "  result.json written whole, no partial initramfs or temp file"
	# no space at all: not even result.json fits, and no piece of it is left
	rm -rf "$M/run"
	dd if=/dev/zero of="$M/filler" bs=4k 2>/dev/null
	"$KPAIR" run -q -o "$M/run" "$job" --kernel "$KERNEL" >/dev/null 2>"$WORK/t2.err"
	is "$?" 3 "results dir full: exit 3"
	grep -q "kpair: run .*: setup-failed: no result.json in '$M/run'" "$WORK/t2.err" &&
		[ ! -e "$M/run/result.json" ] && clean "$M/run"
	ok $? "  says no result.json could be written, and leaves no piece of one"
	umount "$M"
	# space runs out in the middle of a run: the records cannot be stored
	mount -t tmpfs -o size=24M kpair-test "$M"
	D="$M/run"
	"$KPAIR" run -q -o "$D" "$job" --kernel "$KERNEL" --set disk.backing=tmpfs \
		--set params.beat=200ms >/dev/null 2>"$WORK/t3.err" &
	kp=$!
	wait_for "hello_in $D"
	dd if=/dev/zero of="$M/filler" bs=4k 2>/dev/null
	wait $kp
	is "$?" 17 "results dir fills up mid-run: exit 17"
	jqr "$D/result.json" .status | grep -qx store-failed &&
		jqr "$D/result.json" .reason | grep -q "^cannot store the records: cannot append to '$D/samples.jsonl': No space left on device$"
	ok $? "  store-failed: $(jqr "$D/result.json" .reason 2>/dev/null | cut -c1-110)"
	no_qemu_left "$D" && clean "$D" && [ "$(ls /dev/shm | grep -c '^kpair-')" = "$shm_before" ]
	ok $? "  QEMU reaped, no image in the run dir or /dev/shm"
	umount "$M"
else
	for i in $(seq 8); do echo "ok $((T_NUM + i)) # SKIP cannot mount a tmpfs (not root?)"; done
	T_NUM=$((T_NUM + 8))
fi
is "$(ls /dev/shm | grep -c '^kpair-')" "$shm_before" "no kpair file left in /dev/shm"
done_testing
