#!/usr/bin/env bash
# A/B engine with real guests: a large real effect is flagged with the right sign, an A/A
# calibration flags nothing, and an A/B killed mid-way resumes with no sample lost or doubled.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 26
job="$ROOT/configs/jobs/smoke.job"
ab() { "$KPAIR" "$@" >"$WORK/ab.out" 2>"$WORK/ab.err"; }

# patched writes and reads eight times as much: both times must come out regressed
ab ab "$job" --stock "$KERNEL" --patched "$KERNEL" -n 6 --seed 7 --set params.size=4M \
	--patched-set params.size=32M -o "$WORK/big"
is $? 1 "ab with a regression exits 1"
c="$WORK/big/comparison.json"
is "$(jqr "$c" .metrics.write_s.verdict)" regressed "write_s: regressed"
is "$(jqr "$c" .metrics.read_s.verdict)" regressed "read_s: regressed"
jqt "$c" '.metrics.write_s.ratio_ci_low > 1.5 and .metrics.write_s.n_a == 6 and .metrics.write_s.n_b == 6'
ok $? "write_s ratio CI well above 1, 6 runs a side"
jqt "$c" '[.order[].side] | (map(select(. == "stock")) | length) == 6 and length == 12'
ok $? "order recorded: 12 runs, 6 a side"
jqt "$c" '.metrics.write_s | has("n_a") and has("median_b") and has("ratio_ci_high") and has("p_mannwhitney") and has("p_welch") and has("p_adjusted")'
ok $? "comparison.json carries the documented field names"
grep -q "^write_s (s) .*regressed" "$WORK/ab.out"
ok $? "terminal table shows the verdict"
# 8 times the data: the kernel's own counters say so, in a family of their own
jqt "$c" '[.counters.changed[].counter] | index("vmstat.pgpgout") != null and index("vmstat.nr_written") != null' &&
	grep -q "what else changed (.* kernel counters" "$WORK/ab.out"
ok $? "what else changed: $(jq -c '[.counters.changed[:4][] | "\(.counter) \(if .change_pct then (.change_pct | floor | tostring) + "%" else "from 0" end)"]' "$c") of $(jqr "$c" .counters.tested) counters"
[ -f "$WORK/big/report.html" ] && [ "$(grep -c '<h2 class="metric">' "$WORK/big/report.html")" = 2 ] &&
	[ "$(grep -c '<svg' "$WORK/big/report.html")" = 4 ]
ok $? "report.html: two metrics, two inline SVG plots each"
# the page renders in headless Chromium, plots and all
chromium_dom --dump-dom "file://$WORK/big/report.html" >"$WORK/dom.html"
[ "$(grep -o '<svg' "$WORK/dom.html" | wc -l)" = 4 ] && grep -q 'regressed' "$WORK/dom.html"
ok $? "report.html renders in headless Chromium with 4 plots and the verdicts"
# it opens with the summary: the finding in words, each verdict, failed runs, mode, the command
grep -q '<p class="headline"><b>patched is [0-9.]* % slower on write_s (95 % CI [0-9.-]* %) and [0-9.]* % slower on read_s' "$WORK/dom.html" &&
	grep -q '<li>read_s: regressed: patched is [0-9.]* % slower on read_s' "$WORK/dom.html" &&
	grep -q '<li>failed runs: none</li>' "$WORK/dom.html" &&
	grep -q '<li>mode: wallclock, pin none, disk.backing file: real time' "$WORK/dom.html" &&
	grep -q "<li>rerun: <code>harness/kpair ab configs/jobs/smoke.job --stock $KERNEL --patched $KERNEL --set params.size=4M --patched-set params.size=32M -n 6 --seed 7</code></li>" "$WORK/dom.html"
ok $? "the rendered page opens with the summary in words and the command to rerun it"
chromium_dom --window-size=1200,1600 --screenshot="$WORK/report.png" "file://$WORK/big/report.html" >/dev/null
[ "$(stat -c %s "$WORK/report.png" 2>/dev/null || echo 0)" -gt 20000 ]
ok $? "and a screenshot of it is not blank"

