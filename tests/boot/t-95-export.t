#!/usr/bin/env bash
# export: `kpair export lava` makes a LAVA job and a QEMU device dictionary that Debian's
# lava-dispatcher runs without a server (lava-run); the measurements LAVA records from the console
# match kpair's own run of the same job (metric names, units, sample counts, byte counts; times
# positive and of the same order), and the records the agent echoes there are kpair's records.
# `kpair export kcidb` of that run and of an A/B is valid against the real KCIDB v5.0 schema and
# carries every raw sample and verdict. Prints lava-run's wall time and the measurements side by side.
. "$(dirname "$0")/lib.sh"
need_kernel
command -v lava-run >/dev/null ||
	{ echo "Bail out! lava-run is missing (scripts/deps installs lava-dispatcher)"; exit 1; }
plan 34
job="$ROOT/configs/jobs/smoke.job"
# LAVA copies every image whole (2 GiB took 16 s here): a small scratch disk, the same for both
sets=(--set params.size=16M --set disk.size=512M)
valid() { kcidb_valid "$@"; }

kpair_run kp "$job" --kernel "$KERNEL" "${sets[@]}"
KP=$DIR
is "$RC/$(jqr "$KP/result.json" .status)" "0/ok" "kpair run of the job: ok (${SECS} s)"

L="$WORK/lava"
"$KPAIR" export lava "$job" --kernel "$KERNEL" "${sets[@]}" -o "$L" >"$WORK/export.out" 2>"$WORK/export.err"
ok $? "export lava"
[ -s "$L/job.yaml" ] && [ -s "$L/device.yaml" ] && [ -s "$L/initramfs.cpio" ] && [ -s "$L/vmlinux" ] &&
	[ "$(stat -c %s "$L/scratch.img")" = $((512 << 20)) ]
ok $? "job.yaml, device.yaml, the PVH vmlinux, the initramfs and a 512 MiB scratch image"
# the initramfs is the one kpair's run booted: its agent, its modules in load order, its job
cpio_cat() { cpio -i --quiet --to-stdout "$1" <"$L/initramfs.cpio"; }
is "$(cpio_cat kpair/modules | sed 's|.*/||' | tr '\n' ' ')" \
	"$(jq -r '.initramfs.modules[] | split("/") | last' "$KP/result.json" | tr '\n' ' ')" \
	"initramfs: the modules of kpair's run, in the same order"
cpio_cat init | cmp -s - "$ROOT/guest/kpair-agent-x86_64"
ok $? "initramfs: /init is the static guest agent"
cpio_cat kpair/job | grep -qx 'param.size=16777216' && cpio_cat kpair/job | grep -qx 'workload=smoke'
ok $? "initramfs: /kpair/job has the workload and its parameters"
dumpe2fs -h "$L/scratch.img" 2>/dev/null | grep -q '^Block size: *4096$'
ok $? "scratch image: made by the host's mkfs.ext4, 4 KiB blocks"
grep -q "sha256sum: '$(sha256sum <"$L/vmlinux" | cut -c-64)'" "$L/job.yaml" &&
	grep -q "url: 'file://$L/initramfs.cpio'" "$L/job.yaml" && grep -q 'kpair.echo=2' "$L/job.yaml"
ok $? "job.yaml: file:// images with sha256, kpair.echo=2 on the kernel command line"

t0=$(date +%s.%N)
lava-run --job-id 95 --output-dir "$WORK/lava-out" --device "$L/device.yaml" "$L/job.yaml" \
	>"$WORK/lava.log" 2>&1
LRC=$?
LSECS=$(echo "$(date +%s.%N) - $t0" | bc)
is "$LRC" 0 "lava-run passes the job (${LSECS} s wall)"
[ $LRC -eq 0 ] || grep -E '"lvl": "(error|exception)"' "$WORK/lava.log" | cut -c-300 | sed 's/^/#   /'
is "$(/usr/bin/python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["result"])' \
	"$WORK/lava-out/result.yaml" 2>/dev/null)" pass "result.yaml: pass"
# LAVA's log: its test cases (case, measurement, units) and the console lines the agent echoed
/usr/bin/python3 - "$WORK/lava.log" "$WORK/lava.tsv" "$WORK/echo.jsonl" "$WORK/lava-ctr.tsv" <<'EOF'
import sys, yaml
tsv, echo, ctr = open(sys.argv[2], "w"), open(sys.argv[3], "w"), open(sys.argv[4], "w")
for line in open(sys.argv[1]):
    d = yaml.safe_load(line)
    m = d.get("msg")
    if d.get("lvl") == "results" and m.get("definition") == "kpair-smoke":
        print(m["case"], m["measurement"], m.get("units", ""), m["result"], sep="\t", file=tsv)
    elif d.get("lvl") == "results" and m.get("definition") == "kpair-smoke-counters":
        print(m["extra"]["test_case_id"], int(m["measurement"]), m["result"], sep="\t", file=ctr)
    # the line after the monitor's end match is read by finalize, logged as feedback
    elif d.get("lvl") in ("target", "feedback") and m.startswith("kpair-record: "):
        print(m[len("kpair-record: "):].replace('\\"', '"'), file=echo)   # LAVA logs " as \"
