#!/usr/bin/env bash
# boot + channel + samples + report: the smoke workload on ext4 and xfs in real guests
. "$(dirname "$0")/lib.sh"
need_kernel
plan 28
mib16=16777216
for fs in ext4 xfs; do
	kpair_run "smoke-$fs" "$ROOT/configs/jobs/smoke.job" --kernel "$KERNEL" \
		--set disk.fs=$fs --set params.size=16M
	r="$DIR/result.json"
	is "$RC" 0 "$fs: exit status 0 (${SECS} s)"
	is "$(jqr "$r" .status)" ok "$fs: status ok"
	is "$(jqr "$r" .records)" 4 "$fs: four samples"
	is "$(jqr "$r" '.samples.write_bytes.values[0]')" $mib16 "$fs: wrote 16 MiB"
	is "$(jqr "$r" '.samples.read_bytes.values[0]')" $mib16 "$fs: read 16 MiB back"
	jqt "$r" '.samples.write_s.values[0] > 0 and .samples.read_s.values[0] > 0'
	ok $? "$fs: positive times"
	is "$(jqr "$r" .guest.page_size)" 4096 "$fs: guest page size"
	is "$(jqr "$r" .guest.release)" "$(jqr "$ROOT/images/kernels/$KERNEL/kernel.json" .release)" \
		"$fs: guest release matches the package"
	jqr "$r" .disk.mkfs | grep -q "^mkfs.$fs .*scratch.img$"
	ok $? "$fs: exact mkfs command recorded"
	jqt "$r" '.times.boot_s > 0 and .times.wall_s >= .times.boot_s and .times.workload_s > 0'
	ok $? "$fs: boot, wall and workload times"
	# the Debian kernel's drivers are modules: loading them is part of the guest's boot
	jqt "$r" '.times.modules_s > 0 and .times.modules_s < .times.guest_boot_s'
	ok $? "$fs: module loading timed by the guest ($(jqr "$r" .times.modules_s) s)"
	is "$(wc -l <"$DIR/samples.jsonl")" 6 "$fs: samples.jsonl has hello, 4 samples, done"
	[ ! -e "$DIR/scratch.img" ] && ! ls "$DIR"/initramfs.cpio* >/dev/null 2>&1 && no_qemu_left "$DIR"
	ok $? "$fs: disk and initramfs removed, QEMU reaped"
	jqt "$r" '(.accel == "tcg" or .accel == "kvm") and (.accel_reason | length > 0)'
	ok $? "$fs: accelerator and why recorded ($(jqr "$r" .accel))"
done
done_testing