# A/A: the same kernel and settings on both sides must not be called a change
ab calibrate "$job" --kernel "$KERNEL" -n 4 --set params.size=8M -o "$WORK/aa"
is $? 0 "calibrate exits 0"
jqt "$WORK/aa/comparison.json" '[.metrics[] | select(.better != "none") | .verdict] | all(. == "no-change" or . == "inconclusive")'
ok $? "A/A: no improved or regressed verdict"
grep -q "runs for 5%" "$WORK/ab.out"
ok $? "calibrate prints the CV and the runs needed"
# one warm-up boot before the first measured run, kept on disk and never compared
w=$(ls -d "$WORK"/aa/runs/warmup-* 2>/dev/null)
is "$(echo "$w" | wc -w)/$(jqr "$w/result.json" .status 2>/dev/null)/$(jqr "$WORK/aa/ab.json" .warmup)" "1/ok/1" \
	"calibrate boots one warm-up run first ($(basename "$w"))"
jqt "$WORK/aa/comparison.json" '.metrics.write_s.n_a == 4 and .metrics.write_s.n_b == 4 and
	(.order | length) == 8 and all(.order[]; .run_dir != "'"$(jqr "$w/result.json" .run_id)"'")'
ok $? "the warm-up is not compared: 4 runs a side, 8 in the order"

# kill the harness in the middle of an A/B, then resume it
"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" -n 3 --seed 7 --set params.size=8M \
	-o "$WORK/res" >"$WORK/res.out" 2>&1 &
pid=$!
for i in $(seq 1 600); do
	ls "$WORK"/res/runs/002-*/result.json >/dev/null 2>&1 && break
	sleep 0.1
done
sleep 1
kill -9 $pid || sed "s/^/#   /" "$WORK/res.out"
wait $pid 2>/dev/null
sleep 1
! pgrep -f "qemu-system.*$WORK/res/runs" >/dev/null
ok $? "no QEMU outlives the SIGKILLed harness"
pkill -9 -f "qemu-system.*$WORK/res/runs" 2>/dev/null
n_before=$(ls "$WORK"/res/runs/[0-9][0-9][0-9]-*/result.json | wc -l)
[ "$n_before" -ge 3 ] && [ "$n_before" -lt 6 ]
ok $? "killed after $n_before of 6 runs"
"$KPAIR" resume "$WORK/res" >"$WORK/resume.out" 2>&1
rc=$?
# 0 or 1: finished (1: it calls a change; in real time the runs after the kill can differ
# from those before it, the host's state having moved, and 3 runs a side see it)
[ $rc -le 1 ] && grep -q "^ab: .* 6 runs$" "$WORK/resume.out"
ok $? "resume finishes the A/B (exit $rc)"
c="$WORK/res/comparison.json"
jqt "$c" '.metrics.write_s.n_a == 3 and .metrics.write_s.n_b == 3'
ok $? "three runs a side after resume: none lost, none doubled"
# the first six sides of the seed-7 plan are those of the big A/B above
is "$(jq -r '[.order[] | select(.status == "ok") | .side] | join(",")' "$c")" \
	"$(jq -r '[.order[:6][] | .side] | join(",")' "$WORK/big/comparison.json")" \
	"run order continues as planned"
total=$(cat "$WORK"/res/runs/[0-9][0-9][0-9]-stock/samples.jsonl "$WORK"/res/runs/[0-9][0-9][0-9]-patched/samples.jsonl | grep -c '"type":"sample"')
is "$total" 24 "samples on disk: 6 runs x 4, no duplicates"

# -j 2: two guests at once; the same plan, every run recorded once
ab ab "$job" --stock "$KERNEL" --patched "$KERNEL" -n 2 -j 2 --seed 7 --set params.size=4M \
	--warmup 0 -o "$WORK/j2"
is $? 0 "ab -j 2 completes"
! ls -d "$WORK"/j2/runs/warmup-* >/dev/null 2>&1
ok $? "--warmup 0: no warm-up boot"
is "$(jq -r '[.order[] | "\(.index)-\(.side)-\(.status)"] | join(",")' "$WORK/j2/comparison.json")" \
	"$(jq -r '[.order[:4][] | "\(.index)-\(.side)-ok"] | join(",")' "$WORK/big/comparison.json")" \
	"-j 2 runs the planned order, each run once"
done_testing
