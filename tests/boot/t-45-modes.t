#!/usr/bin/env bash
# measurement modes (README: Measurement modes): icount, pinning, tmpfs backing and the host
# page cache dropped before the boot, each one really applied and recorded in result.json
. "$(dirname "$0")/lib.sh"
need_kernel
plan 17
job="$ROOT/configs/jobs/smoke.job"
last=$(( $(nproc) - 1 ))
# a file in the host's page cache, to see job.host_cache=drop drop it
head -c 8M /dev/urandom >"$WORK/cached"
cat "$WORK/cached" >/dev/null
resident() { fincore -n -b -o RES "$WORK/cached" | tr -d ' '; }
before=$(resident)
for i in 1 2; do
	kpair_run "ic$i" "$job" --kernel "$KERNEL" --set params.size=4M --set job.mode=icount \
		--set job.pin=auto --set disk.backing=tmpfs --set job.host_cache=drop
	is "$RC/$(jqr "$DIR/result.json" .status)" "0/ok" "icount + pin + tmpfs + drop, run $i: ok"
done
after=$(resident)
r="$WORK/ic1/result.json"
case "$(jqr "$r" .qemu.cmdline)" in *"-icount shift=0,sleep=off"*) rc=0 ;; *) rc=1 ;; esac
ok $rc "QEMU ran with -icount shift=0,sleep=off"
# under icount the guest's TSC counts virtual time, not the host's TSC: no tsc_early_khz
jqt "$r" '.qemu.cmdline | contains("tsc_early_khz") | not'
ok $? "icount: the guest calibrates its own TSC (no tsc_early_khz)"
jqt "$r" ".job.mode == \"icount\" and .job.pin == \"auto\" and .job.disk.backing == \"tmpfs\" and
	.host.pinned_cpu == $last and .host.page_cache.action == \"dropped\""
ok $? "result.json records the mode, the CPU QEMU was bound to ($last) and the dropped cache"
[ "$before" -gt 0 ] && [ "$after" -eq 0 ]
ok $? "job.host_cache=drop emptied the host's page cache of a file read before ($before -> $after bytes)"
# guest time counts instructions: the same boot takes (nearly) the same guest time
g1=$(jqr "$WORK/ic1/result.json" .times.guest_boot_s)
g2=$(jqr "$WORK/ic2/result.json" .times.guest_boot_s)
d=$(echo "d = ($g1 - $g2) / $g2 * 100; if (d < 0) d = -d; d" | bc -l)
[ "$(echo "$d < 2" | bc)" = 1 ]
ok $? "icount: two boots' guest uptime at hello within 2 % ($g1 s, $g2 s)"
kpair_run wc "$job" --kernel "$KERNEL" --set params.size=4M
jqt "$DIR/result.json" '.job.mode == "wallclock" and .host.pinned_cpu == null and
	.host.page_cache.action == "kept" and (.qemu.cmdline | contains("-icount") | not)'
ok $? "the default: wallclock, not pinned, cache kept"
# job.pin_io: QEMU on CPU 0, its vCPU thread moved to CPU 1 once it exists
kpair_run split "$job" --kernel "$KERNEL" --set params.size=4M --set job.mode=icount-sleep \
	--set job.pin=1 --set job.pin_io=0
jqt "$DIR/result.json" '.status == "ok" and .host.pinned_cpu == 1 and .host.pinned_io_cpu == 0 and
	.host.vcpu_threads_pinned == 1 and (.qemu.cmdline | contains("debug-threads=on")) and
	(.qemu.cmdline | contains("-icount shift=0,sleep=on"))'
ok $? "job.pin_io: the vCPU thread on CPU 1, the rest on CPU 0; icount-sleep is sleep=on"
kpair_run badio "$job" --kernel "$KERNEL" --set job.pin_io=0
is "$RC/$(grep -c "job.pin_io: '0' needs job.pin" "$WORK/badio.err")" "2/1" "job.pin_io without job.pin: exit 2 naming it"
kpair_run badpin "$job" --kernel "$KERNEL" --set job.pin=99
is "$RC/$(grep -c "job.pin: '99': none, auto or a CPU number below" "$WORK/badpin.err")" "2/1" \
	"job.pin past the host's CPUs: exit 2 naming it"
kpair_run badcache "$job" --kernel "$KERNEL" --set job.host_cache=sometimes
is "$RC/$(grep -c 'job.host_cache' "$WORK/badcache.err")" "2/1" "a bad job.host_cache: exit 2 naming it"
"$KPAIR" help job | grep -q 'host_cache'
ok $? "kpair help job lists job.host_cache"
# disk.backing=ram: the image copied into a guest RAM disk (brd), so under icount the
# seed-000 recipe does no host I/O and no idle wait: two boots give the same pread_s
pjob="$ROOT/configs/jobs/seed000-pread-ext3-1k.job"
for i in 1 2; do
	kpair_run "ram$i" "$pjob" --kernel "$KERNEL" --set params.scale=5 --set job.mode=icount \
		--set disk.backing=ram
done
jqt "$WORK/ram1/result.json" '.status == "ok" and .job.disk.backing == "ram" and
	(.qemu.cmdline | test("id=disk0,[^ ]*readonly=on"))'
ok $? "disk.backing=ram: ok, recorded, and QEMU's copy of the image is read-only"
grep -q 'kpair-agent: [0-9]* bytes in [0-9]* extents copied into /dev/ram0' "$WORK/ram1/console.log"
ok $? "the agent copied the image's extents into /dev/ram0: $(grep -o '[0-9]* bytes in [0-9]* extents' "$WORK/ram1/console.log")"
p1=$(jq -r 'select(.type == "sample" and .metric == "pread_s") | .value' "$WORK/ram1/samples.jsonl")
p2=$(jq -r 'select(.type == "sample" and .metric == "pread_s") | .value' "$WORK/ram2/samples.jsonl")
d=$(echo "d = ($p1 - $p2) / $p2 * 100; if (d < 0) d = -d; d" | bc -l)
[ "$(echo "$d < 0.5" | bc)" = 1 ]
ok $? "icount + ram: two boots' pread_s within 0.5 % ($p1 s, $p2 s)"
# the RAM disk comes out of the guest's memory: an image with more data than half of it is refused
kpair_run ramfull "$job" --kernel "$KERNEL" --set disk.fs=xfs --set job.memory=64M \
	--set disk.backing=ram
is "$RC/$(jqr "$DIR/result.json" .reason | grep -c 'disk.backing=ram: the image holds [0-9]* MiB of data, more than half of job.memory (64 MiB)')" \
	"3/1" "disk.backing=ram with too little guest memory: setup-failed, naming both sizes"
done_testing
