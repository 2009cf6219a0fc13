#!/usr/bin/env bash
# host-command: the host's / read-only in an x86_64 guest over virtio-9p, so an installed,
# dynamically linked tool runs as it is (docs/benchmarks.md). perf bench sched pipe gives its
# usecs/op through match/metric; a dynamic program of ours gives its kpair-metric lines, runs
# in the scratch fs and cannot write the host's tree; a match that never comes is
# workload-failed. The refusals before boot: tests/golden.
. "$(dirname "$0")/lib.sh"
need_kernel
[ -x /usr/bin/perf ] || skip_all "no /usr/bin/perf (scripts/deps installs linux-perf)"
plan 12
val() { jqr "$DIR/result.json" ".samples[\"$1\"].values[0]"; }

cat >"$WORK/perf.job" <<EOJ
[job]
name     = t-host-perf
workload = host-command
[params]
path     = /usr/bin/perf
argv     = bench sched pipe -l 10000
match    = usecs/op
metric   = pipe_us_per_op us lower
EOJ
kpair_run perf "$WORK/perf.job" --kernel "$KERNEL"
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "host's perf bench sched pipe in the guest: status ok (${SECS} s)"
jqt "$r" '.samples.pipe_us_per_op.values[0] > 0 and .samples.pipe_us_per_op.unit == "us"'
ok $? "its usecs/op line is the metric: $(val pipe_us_per_op) us"
is "$(jqr "$r" .samples.pipe_us_per_op.better)" lower "the direction metric= says"
jqr "$r" .qemu.cmdline | grep -q -- '-fsdev local,id=hostroot,path=/,security_model=none,readonly=on'
ok $? "QEMU shares the host's / read-only (virtio-9p, readonly=on)"

prog="$WORK/kpair-prog-dyn"
cc -O2 -o "$prog" "$ROOT/tests/boot/progs/kpair-prog.c" && file "$prog" | grep -q 'dynamically linked'
ok $? "tests/boot/progs/kpair-prog.c built dynamically linked"
cat >"$WORK/dyn.job" <<EOJ
[job]
name     = t-host-dyn
workload = host-command
[params]
path     = $prog
argv     = metrics A B
EOJ
kpair_run dyn "$WORK/dyn.job" --kernel "$KERNEL"
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "a dynamically linked program from the host's tree: status ok (${SECS} s)"
is "$(val loops) $(val argc)" "1000 4" "its kpair-metric lines are its metrics, argv word by word"
is "$(val cwd_is_scratch)$(val cwd_writable)" 11 "it runs in the scratch fs, on /mnt, writable"

kpair_run rofs "$WORK/dyn.job" --kernel "$KERNEL" --set params.argv=rofs
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "rofs: status ok (${SECS} s)"
is "$(val root_write_errno)" 30 "creating a file in the host's / fails with EROFS"

kpair_run nomatch "$WORK/perf.job" --kernel "$KERNEL" --set params.match=no-such-text
r="$DIR/result.json"
is "$(jqr "$r" .status)" workload-failed "a match that never comes: workload-failed (${SECS} s)"
jqr "$r" .reason | grep -q "no stdout line has 'no-such-text' (match)"
ok $? "the reason says so: $(jqr "$r" .reason | cut -c1-80)"
done_testing
