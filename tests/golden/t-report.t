#!/usr/bin/env bash
# golden: kpair compare and kpair report on sample sets that are constant on both sides, constant
# on one side, one run a side, all zeros, and a 10^5 x change. The table stays within 100
# columns; report.html is always written, renders in headless Chromium and has every plot or a
# one-line note saying why it is missing; the KCIDB export stays valid. No guest is booted: the
# A/B directories are made from the example run (results/examples/smoke-ext4).
. "$(dirname "$0")/../boot/lib.sh"
plan 47
EX="$ROOT/results/examples/smoke-ext4"

# samples FILE V...: one value a line
samples() { local f=$1; shift; printf '%s\n' "$@" >"$f"; }
# mkab DIR STOCK PATCHED: an A/B directory with one run a value of STOCK and of PATCHED
# (space-separated lists). Each run records total_s = the value and lat_us = three operations
# of the value (a per-operation metric, so report.html draws its CDF too).
mkab() {
	local dir=$1 i=0 side v
	mkdir -p "$dir/runs"
	jq -n --arg job "$ROOT/configs/jobs/smoke.job" '{format: "kpair-ab/1", job: $job,
		stock: {kernel: "6.1.0-57-amd64", sets: []}, patched: {kernel: "6.1.0-57-amd64", sets: []},
		sets: [], runs: 5, until_ci: 0, max_runs: 0, retries: 1, seed: 7, threshold: 0.02,
		calibrate: false, jobs: 1, warmup: 0}' >"$dir/ab.json"
	for side in stock patched; do
		i=0
		for v in $([ $side = stock ] && echo "$2" || echo "$3"); do
			local r="$dir/runs/$(printf %03d $i)-$side"
			mkdir -p "$r"
			jq --argjson v "$v" --arg id "run-$side-$i" '.run_id = $id | .records = 4 |
				.samples = {total_s: {unit: "s", values: [$v]},
					    lat_us: {unit: "us", values: [$v, $v, $v]}}' \
				"$EX/result.json" >"$r/result.json"
			{
				head -1 "$EX/samples.jsonl"
				for m in total_s lat_us lat_us lat_us; do
					jq -cn --arg m "$m" --argjson v "$v" '{type: "sample", seq: 1, metric: $m,
						unit: (if $m == "total_s" then "s" else "us" end), value: $v}'
				done
				printf '{"type":"done","seq":5,"samples":4,"uptime":2.1,"workload_s":0.6}\n'
			} >"$r/samples.jsonl"
			i=$((i + 1))
		done
	done
}
# the page renders in headless Chromium: its DOM and a screenshot
chromium_dom() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$WORK/chromium" "$@" 2>/dev/null
}
valid() { kcidb_valid "$@"; }	# lib.sh: against the KCIDB v5.0 schema
# widest FILE: the widest line, in characters
widest() { LC_ALL=C.UTF-8 awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$1"; }

# case NAME STOCK PATCHED VERDICT: compare and report on one sample set
case_() {
	local name=$1 a=$2 b=$3 want=$4 d="$WORK/$1"
	samples "$WORK/$name-a.txt" $a
	samples "$WORK/$name-b.txt" $b
	"$KPAIR" compare --metric lat_us --unit us "$WORK/$name-a.txt" "$WORK/$name-b.txt" \
		>"$WORK/$name.table" 2>"$WORK/$name.err"
	[ $? -le 1 ] && [ "$(widest "$WORK/$name.table")" -le 100 ] && grep -q "^lat_us (us) " "$WORK/$name.table"
	ok $? "$name: compare's table within 100 columns (widest $(widest "$WORK/$name.table"))"
	[ "$(widest "$WORK/$name.table")" -le 100 ] || sed 's/^/#   /' "$WORK/$name.table"
	"$KPAIR" compare --json --metric lat_us --unit us "$WORK/$name-a.txt" "$WORK/$name-b.txt" \
		>"$WORK/$name.json" 2>>"$WORK/$name.err"
	is "$(jqr "$WORK/$name.json" .metrics.lat_us.verdict)" "$want" "$name: compare --json verdict $want"

	mkab "$d" "$a" "$b"
	"$KPAIR" report "$d" >"$d.out" 2>"$d.err"
	[ $? -le 1 ] && [ -f "$d/comparison.json" ] && [ -f "$d/report.html" ]
	ok $? "$name: report writes comparison.json and report.html"
	[ -f "$d/report.html" ] || sed 's/^/#   /' "$d.err"
	# the paths written and the command to rerun are as long as they are
	grep -v '^  -> \|^  rerun: ' "$d.out" >"$d.table"
	[ "$(widest "$d.table")" -le 100 ] && ! grep -q "set terminal\|^plot " "$d.out" "$d.err"
	ok $? "$name: report's table within 100 columns, no gnuplot script printed"
	# lat_us: order, distribution, CDF; total_s: order, distribution; each a plot or its note
	chromium_dom --dump-dom "file://$d/report.html" >"$d.dom"
	is "$(($(grep -o '<svg' "$d.dom" | wc -l) + $(grep -o 'class="plot-note"' "$d.dom" | wc -l)))" 5 \
		"$name: the rendered page has 5 plots or notes ($(grep -o '<svg' "$d.dom" | wc -l) plots)"
	chromium_dom --window-size=1200,1600 --screenshot="$d.png" "file://$d/report.html" >/dev/null
	[ "$(stat -c %s "$d.png" 2>/dev/null || echo 0)" -gt 20000 ]
	ok $? "$name: its screenshot is not blank"
	"$KPAIR" export kcidb "$d" -o "$d.kcidb.json" >/dev/null 2>"$d.kcidb.err" && valid "$d.kcidb.json"
	ok $? "$name: export kcidb of the A/B is valid KCIDB"
	[ -f "$d.kcidb.json" ] || sed 's/^/#   /' "$d.kcidb.err"
}

case_ const-both "5 5 5 5 5" "5 5 5 5 5" no-change
case_ const-one "5 5 5 5 5" "5 5.2 4.9 5.1 5.05" inconclusive
case_ single "5" "4" inconclusive
case_ zeros "0 0 0 0 0" "0 0 0 0 0" no-change
case_ huge "5 5.2 4.9 5.1 5.05" "506340 506350 506345 506330 506360" regressed

# the constant and zero cases draw every plot: a padded range, no note
is "$(grep -o '<svg' "$WORK/const-both.dom" | wc -l)" 5 "const-both: all 5 plots drawn"
is "$(grep -o '<svg' "$WORK/zeros.dom" | wc -l)" 5 "zeros: all 5 plots drawn (CDF on a linear axis)"
grep -qx 'set yrange \[4.5:5.5\]' "$WORK/const-both/plots/total_s-dist.gp" &&
	grep -qx 'set xrange \[-1:1\]' "$WORK/zeros/plots/lat_us-cdf.gp" &&
	! grep -q 'logscale' "$WORK/zeros/plots/lat_us-cdf.gp" &&
	grep -q 'logscale' "$WORK/huge/plots/lat_us-cdf.gp"
ok $? "a constant 5 is drawn on 4.5-5.5, zeros on -1..1 without a log axis; positive CDFs keep it"
grep -q 'x100286' "$WORK/huge.table" && grep -q 'x100286' "$WORK/huge/report.html"
ok $? "huge: the change as a ratio x100286 in the table and the page"
jqt "$WORK/huge.kcidb.json" '[.tests[] | select(.path | endswith("ab.lat_us")) | .number.value > 100000] | all'
ok $? "huge: the KCIDB A/B test carries the ratio"

# the table and the page open with what was found, in words
is "$(sed -n 2p "$WORK/const-both.out")" \
	"no change: patched is within +/- 2 % of stock on every metric, 5 runs a side" \
	"const-both: the table opens with the finding in one sentence"
is "$(jqr "$WORK/single/comparison.json" '.summary[0]')" \
	"no verdict: these runs cannot tell patched from stock on any metric (1 run a side)" \
	"single: comparison.json's summary says no verdict"
grep -q "^  lat_us: regressed: patched is 100286 times slower on lat_us (95 % CI 97566-103082 times)" \
	"$WORK/huge.out"
ok $? "huge: the verdict per metric in words"
grep -q '<p class="headline"><b>patched is 100286 times slower on total_s' "$WORK/huge.dom" &&
	grep -q '<li>failed runs: none</li>' "$WORK/huge.dom" &&
	grep -q '<li>mode: wallclock, pin none, disk.backing file: real time' "$WORK/huge.dom" &&
	grep -qF "<li>rerun: <code>harness/kpair ab configs/jobs/smoke.job --stock 6.1.0-57-amd64 --patched 6.1.0-57-amd64 -n 5 --seed 7 --warmup 0</code></li>" "$WORK/huge.dom"
ok $? "huge: the rendered page opens with the summary: finding, failed runs, mode, the command"

# a plot gnuplot cannot draw costs that plot, not the page: a gnuplot that fails on CDFs
mkdir -p "$WORK/bin"
cat >"$WORK/bin/gnuplot" <<EOF
#!/bin/sh
case "\$1" in
*-cdf.gp) printf '\nplot "x" using 1:2\n     ^\n"%s" line 9: x range is invalid\n\n' "\$1" >&2; exit 1;;
esac
exec $(command -v gnuplot) "\$@"
EOF
chmod +x "$WORK/bin/gnuplot"
rm -f "$WORK/huge/report.html"
PATH="$WORK/bin:$PATH" "$KPAIR" report "$WORK/huge" >"$WORK/fail.out" 2>"$WORK/fail.err"
[ -f "$WORK/huge/report.html" ] && [ "$(grep -c '<svg' "$WORK/huge/report.html")" = 4 ]
ok $? "a failing plot: report.html still written with the 4 other plots"
grep -q '<p class="plot-note">plot lat_us-cdf could not be drawn: x range is invalid</p>' \
	"$WORK/huge/report.html"
ok $? "and says in one line which plot could not be drawn and why"
! grep -q 'using 1:2' "$WORK/huge/report.html" "$WORK/fail.out" &&
	[ "$(grep -c . "$WORK/fail.err")" = 1 ] && grep -q "x range is invalid" "$WORK/fail.err"
ok $? "no gnuplot script on the page or the terminal: one line on stderr"
done_testing