EOF
jq -r 'select(.type == "sample") | [.metric, .value, .unit] | @tsv' "$KP/samples.jsonl" >"$WORK/kpair.tsv"
echo "# metric          LAVA (lava-run)  kpair run"
paste "$WORK/lava.tsv" "$WORK/kpair.tsv" | awk -F'\t' '{ printf "# %-15s %-16s %s %s\n", $1, $2, $6, $3 }'
is "$(cut -f1,3 "$WORK/lava.tsv" | tr '\n' ' ')" "$(cut -f1,3 "$WORK/kpair.tsv" | tr '\n' ' ')" \
	"LAVA's test cases: kpair's metrics and units, in order ($(wc -l <"$WORK/lava.tsv") samples)"
is "$(cut -f4 "$WORK/lava.tsv" | sort -u)" pass "every LAVA test case passed"
awk -F'\t' '$2 + 0 <= 0 { bad = 1 } END { exit bad || NR != 4 }' "$WORK/lava.tsv"
ok $? "LAVA: four measurements, all positive"
is "$(awk -F'\t' '$1 ~ /_bytes$/ { printf "%s=%d ", $1, $2 }' "$WORK/lava.tsv")" \
	"$(awk -F'\t' '$1 ~ /_bytes$/ { printf "%s=%d ", $1, $2 }' "$WORK/kpair.tsv")" \
	"byte counts equal to kpair's run (16 MiB written and read)"
# times of the same order: another boot, but the same job on the same host
paste "$WORK/lava.tsv" "$WORK/kpair.tsv" |
	awk -F'\t' '$1 ~ /_s$/ { r = $2 / $6; if (r < 0.1 || r > 10) bad = 1 } END { exit bad }'
ok $? "times within 10x of kpair's run"
# the echoed records are kpair's records: the keys and types samples.jsonl has, seq in order
shape() { jq -c '[.type, (to_entries | map(.key + ":" + (.value | type)))]' "$1" | sort; }
is "$(shape "$WORK/echo.jsonl" | grep -v '"hello"\|"done"')" "$(shape "$KP/samples.jsonl" | grep -v '"hello"\|"done"')" \
	"console records: the same fields and types as kpair's sample records"
is "$(jq -r .type "$WORK/echo.jsonl" | tr '\n' ' ')" "hello sample sample sample sample counters done " \
	"console records: hello, four samples, the kernel counters, done"
is "$(jq -r .seq "$WORK/echo.jsonl" | tr '\n' ' ')" "0 1 2 3 4 5 6 " "console records: seq 0..6"
# the kernel counters: a LAVA test case each, in a suite of their own, the counters record's deltas
jq -r 'select(.type == "counters") | .values | to_entries[] | [.key, .value, "pass"] | @tsv' \
	"$WORK/echo.jsonl" >"$WORK/rec-ctr.tsv"
[ -s "$WORK/lava-ctr.tsv" ] && cmp -s "$WORK/lava-ctr.tsv" "$WORK/rec-ctr.tsv"
ok $? "LAVA's kpair-smoke-counters: a passed test case per counter that moved, the counters record's deltas ($(wc -l <"$WORK/lava-ctr.tsv") counters)" ||
	diff "$WORK/lava-ctr.tsv" "$WORK/rec-ctr.tsv" | head -5 | sed 's/^/#   /'
awk -F'\t' '$1 == "stat.ctxt" && $2 > 0 { c = 1 } $1 == "block.writes" && $2 > 0 { w = 1 } END { exit !(c && w) }' \
	"$WORK/lava-ctr.tsv"
ok $? "LAVA's counters: context switches and the scratch disk's writes among them"
is "$(jq -r 'select(.type == "hello") | .release' "$WORK/echo.jsonl")" \
	"$(jqr "$ROOT/images/kernels/$KERNEL/kernel.json" .release)" "LAVA booted the kernel that was exported"

# KCIDB of the run
"$KPAIR" export kcidb "$KP" -o "$WORK/run.json" >/dev/null 2>"$WORK/kcidb-run.err"
ok $? "export kcidb of the run"
valid "$WORK/run.json"
ok $? "the run: valid KCIDB v5.0"
is "$(jq -c '[.tests[] | .path + "=" + .status]' "$WORK/run.json")" \
	'["kpair.smoke=PASS","kpair.smoke.write_s=DONE","kpair.smoke.write_bytes=DONE","kpair.smoke.read_s=DONE","kpair.smoke.read_bytes=DONE"]' \
	"the run: a PASS test and a DONE test per metric"
is "$(jq -c '[.tests[0].misc.samples[].value]' "$WORK/run.json")" \
	"$(jq -sc 'map(select(.type == "sample") | .value)' "$KP/samples.jsonl")" "the run: every raw sample in misc"

# KCIDB of an A/B (two runs a side, in parallel: noise does not matter here)
"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" -n 2 -j 2 --seed 9 \
	--set params.size=4M --set disk.size=256M -o "$WORK/ab" >"$WORK/ab.out" 2>&1
