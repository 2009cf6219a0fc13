#!/usr/bin/env bash
# profile: why a change happened. kpair's TCG plugin counts the instructions each kernel
# function executes (exact, no sampling) and a shadow call stack the calls between them:
# - kpair profile on Debian's kernel names functions from the guest's /proc/kallsyms
#   (modules included) and the counts add up;
# - ab --profile on the planted slowdown (configs/patches/bisect-demo 1..3: a 300 ms busy
#   wait in vfs_fsync_range) names vfs_fsync_range and its new call first, in comparison.json,
#   the terminal summary and report.html (rendered by Chromium);
# - an A/A with --profile in the precise mode: the largest per-function delta is tiny (seen:
#   0.006 % and 0.16 % of the total; the virtio-serial port's polling is what moves) and no
#   "why" is made up;
# - the same on the i386 and arm64-16k targets (their kernels' address ranges and call
#   instructions), and no call edge counts more than the kernel ran (stack tricks such as
#   retpolines and the return stack filled at a context switch are not calls that return);
# - call stacks: each profile's folded stacks add up to its total, a flame graph of them, and
#   the A/B's differential flame graph paints vfs_fsync_range red in report.html; the A/A's
#   system-call paths stay within 0.1 % of the total;
# - a backend that cannot load a plugin is refused before anything runs;
# - every run's result.json has the kernel counters that moved over its workload, and an
#   A/A calls none of them changed ("what else changed", a family of its own).
# Runs after t-85-bisect.t, which builds the series' kernels (cached in images/).
. "$(dirname "$0")/lib.sh"
need_kernel
plan 26
job="$ROOT/configs/jobs/smoke.job"

# 1. one profiled run of Debian's kernel
"$KPAIR" profile "$job" --kernel "$KERNEL" --set params.size=4M -o "$WORK/p1" >"$WORK/p1.out" 2>"$WORK/p1.err"
is $? 0 "kpair profile exits 0"
p="$WORK/p1/profile.json"
jqt "$p" '.symbols_from == "kallsyms" and .symbols > 10000 and .kernel > 100000000'
ok $? "profile.json: $(jqr "$p" .symbols) symbols from the guest's kallsyms, $(jqr "$p" .kernel) kernel instructions"
jqt "$p" '([.functions[]] | add) == .kernel and .total == .kernel + .user'
ok $? "the functions add up to the kernel's count, kernel and user to the total"
jqt "$p" '[.functions | keys[] | select(endswith(" [ext4]"))] | length > 10'
ok $? "functions of modules are named with their module (ext4: $(jqr "$p" '[.functions | keys[] | select(endswith(" [ext4]"))] | length'))"
grep -q "^profile: .* instructions, .* in the kernel" "$WORK/p1.out" && [ "$(grep -c '^  .* %  ' "$WORK/p1.out")" = 10 ]
ok $? "the terminal shows the top 10 functions"
jqt "$WORK/p1/result.json" '.profile.file == "profile.json"'
ok $? "result.json names the profile"
jqt "$WORK/p1/result.json" '.counters["vmstat.pgpgout"] > 0 and .counters["stat.ctxt"] > 0 and (.counters | keys | map(select(startswith("meminfo."))) | length) > 0'
ok $? "result.json: the kernel counters' deltas over the workload ($(jqr "$WORK/p1/result.json" '.counters | length') moved)"

awk '{ s += $NF } END { print s }' "$WORK/p1/stacks.txt" | grep -qx "$(jqr "$p" .total)" &&
	grep -q '<svg xmlns=' "$WORK/p1/flame.svg" && grep -q '<title>ext4_file_write_iter \[ext4\]: ' "$WORK/p1/flame.svg"
ok $? "call stacks: $(wc -l <"$WORK/p1/stacks.txt") folded stacks add up to the total; flame.svg has ext4's write path"

# no call edge counts more instructions than the whole kernel ran
edges_sane() { jqt "$1" '.kernel as $k | (.calls | length) > 1000 and ([.calls[] | select(.insns > $k)] | length) == 0'; }
edges_sane "$p"
ok $? "x86_64: $(jqr "$p" '.calls | length') call edges, none above the kernel's total (stack tricks are not calls)"

