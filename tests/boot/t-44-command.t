#!/usr/bin/env bash
# command: the user's own static program in the guest (docs/benchmarks.md). One that prints
# kpair-metric lines gives those metrics (a direction it says is kept, and compare uses it),
# its argv word by word, its elapsed time and exit status; one that exits 3 is
# workload-failed with its stderr; one that prints a bad kpair-metric line is
# workload-failed naming the line; the same program cross-built runs on the i386 and arm64-16k
# targets (their default kernels); an A/B whose patched side scores half comes out with the
# program's own directions: score regressed, cost improved, plain no verdict. The refusals
# before boot: tests/golden.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 28
val() { jqr "$DIR/result.json" ".samples[\"$1\"].values[${2:-0}]"; }

prog="$WORK/kpair-prog"
cc -static -O2 -o "$prog" "$ROOT/tests/boot/progs/kpair-prog.c"
ok $? "tests/boot/progs/kpair-prog.c built static"
cat >"$WORK/cmd.job" <<EOJ
[job]
name     = t-command
workload = command
[params]
program  = kpair-prog
argv     = metrics A   B
EOJ

kpair_run metrics "$WORK/cmd.job" --kernel "$KERNEL"
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "a program printing kpair-metric lines: status ok (${SECS} s)"
is "$(val loops)" 1000 "its metric loops = 1000"
is "$(jqr "$r" '.samples.lat_us | "\(.unit) \(.values[0])"')" "us 12.5" "a fractional value with its unit"
is "$(jqr "$r" '.samples.per_iter.values | map(tostring) | join(",")')" 1,2 \
	"a metric printed twice has both values"
is "$(jqr "$r" '.samples.score.better + " " + .samples.cost.better')" "higher lower" \
	"the direction the program said is kept (points: higher, widgets: lower)"
is "$(val argc)" 4 "argv 'metrics A   B': three arguments, blanks collapsed, no shell"
is "$(val arg2_is_A)" 1 "each word is one argument"
is "$(val cwd_is_scratch)$(val cwd_writable)" 11 "it runs in the scratch fs (KPAIR_SCRATCH), writable"
is "$(val command.exit_status)" 0 "command.exit_status 0"
jqt "$r" '.samples["command.elapsed_s"].values[0] > 0'
ok $? "command.elapsed_s $(val command.elapsed_s) s"
"$KPAIR" compare "$DIR" "$DIR" --json >"$WORK/cmp.json" 2>"$WORK/cmp.err"
is "$(jqr "$WORK/cmp.json" '.metrics.score.better + " " + .metrics.cost.better + " " + .metrics.loops.better')" \
	"higher lower none" "compare takes the program's direction; a unit that says none stays none"

kpair_run exit3 "$WORK/cmd.job" --kernel "$KERNEL" --set params.argv=exit3
r="$DIR/result.json"
is "$(jqr "$r" .status)" workload-failed "a program exiting 3: workload-failed (${SECS} s)"
jqr "$r" .reason | grep -q 'exited with status 3: kpair-prog: starting / kpair-prog: giving up: no widgets'
ok $? "the reason has its exit status and stderr tail: $(jqr "$r" .reason | cut -c1-100)"

kpair_run garbage "$WORK/cmd.job" --kernel "$KERNEL" --set params.argv=garbage
r="$DIR/result.json"
is "$(jqr "$r" .status)" workload-failed "a bad kpair-metric line: workload-failed (${SECS} s)"
is "$(jqr "$r" .reason)" \
	"agent: command: stdout line 2: 'kpair-metric broken notanumber s': VALUE: not a finite number" \
	"the reason names the line and what is wrong with it"
jqt "$r" '.samples | has("broken") | not'
ok $? "no metric from the bad line"

for t in i386 arm64-16k; do
	case $t in
	i386) cc=i686-linux-gnu-gcc ;;
	*) cc=aarch64-linux-gnu-gcc ;;
	esac
	"$cc" -static -O2 -o "$WORK/kpair-prog-$t" "$ROOT/tests/boot/progs/kpair-prog.c"
	kpair_run "metrics-$t" "$WORK/cmd.job" --set job.target=$t \
		--set params.program="$WORK/kpair-prog-$t"
	is "$(jqr "$DIR/result.json" .status)" ok "target $t, the program built by $cc: status ok (${SECS} s)"
	is "$(val loops) $(val argc)" "1000 4" "target $t: its metrics and argv"
done

# an A/B with a planted difference: the patched side's program is told to score half
"$KPAIR" ab "$WORK/cmd.job" --stock "$KERNEL" --patched "$KERNEL" -n 5 --seed 3 \
	--set params.argv="score 40" --patched-set params.argv="score 20" -o "$WORK/ab" \
	>"$WORK/ab.out" 2>"$WORK/ab.err"
is $? 1 "ab, patched side scoring half: exit 1 (a regression)"
c="$WORK/ab/comparison.json"
is "$(jqr "$c" '.metrics.score.better + " " + .metrics.score.verdict')" "higher regressed" \
	"score (points, said higher): regressed"
is "$(jqr "$c" '.metrics.cost.better + " " + .metrics.cost.verdict')" "lower improved" \
	"cost (widgets, said lower): improved"
is "$(jqr "$c" .metrics.plain.better)" none "plain (things, no direction): no verdict asked"
jqt "$c" '.metrics.score.n_a == 5 and .metrics.score.n_b == 5'
ok $? "5 runs a side"
kcidb_ab "$WORK/ab" "$WORK/ab.kcidb.json"
ok $? "export kcidb of the A/B: valid KCIDB v5.0, a test for each metric ($(jq -r '[.metrics | keys[]] | join(" ")' "$c"))"

"$KPAIR" export lava "$WORK/cmd.job" --kernel "$KERNEL" -o "$WORK/lava" >/dev/null 2>"$WORK/lava.err"
[ $? = 2 ] && grep -q 'workload command needs a host-made file in the initramfs' "$WORK/lava.err"
ok $? "export lava refuses it: LAVA's initramfs would not carry the program"
done_testing