rc=$?
[ $rc -le 1 ] && [ -f "$WORK/ab/comparison.json" ]
ok $? "an A/B of 2 runs a side (exit $rc)"
"$KPAIR" export kcidb "$WORK/ab" -o "$WORK/ab.json" >/dev/null 2>"$WORK/kcidb-ab.err" && valid "$WORK/ab.json"
ok $? "the A/B: exported, valid KCIDB v5.0"
C="$WORK/ab/comparison.json"
is "$(jq '[.tests[] | select(.path == "kpair.smoke")] | length' "$WORK/ab.json")" "$(jq '.order | length' "$C")" \
	"the A/B: a run test for every run in the order"
# per metric: the ratio as number, the verdict as status, the whole comparison (raw samples too) in misc
want=$(jq -c '.metrics | to_entries | map({m: .key, r: .value.ratio, raw: .value.raw_b,
	s: (if .value.better == "none" then "DONE" else {"regressed": "FAIL", "improved": "PASS",
	"no-change": "PASS", "inconclusive": "DONE", "improved-small": "PASS",
	"regressed-small": "PASS"}[.value.verdict] end)})' "$C")
got=$(jq -c '[.tests[] | select(.path | startswith("kpair.smoke.ab.")) |
	{m: .misc.metric, r: .number.value, raw: .misc.comparison.raw_b, s: .status}]' "$WORK/ab.json")
is "$got" "$want" "the A/B: per metric the ratio, the verdict's status and every raw sample"
# a run that left no result.json (ab records it as setup-failed) is a MISS test from its order entry
cp -r "$WORK/ab" "$WORK/ab-miss"
rm "$WORK/ab-miss/runs/001-"*/result.json
jq '.order[1].status = "setup-failed" | .order[1].reason = "the run wrote no result.json"' "$C" \
	>"$WORK/ab-miss/comparison.json"
"$KPAIR" export kcidb "$WORK/ab-miss" -o "$WORK/ab-miss.json" >/dev/null 2>&1 && valid "$WORK/ab-miss.json" &&
	[ "$(jq -r --arg id "kpair:$(jqr "$C" '.order[1].run_id')" '.tests[] | select(.id == $id) | .status' \
		"$WORK/ab-miss.json")" = MISS ]
ok $? "the A/B: a run without result.json is a MISS test, still valid"
jq '.order[1].status = "ok"' "$C" >"$WORK/ab-miss/comparison.json"
"$KPAIR" export kcidb "$WORK/ab-miss" -o "$WORK/bad.json" >/dev/null 2>"$WORK/bad.err"
[ $? -eq 2 ] && grep -q "comparison.json': order.1.status: ok, but run 1 has no result.json" "$WORK/bad.err"
ok $? "the A/B: an ok run without result.json is an error naming the field"
jq '.order[2].side = "left"' "$C" >"$WORK/ab-miss/comparison.json"
"$KPAIR" export kcidb "$WORK/ab-miss" -o "$WORK/bad.json" >/dev/null 2>"$WORK/bad.err"
[ $? -eq 2 ] && grep -q "comparison.json': order.2.side: 'left', not stock or patched" "$WORK/bad.err"
ok $? "the A/B: a bad side is an error naming the field"
# a host-root workload: stress-ng runs the worker's own stress-ng, its / shared over virtio-9p
S="$WORK/lava-sng"
"$KPAIR" export lava "$ROOT/configs/jobs/stress-ng-pipe.job" --kernel "$KERNEL" --set params.ops=500 \
	--set disk.size=256M -o "$S" >/dev/null 2>"$WORK/sng.err"
rc=$?
[ $rc = 0 ] && grep -q -- "-fsdev local,id=hostroot,path=/,security_model=none,readonly=on" "$S/device.yaml" &&
	grep -q "mount_tag=hostroot" "$S/device.yaml"
ok $? "export lava of a stress-ng job: the host root's virtio-9p share in device.yaml (exit $rc)"
lava-run --job-id 96 --output-dir "$WORK/lava-sng-out" --device "$S/device.yaml" "$S/job.yaml" \
	>"$WORK/lava-sng.log" 2>&1
rc=$?
/usr/bin/python3 - "$WORK/lava-sng.log" >"$WORK/lava-sng.tsv" <<'EOF'
import sys, yaml
for line in open(sys.argv[1]):
    d = yaml.safe_load(line)
    m = d.get("msg")
    if d.get("lvl") == "results" and str(m.get("definition", "")).startswith("kpair-"):
        print(m["case"], m.get("measurement", ""), m["result"], sep="\t")
EOF
# LAVA's case names take no dots: pipe.bogo_ops is its case pipe_bogo_ops (test_case_id keeps it)
[ $rc = 0 ] && awk -F'\t' '$1 == "pipe_bogo_ops" && $2 + 0 == 500 && $3 == "pass" { f = 1 } END { exit !f }' "$WORK/lava-sng.tsv"
ok $? "lava-run runs it: pipe.bogo_ops (LAVA's pipe_bogo_ops) 500 from the worker's stress-ng (exit $rc)"
done_testing
