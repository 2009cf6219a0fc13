#!/usr/bin/env bash
# targets: the smoke workload on the i386, arm64-16k and arm64 targets in real guests
# (qemu-system-i386 with Debian's 686 kernel; qemu-system-aarch64 -M virt -cpu max with
# Debian's 6.12 arm64 kernels, 16 KiB and 4 KiB pages), and the target checks that refuse
# a kernel of the wrong architecture or page size before anything boots. Each target's
# kernel is its file's default (`kernel =`), fetched here when it is not in the store.
. "$(dirname "$0")/lib.sh"
plan 50
mib8=8388608

# target_key TARGET KEY: a key of configs/targets/TARGET.target
target_key() { sed -n "s/^$2 *= *//p" "$ROOT/configs/targets/$1.target"; }

# the kernel store entry for TARGET's default kernel, fetched when missing
need_target_kernel() {
	local k
	k=$(target_key "$1" kernel)
	[ -f "$ROOT/images/kernels/$k/kernel.json" ] ||
		"$KPAIR" kernel fetch "debian:$k" >"$WORK/fetch-$1.out" 2>&1 ||
		{ echo "Bail out! cannot fetch $k:"; sed 's/^/#   /' "$WORK/fetch-$1.out"; exit 1; }
	echo "$k"
}

# smoke TARGET MACHINE PAGE QEMU CONSOLE AGENT: one small smoke run and its checks (13)
smoke() {
	local t=$1 machine=$2 page=$3 qemu=$4 console=$5 agent=$6 k r
	k=$(need_target_kernel "$t")
	kpair_run "smoke-$t" "$ROOT/configs/jobs/smoke.job" --kernel "$k" \
		--set job.target="$t" --set params.size=8M
	r="$DIR/result.json"
	is "$RC" 0 "$t: exit status 0 (${SECS} s)"
	is "$(jqr "$r" .status)" ok "$t: status ok"
	is "$(jqr "$r" .guest.page_size)" "$page" "$t: the guest sees $page-byte pages"
	is "$(jqr "$r" .guest.machine)" "$machine" "$t: guest uname -m"
	is "$(jqr "$r" .guest.release)" "$(jqr "$ROOT/images/kernels/$k/kernel.json" .release)" \
		"$t: guest release matches the package"
	is "$(jqr "$r" '.samples.read_bytes.values[0]')" $mib8 "$t: wrote and read back 8 MiB"
	is "$(jqr "$r" '[.target.name, .target.qemu, .target.agent] | join(" ")')" \
		"$t $qemu guest/kpair-agent-$agent" "$t: target, QEMU and agent recorded"
	jqr "$r" .qemu.cmdline | grep -q "^$qemu .* -append 'console=$console "
	ok $? "$t: $qemu with console=$console"
	is "$(file -b "$ROOT/guest/kpair-agent-$agent" | cut -d, -f1-2)" \
		"$(case $agent in i686) echo 'ELF 32-bit LSB executable, Intel 80386' ;;
				  aarch64) echo 'ELF 64-bit LSB executable, ARM aarch64' ;; esac)" \
		"$t: the agent is built for $agent"
	file -b "$ROOT/guest/kpair-agent-$agent" | grep -q 'statically linked'
	ok $? "$t: the agent is static"
	jqt "$r" '.times.boot_s > 0 and .times.guest_boot_s > 0 and .times.boot_s > .times.guest_poweron_s and
		  .times.guest_poweron_s > .times.guest_boot_s'
	ok $? "$t: boot times recorded, the guest's counter from its power-on"
	[ ! -e "$DIR/scratch.img" ] && no_qemu_left "$DIR"
	ok $? "$t: disk removed, QEMU reaped"
	jqt "$r" '.console.warnings == 0'
	ok $? "$t: no oops or warning on the console"
	echo "# $t: boot $(jqr "$r" .times.boot_s) s (QEMU start -> hello)," \
		"guest since power-on $(jqr "$r" .times.guest_poweron_s) s, uptime $(jqr "$r" .times.guest_boot_s) s at hello"
}

smoke i386 i686 4096 qemu-system-i386 ttyS0 i686
smoke arm64-16k aarch64 16384 qemu-system-aarch64 ttyAMA0 aarch64
r="$WORK/smoke-arm64-16k/result.json"
jqt "$r" '.initramfs.modules | map(test("\\.ko\\.xz$")) | all and length > 0'
ok $? "arm64-16k: the .ko.xz modules were packed as they are and loaded"
smoke arm64 aarch64 4096 qemu-system-aarch64 ttyAMA0 aarch64
r="$WORK/smoke-arm64/result.json"
jqt "$r" '.initramfs.modules | map(test("\\.ko\\.xz$")) | all and length > 0'
ok $? "arm64: the .ko.xz modules were packed as they are and loaded"

# no --kernel: the target's default kernel boots
kpair_run default-kernel "$ROOT/configs/jobs/smoke.job" --set job.target=arm64-16k \
	--set params.size=1M
is "$RC $(jqr "$DIR/result.json" .kernel.id)" "0 $(target_key arm64-16k kernel)" \
	"run without --kernel boots the target's default kernel"

# the harness refuses a kernel the target cannot boot, before anything is made (exit 2)
k16=$(target_key arm64-16k kernel)
k4=$(target_key arm64 kernel)
kpair_run wrong-page "$ROOT/configs/jobs/smoke.job" --kernel "$k4" --set job.target=arm64-16k
is "$RC" 2 "arm64-16k with a 4 KiB kernel: exit status 2"
grep -q "has 4096-byte pages, target 'arm64-16k' wants 16384" "$WORK/wrong-page.err"
ok $? "arm64-16k with a 4 KiB kernel: says why"
[ ! -e "$DIR" ]
ok $? "arm64-16k with a 4 KiB kernel: no run directory"
kpair_run wrong-arch "$ROOT/configs/jobs/smoke.job" --kernel "$k16" --set job.target=i386
is "$RC" 2 "i386 with an arm64 kernel: exit status 2"
grep -q "kernel '$k16' is arm64, target 'i386' wants i386" "$WORK/wrong-arch.err"
ok $? "i386 with an arm64 kernel: says why"
[ ! -e "$DIR" ]
ok $? "i386 with an arm64 kernel: no run directory"
printf '[target]\nname = bare\narch = amd64\nqemu = qemu-system-x86_64\nagent = %s\n' \
	guest/kpair-agent-x86_64 >"$WORK/bare.target"
kpair_run no-default "$ROOT/configs/jobs/smoke.job" --set job.target="$WORK/bare.target"
is "$RC" 2 "a target with no default kernel and no --kernel: exit status 2"
grep -q "no --kernel, and target 'bare' names no default kernel" "$WORK/no-default.err"
ok $? "a target with no default kernel and no --kernel: says why"
done_testing
