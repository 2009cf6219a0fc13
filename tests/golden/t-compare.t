#!/usr/bin/env bash
# golden: kpair compare on the published sample tables (configs/claims) gives the verdicts the
# published data itself supports. Expected values, computed independently of kpair:
#   p_mannwhitney: brute-force permutation over all C(10,5)=252 (C(6,3)=20) splits with
#     mid-ranks (python3 itertools + scipy.stats.rankdata; scipy.stats.permutation_test agrees);
#   p_welch: scipy.stats.ttest_ind(equal_var=False), scipy 1.10.1;
#   ratio: median(patched) / median(vanilla) by hand.
. "$(dirname "$0")/../boot/lib.sh"
plan 18
C="$ROOT/configs/claims"
# near VALUE WANT: equal within 1e-9 relative
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b) + 1e-12) }'; }
cmpj() { "$KPAIR" compare --json "$@"; }

cmpj --metric dd_s --unit s "$C/seed003-dd-vanilla.txt" "$C/seed003-dd-patched.txt" >"$WORK/dd.json"
ok $? "compare seed 003 dd tables"
m=".metrics.dd_s"
near "$(jqr "$WORK/dd.json" "$m.p_mannwhitney")" 0.6666666666666666; ok $? "dd: exact Mann-Whitney p with ties"
near "$(jqr "$WORK/dd.json" "$m.p_welch")" 0.4513272955665418; ok $? "dd: Welch p"
near "$(jqr "$WORK/dd.json" "$m.ratio")" "$(echo '2.32 / 2.28' | bc -l)"; ok $? "dd: ratio of medians"
is "$(jqr "$WORK/dd.json" "$m.verdict")" inconclusive "dd: the published 5 vs 5 runs support no verdict"

cmpj --metric tar_s --unit s "$C/seed003-tar-vanilla.txt" "$C/seed003-tar-patched.txt" >"$WORK/tar.json"
m=".metrics.tar_s"
near "$(jqr "$WORK/tar.json" "$m.p_mannwhitney")" 0.06349206349206349; ok $? "tar: exact Mann-Whitney p with a cross-group tie"
near "$(jqr "$WORK/tar.json" "$m.p_welch")" 0.06413299475201494; ok $? "tar: Welch p"
is "$(jqr "$WORK/tar.json" "$m.verdict")" no-change "tar: CI inside +/-2 %, not a significant change"
jqt "$WORK/tar.json" "$m.ratio_ci_low >= 0.98 and $m.ratio_ci_high <= 1.02"
ok $? "tar: ratio CI inside +/-2 %"

cmpj --metric bw --unit KB/s --higher-is-better "$C/seed004-ext4-fresh.txt" "$C/seed004-ext4-overwrite.txt" >"$WORK/bw.json"
m=".metrics.bw"
near "$(jqr "$WORK/bw.json" "$m.p_mannwhitney")" 0.1; ok $? "seed 004: 3 vs 3, smallest possible p"
near "$(jqr "$WORK/bw.json" "$m.p_welch")" 5.129471687382859e-05; ok $? "seed 004: Welch p"
is "$(jqr "$WORK/bw.json" "$m.verdict")" inconclusive "seed 004: 3 vs 3 cannot be called, however clear"
jqr "$WORK/bw.json" "$m.why" | grep -q "cannot reach p < 0.05"
ok $? "seed 004: and says why"
jqt "$WORK/bw.json" "$m.ratio_ci_low > 1.08 and $m.ratio_ci_high < 1.10"
ok $? "seed 004: overwrite ~9 % faster, CI excludes 1"

printf '1.0\nnot-a-number\n' >"$WORK/bad.txt"
"$KPAIR" compare --metric x "$WORK/bad.txt" "$C/seed003-dd-vanilla.txt" 2>"$WORK/bad.err" >/dev/null
[ $? -eq 2 ] && grep -q "bad.txt:2: not a number" "$WORK/bad.err"
ok $? "a bad sample file is an error naming file and line"
"$KPAIR" compare --metric dd_s --unit s "$C/seed003-dd-vanilla.txt" "$C/seed003-dd-patched.txt" >"$WORK/dd.out"
grep -q "^dd_s (s) .*inconclusive" "$WORK/dd.out"
ok $? "terminal table"
is "$(head -2 "$WORK/dd.out" | tr '\n' '|')" "no verdict: these runs cannot tell patched from stock on any metric (5 runs a side)|  dd_s: inconclusive: p 0.667 and ratio CI 0.904-1.035: neither a change nor within +/- 2%|" \
	"the table opens with the finding in words"
# a metric name too long for the table's column (fio-job's) is printed whole, on its own line
"$KPAIR" compare --metric randread-4k.read.clat_ns.p99.9 --unit ns "$C/seed003-dd-vanilla.txt" \
	"$C/seed003-dd-patched.txt" >"$WORK/long.txt"
grep -qx 'randread-4k.read.clat_ns.p99.9 (ns)' "$WORK/long.txt" &&
	[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$WORK/long.txt")" -le 100 ]
ok $? "a long metric name is printed whole on its own line, the table within 100 columns"
done_testing
