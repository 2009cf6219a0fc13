#!/usr/bin/env bash
# golden: kpair compare on the published sample tables (configs/claims) gives the verdicts the
# published data itself supports. Expected values, computed independently of kpair:
#   p_mannwhitney: brute-force permutation over all C(10,5)=252 (C(6,3)=20) splits with
#     mid-ranks (python3 itertools + scipy.stats.rankdata; scipy.stats.permutation_test agrees);
#   p_welch: scipy.stats.ttest_ind(equal_var=False) on log values, scipy 1.10.1;
#   ratio and its CI: exp of the difference of the log means, +/- scipy.stats.t.ppf(0.975, df)
#     times its standard error, df by Welch-Satterthwaite (numpy var ddof=1);
#   ratio_of_medians: median(patched) / median(vanilla) by hand.
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
near "$(jqr "$WORK/dd.json" "$m.p_welch")" 0.432844014928297; ok $? "dd: Welch p on log values"
near "$(jqr "$WORK/dd.json" "$m.ratio_of_medians")" "$(echo '2.32 / 2.28' | bc -l)" &&
	near "$(jqr "$WORK/dd.json" "$m.ratio")" 0.974728441375377 &&
	near "$(jqr "$WORK/dd.json" "$m.ratio_ci_low")" 0.898696224344648 &&
	near "$(jqr "$WORK/dd.json" "$m.ratio_ci_high")" 1.05719319686572
ok $? "dd: ratio of the medians +1.8 %, of the geometric means -2.5 % (two runs at 2.06, 2.09) with its Welch interval"
is "$(jqr "$WORK/dd.json" "$m.verdict")" inconclusive "dd: the published 5 vs 5 runs support no verdict"

cmpj --metric tar_s --unit s "$C/seed003-tar-vanilla.txt" "$C/seed003-tar-patched.txt" >"$WORK/tar.json"
m=".metrics.tar_s"
near "$(jqr "$WORK/tar.json" "$m.p_mannwhitney")" 0.06349206349206349; ok $? "tar: exact Mann-Whitney p with a cross-group tie"
near "$(jqr "$WORK/tar.json" "$m.p_welch")" 0.0646385117756813; ok $? "tar: Welch p on log values"
is "$(jqr "$WORK/tar.json" "$m.verdict")" no-change "tar: CI inside +/-2 %, not a significant change"
jqt "$WORK/tar.json" "$m.ratio_ci_low >= 0.98 and $m.ratio_ci_high <= 1.02"
ok $? "tar: ratio CI inside +/-2 %"

cmpj --metric bw --unit KB/s --higher-is-better "$C/seed004-ext4-fresh.txt" "$C/seed004-ext4-overwrite.txt" >"$WORK/bw.json"
m=".metrics.bw"
near "$(jqr "$WORK/bw.json" "$m.p_mannwhitney")" 0.1; ok $? "seed 004: 3 vs 3, smallest possible p"
near "$(jqr "$WORK/bw.json" "$m.p_welch")" 8.03275295715866e-05; ok $? "seed 004: Welch p on log values"
is "$(jqr "$WORK/bw.json" "$m.verdict")" improved "seed 004: 3 vs 3 clean runs: the rank test cannot, Welch's can"
near "$(jqr "$WORK/bw.json" "$m.p_adjusted")" 0.000160655059143173 &&
	jqr "$WORK/bw.json" "$m.why" | grep -q "(Welch on log values)"
ok $? "seed 004: p is twice the smaller of the two tests' (Welch's here), and it says which"
near "$(jqr "$WORK/bw.json" "$m.ratio_ci_low")" 1.08198845166964 && near "$(jqr "$WORK/bw.json" "$m.ratio_ci_high")" 1.09916240408414
ok $? "seed 004: overwrite 9.1 % faster, CI 8.2-9.9 %"

printf '1.0\nnot-a-number\n' >"$WORK/bad.txt"
"$KPAIR" compare --metric x "$WORK/bad.txt" "$C/seed003-dd-vanilla.txt" 2>"$WORK/bad.err" >/dev/null
[ $? -eq 2 ] && grep -q "bad.txt:2: not a number" "$WORK/bad.err"
ok $? "a bad sample file is an error naming file and line"
"$KPAIR" compare --metric dd_s --unit s "$C/seed003-dd-vanilla.txt" "$C/seed003-dd-patched.txt" >"$WORK/dd.out"
grep -q "^dd_s (s) .*inconclusive" "$WORK/dd.out"
ok $? "terminal table"
is "$(head -4 "$WORK/dd.out" | tr '\n' '|')" "no verdict: these runs cannot tell patched from stock on any metric (5 runs a side); about 66 runs a|    side would decide dd_s|  dd_s: inconclusive: p 0.866 and ratio CI 0.899-1.057: neither a change nor within +/- 2%; about 66|    runs a side would decide it at this spread|" \
	"the table opens with the finding in words, and how many runs would decide it"
# a metric name longer than the table's default column (fio-job's) is printed whole, on its row:
# the column widens, no row wraps
"$KPAIR" compare --metric randread-4k.read.clat_ns.p99.9 --unit ns "$C/seed003-dd-vanilla.txt" \
	"$C/seed003-dd-patched.txt" >"$WORK/long.txt"
grep -q '^randread-4k.read.clat_ns.p99.9 (ns) *2.28 ' "$WORK/long.txt" &&
	[ "$(sed -n '/^metric /,$p' "$WORK/long.txt" | grep -c '^randread-4k')" = 1 ] &&
	[ "$(sed -n '/^metric /{s/ *95% CI.*//;p;q}' "$WORK/long.txt" | wc -c)" = \
	  "$(grep '^randread-4k' "$WORK/long.txt" | sed 's/ *\[.*//; s/±/+/g' | wc -c)" ]
ok $? "a long metric name is printed whole on its row, the columns aligned"
done_testing
