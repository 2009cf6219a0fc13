#!/usr/bin/env bash
# boot + channel + samples + report: the smoke workload on ext4 and xfs in real guests
. "$(dirname "$0")/lib.sh"
need_kernel
plan 36
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
	# the kernel's own boot ends where the agent starts as init; modules come after it
	jqt "$r" '.times.init_s > 0.1 and .times.init_s + .times.modules_s < .times.guest_boot_s'
	ok $? "$fs: init at uptime $(jqr "$r" .times.init_s) s, then modules, then hello"
	# the guest's TSC counts from its power-on: the kernel's clock starts later, and QEMU
	# starts before the guest's CPU does
	jqt "$r" '.times.guest_poweron_s > .times.guest_boot_s and .times.guest_poweron_s < .times.boot_s'
	ok $? "$fs: uptime $(jqr "$r" .times.guest_boot_s) < since power-on $(jqr "$r" .times.guest_poweron_s) < QEMU start -> hello $(jqr "$r" .times.boot_s) s"
	is "$(jq -r .type "$DIR/samples.jsonl" | tr '\n' ' ')" "hello sample sample sample sample counters done " \
		"$fs: samples.jsonl has hello, 4 samples, the kernel counters, done"
	[ ! -e "$DIR/scratch.img" ] && ! ls "$DIR"/initramfs.cpio* >/dev/null 2>&1 && no_qemu_left "$DIR"
	ok $? "$fs: disk and initramfs removed, QEMU reaped"
	jqt "$r" '(.accel == "tcg" or .accel == "kvm") and (.accel_reason | length > 0)'
	ok $? "$fs: accelerator and why recorded ($(jqr "$r" .accel))"
done
# TCG in real time: the guest reads the host's TSC, whose rate kpair measured and passed as
# tsc_early_khz, so the kernel skips its PIT calibration (which fails now and then under TCG
# and then costs ~0.4 s); the kernel's own refinement a second later agrees within 0.1 %
# (192 MiB: the guest must still be up when the refinement runs, ~1 s after the TSC's setup)
kpair_run tsc "$ROOT/configs/jobs/smoke.job" --kernel "$KERNEL" --set params.size=192M \
	--set job.cmdline=printk.time=1
khz=$(jqr "$DIR/result.json" .qemu.cmdline | grep -o 'tsc_early_khz=[0-9]*' | cut -d= -f2)
is "$RC/$([ -n "$khz" ] && echo has-khz)" "0/has-khz" "a TCG run passes tsc_early_khz ($khz)"
# "MHz TSC" beside the PIT's "MHz processor" when the PIT calibration worked, else the latter
grep -Eq "tsc: Detected $(echo "scale=3; $khz / 1000" | bc) MHz (TSC|processor)" "$DIR/console.log"
ok $? "  the kernel took it: tsc: Detected $(echo "scale=3; $khz / 1000" | bc) MHz"
ref=$(sed -n 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' "$DIR/console.log")
[ -n "$ref" ] && [ "$(echo "d = $ref * 1000 - $khz; if (d < 0) d = -d; d < $khz / 1000" | bc -l)" = 1 ]
ok $? "  and its refinement against the HPET agrees within 0.1 % ($ref MHz)"
# a job's own tsc_early_khz is kept, not joined by kpair's
kpair_run tsc-own "$ROOT/configs/jobs/smoke.job" --kernel "$KERNEL" --set params.size=4M \
	--set "job.cmdline=quiet tsc_early_khz=$khz"
is "$RC/$(jqr "$DIR/result.json" .qemu.cmdline | grep -o 'tsc_early_khz=' | wc -l)" "0/1" \
	"a job.cmdline with its own tsc_early_khz: that one alone"
done_testing