# 1b. the other targets, each with its default kernel (fetched when missing)
for t in i386 arm64-16k; do
	"$KPAIR" profile "$job" --set job.target=$t --set params.size=4M -o "$WORK/p-$t" \
		>"$WORK/p-$t.out" 2>"$WORK/p-$t.err"
	rc=$?
	q="$WORK/p-$t/profile.json"
	[ $rc = 0 ] && jqt "$q" '.symbols_from == "kallsyms" and .symbols > 10000 and .kernel > 100000000 and
		([.functions[]] | add) == .kernel and .total == .kernel + .user and
		([.functions | keys[] | select(endswith(" [ext4]"))] | length) > 10'
	ok $? "$t: kpair profile names $(jqr "$q" '.functions | length') functions from kallsyms (ext4's too), $(jqr "$q" .kernel) kernel instructions, the counts add up" ||
		sed 's/^/#   /' "$WORK/p-$t.err" | tail -5
	edges_sane "$q"
	ok $? "$t: $(jqr "$q" '.calls | length') call edges, none above the kernel's total"
done

# 2. the planted slowdown
P="$ROOT/configs/patches/bisect-demo"
stock=$("$KPAIR" kernel build --source linux-source-6.1 2>/dev/null | tail -1 | cut -d' ' -f1)
slow=$("$KPAIR" kernel build --source linux-source-6.1 --patch "$P/0001-read-write-comment.patch" \
	--patch "$P/0002-uname-suffix.patch" --patch "$P/0003-fsync-delay.patch" 2>/dev/null | tail -1 | cut -d' ' -f1)
# the precise mode: the busy wait is 300 M instructions on every run and the rest repeats, so
# one run a side is enough for the profile (the verdicts are not what is tested here)
"$KPAIR" ab "$job" --stock "$stock" --patched "$slow" -n 1 --warmup 0 --set params.size=4M \
	--set job.mode=icount --set disk.backing=ram --profile -o "$WORK/slow" >"$WORK/slow.out" 2>"$WORK/slow.err"
rc=$?
c="$WORK/slow/comparison.json"
[ $rc -le 1 ] && jqt "$c" '.profile.origin.function == "vfs_fsync_range" and .profile.origin.because == "a new call" and .profile.origin.stock_calls == 0'
ok $? "ab --profile: the origin is vfs_fsync_range's new call ($(jq -c '.profile.origin | [.function, .callee, .because, .patched_calls]' "$c"))"
jqt "$c" '(.profile.functions | map(.delta) | add) + .profile.rest.delta + .profile.user.delta == .profile.total.delta'
ok $? "the function deltas, the rest and user space add up to the total delta"
grep -A2 "where the instructions went" "$WORK/slow.out" | tr '\n' ' ' | tr -s ' ' | grep -q "why: vfs_fsync_range -> "
ok $? "the terminal summary says why: $(grep -A1 'where the instructions went' "$WORK/slow.out" | tr -s ' ' | tr '\n' ' ' | cut -c1-160)"
chromium_dom --dump-dom "file://$WORK/slow/report.html" >"$WORK/dom.html"
grep -q '<h2 id="profile">Where the instructions went</h2>' "$WORK/dom.html" &&
	grep -q '<b>Why:</b> <code>vfs_fsync_range</code>' "$WORK/dom.html" &&
	grep -q '<table class="profile">' "$WORK/dom.html"
ok $? "report.html, rendered by Chromium: 'Where the instructions went', why, and the table"
# the differential flame graph: vfs_fsync_range more on the patched side, painted red, inline
fsync=$(grep -o '<title>vfs_fsync_range: [^<]*</title><rect [^>]*>' "$WORK/slow/profile/flame.svg" | head -1)
echo "$fsync" | grep -q 'delta +[0-9]' && echo "$fsync" | grep -q 'fill="rgb(255,'
ok $? "flame.svg: vfs_fsync_range red ($(echo "$fsync" | sed 's/<title>//; s/<.title>.*fill=/, fill=/; s/\/>$//'))"
grep -q '<h3 id="flame">' "$WORK/dom.html" && grep -q '<svg xmlns="http://www.w3.org/2000/svg" class="flame"' "$WORK/dom.html" &&
	grep -q '<title>vfs_fsync_range: ' "$WORK/dom.html"
