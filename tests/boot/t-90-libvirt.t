#!/usr/bin/env bash
# libvirt backend: the local libvirtd (scripts/libvirtd-up) runs each run as a transient domain;
# an A/B on it gives the same verdicts as the same A/B on the QEMU backend; failures map to the
# same statuses (no hello: boot-timeout; no init: kernel-panic through on_reboot=destroy) and no
# domain is left behind. Prints the per-run overhead of libvirt over QEMU (wall, QEMU start to exit).
. "$(dirname "$0")/lib.sh"
need_kernel
plan 10
"$ROOT/scripts/libvirtd-up" >"$WORK/up.out" 2>&1 ||
	{ echo "Bail out! libvirtd cannot be started: $(cat "$WORK/up.out")"; exit 1; }
"$ROOT/scripts/libvirtd-up"
ok $? "scripts/libvirtd-up is idempotent"
job="$ROOT/configs/jobs/smoke.job"
abx() {	# abx NAME BACKEND
	"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" -n 5 --seed 5 --set params.size=4M \
		--patched-set params.size=16M --backend "$2" -o "$WORK/$1" >"$WORK/$1.out" 2>"$WORK/$1.err"
}
abx lv libvirt
is $? 1 "A/B on libvirt: the 4x larger side regressed (exit 1)"
abx qm qemu
is $? 1 "the same A/B on QEMU: exit 1"
verdicts() { jq -r '[.metrics | to_entries[] | select(.value.better != "none") | "\(.key)=\(.value.verdict)"] | sort | join(" ")' "$WORK/$1/comparison.json"; }
is "$(verdicts lv)" "$(verdicts qm)" "the same verdicts on both backends: $(verdicts lv)"
r=$(ls "$WORK"/lv/runs/*/result.json | head -1)
case "$(jqr "$r" .qemu.cmdline 2>/dev/null || jqr "$r" .qemu_cmdline)" in
*virDomainCreateXML*"<acpi/>"*"<on_reboot>destroy</on_reboot>"*org.kpair.results*) rc=0 ;;
*) rc=1 ;;
esac
ok $rc "result.json records the transient domain (ACPI, on_reboot destroy, the results channel)"
jqt "$WORK/lv/comparison.json" '.failed_runs == 0 and .metrics.write_s.n_a == 5 and .metrics.write_s.n_b == 5'
ok $? "libvirt: 5 runs a side, none failed"
med() { jq -s 'map(.times.wall_s) | sort | .[length / 2 | floor]' "$WORK"/$1/runs/*/result.json; }
lw=$(med lv)
qw=$(med qm)
ratio=$(echo "scale=3; $lw / $qw" | bc)
echo "# per-run wall (QEMU start to exit), median: libvirt $lw s, qemu $qw s, ratio $ratio"
# libvirt adds its domain setup (cgroups, QMP) and teardown to each run: ~2.2x here, not 4x
[ "$(echo "$ratio > 0.5 && $ratio < 4.0" | bc)" = 1 ]
ok $? "libvirt per-run wall within 4x of QEMU's (ratio $ratio)"

kpair_run timeout "$job" --kernel "$KERNEL" --set params.size=4M --set job.boot_timeout=1s --backend libvirt
is "$RC/$(jqr "$DIR/result.json" .status)" "10/boot-timeout" "no hello within boot_timeout: boot-timeout, exit 10"
kpair_run panic "$job" --kernel "$KERNEL" --set params.size=4M --set job.cmdline=rdinit=/no-such-init --backend libvirt
is "$RC/$(jqr "$DIR/result.json" .status)" "12/kernel-panic" "no init: kernel-panic, exit 12 (domain destroyed on reboot)"
! virsh -c qemu:///system list --all --name | grep -q '^kpair-'
ok $? "no kpair domain is left in libvirt"
done_testing