ok $? "report.html, rendered by Chromium: the differential flame graph inline"
chromium_dom --window-size=1200,1600 --screenshot="$WORK/profile.png" "file://$WORK/slow/report.html#profile" >/dev/null
[ "$(stat -c %s "$WORK/profile.png" 2>/dev/null || echo 0)" -gt 20000 ]
ok $? "and a screenshot of it is not blank"

kcidb_ab "$WORK/slow" "$WORK/slow.kcidb" &&
	jqt "$WORK/slow.kcidb" '[.tests[] | select(.path | endswith(".ab")) | .misc.profile.origin.function] == ["vfs_fsync_range"]' &&
	jqt "$WORK/slow.kcidb" '[.tests[] | select(.misc.counters != null)] | length >= 2'
ok $? "export kcidb: valid KCIDB v5, the A/B's test carries the profile diff, each run's its counters"

# 3. A/A in the precise mode
"$KPAIR" calibrate "$job" --kernel "$KERNEL" -n 3 --warmup 0 --set params.size=4M \
	--set job.mode=icount --set disk.backing=ram --profile -o "$WORK/aa" >"$WORK/aa.out" 2>"$WORK/aa.err"
a="$WORK/aa/comparison.json"
share=$(jq '100 * .profile.largest_abs_delta / .profile.total.stock' "$a")
awk -v s="$share" 'BEGIN { exit !(s < 0.5) }'
ok $? "A/A, precise mode: the largest per-function delta is $(jqr "$a" .profile.largest_abs_delta) instructions, ${share} % of $(jqr "$a" .profile.total.stock)"
jqt "$a" '.profile.origin == null'
ok $? "and no why is made up from it (total delta $(jqr "$a" .profile.total.delta_pct) %)" ||
	jq -c '.profile.origin' "$a" | sed 's/^/#   origin: /' >&2
# the A/A's system-call paths (the workload's) differ by under 0.1 % of the total between the
# sides' stacks; the boot's kernel threads can differ far more (one shadow stack a vCPU: their
# interleaving at boot moves whole subtrees, seen here at 17 % in 2 of 5 A/As)
S="$WORK/aa/profile"
sysmax=$(awk -v tot="$(awk '{ s += $NF } END { print s }' "$S/stock/stacks.txt")" '
	FNR == 1 { side++ }
	/^do_syscall_64;x64_sys_call;/ { split($0, f, ";"); k = f[3]; sub(/ [0-9]+$/, "", k)
		v[k] += (side == 1 ? 1 : -1) * $NF }
	END { for (k in v) { d = v[k] < 0 ? -v[k] : v[k]; if (d > m) m = d }; printf "%.4f", 100 * m / tot }' \
	"$S/stock/stacks.txt" "$S/patched/stacks.txt")
[ -s "$S/flame.svg" ] && awk -v m="$sysmax" 'BEGIN { exit !(m < 0.1) }'
ok $? "A/A: its flame graph's system calls differ by at most ${sysmax} % of the total a call"
jqt "$a" '.counters.tested > 20 and (.counters.changed | length) == 0' && grep -q "what else changed: none of" "$WORK/aa.out"
ok $? "A/A: none of $(jqr "$a" .counters.tested) kernel counters is called changed" ||
	jq -c '.counters.changed' "$a" | sed 's/^/#   changed: /' >&2

# 4. a backend without plugins
"$KPAIR" ab "$job" --kernel "$KERNEL" --backend libvirt --profile -o "$WORK/lv" >/dev/null 2>"$WORK/lv.err"
rc=$?
[ $rc = 2 ] && grep -q "the libvirt backend cannot" "$WORK/lv.err" && [ ! -e "$WORK/lv" ]
ok $? "--profile with --backend libvirt: refused before anything runs ($(head -1 "$WORK/lv.err"))"
done_testing
