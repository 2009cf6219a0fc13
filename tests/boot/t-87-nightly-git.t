#!/usr/bin/env bash
# nightly follows a moving kernel: [kernel] source = the test git repository, branch = NAME,
# config = the user's .config; each night builds the branch's tip as it is then (nothing
# fetched) and A/Bs it against the last good night's commit. Night 1's tip is 'uname' (against
# 'base'), night 2's tip moved to 'main', which carries the 300 ms fsync delay: night 2
# regresses write_s against night 1's commit, and (nightly.bisect = auto) bisects the range
# between the two nights' commits on its own, naming the planted commit with its subject and
# author; report --mail of the night is a message with the finding and a #regzbot line. A
# third night on the same tip confirms the step and is not news. debian:latest-<flavour> resolves to the newest
# ABI the registry offers. Runs after t-72 and t-86, whose builds it reuses.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 12
repo=$(test_repo)
user_config "$repo" "$WORK/user.config"
base=$("$KPAIR" kernel build --source "$repo" --rev base --config "$WORK/user.config" 2>"$WORK/base.err" | awk '{ print $1 }')
[ -n "$base" ] && [ -f "$ROOT/images/kernels/$base/kernel.json" ]
ok $? "the first night's pinned baseline: 'base' built with the user's config ($base)"
n="$WORK/t.nightly"
cat >"$n" <<EOT
[nightly]
name    = t87
results = $WORK/nightly
jobs    = configs/jobs/smoke.job
runs    = 5
seed    = 5
set     = params.size=4M
bisect  = auto
[kernel]
source  = $repo
branch  = uname
config  = $WORK/user.config
[baseline]
rule    = last-good
kernel  = $base
EOT
night() { "$KPAIR" nightly "$n" "$@" >"$WORK/night.out" 2>"$WORK/night.err"; }

notgit=$(mktemp -d)
trap 'rm -rf "$WORK" "$notgit"' EXIT
printf '[nightly]\njobs = configs/jobs/smoke.job\n[kernel]\nsource = %s\nbranch = main\n' "$notgit" >"$WORK/bad.nightly"
"$KPAIR" nightly "$WORK/bad.nightly" >/dev/null 2>"$WORK/bad.err"
[ $? = 2 ] && grep -q "kernel.source: '$notgit' is not a git tree" "$WORK/bad.err"
ok $? "kernel.branch on a source that is not a git tree: $(head -1 "$WORK/bad.err")"

night --date 2026-02-01 --set nightly.runs=3
is $? 0 "night 1: the branch's tip ('uname') against 'base' passes"
s1="$WORK/nightly/2026-02-01/summary.json"
k1=$(jqr "$s1" '.entries[0].kernel')
[ "$(jqr "$ROOT/images/kernels/$k1/kernel.json" .source.git.commit)" = "$(git -C "$repo" rev-parse uname)" ]
ok $? "night 1 tested the tip of the branch as it was ($k1)"

# overnight the developer's branch moved on: night 2 builds its new tip
night --date 2026-02-02 --set kernel.branch=main
is $? 1 "night 2: the new tip ('main', with the fsync delay) regresses: exit 1"
s2="$WORK/nightly/2026-02-02/summary.json"
k2=$(jqr "$s2" '.entries[0].kernel')
# the baseline moves only onto a night that showed no change: night 1's commit when its A/B
# (3 runs a side, real time) said no change, else still the pinned 'base'
if jqt "$s1" '.entries[0].baseline_ok'; then want_night=2026-02-01 want_k=$k1
else want_night="none: baseline.kernel" want_k=$base; fi
[ "$(jqr "$ROOT/images/kernels/$k2/kernel.json" .source.git.commit)" = "$(git -C "$repo" rev-parse main)" ] &&
	jqt "$s2" ".entries[0].baseline.night == \"$want_night\" and .entries[0].baseline.kernel == \"$want_k\""
ok $? "night 2 built the new tip; its baseline is the last night that showed no change ($want_night: $want_k)"
is "$(jqr "$s2" '.entries[0].metrics.write_s.verdict')" regressed "night 2: write_s regressed"
slow=$(git -C "$repo" rev-parse main~1)
good=$(jqr "$ROOT/images/kernels/$want_k/kernel.json" .source.git.commit)
jqt "$s2" ".entries[0].bisect | .kind == \"git\" and .metric == \"write_s\" and .exit == 0 and .good.commit == \"$good\" and .bad.commit == \"$(git -C "$repo" rev-parse main)\" and .first_bad.commit == \"$slow\" and (.first_bad.author | test(\"<.*@.*>\"))" &&
	jqt "$WORK/nightly/index.json" '[.nights[] | select(.date == "2026-02-02") | .entries[0].bisect.first_bad.commit] | length == 1' &&
	grep -q "^nightly 2026-02-02: regressed (exit 1); smoke-x86_64 write_s bisected to ${slow:0:12} (\"fs/sync: a 300 ms busy wait" "$WORK/night.out"
ok $? "night 2 bisected ${good:0:12}..main unattended to the planted commit ($(jqr "$s2" '.entries[0].bisect | "\(.first_bad.subject) by \(.first_bad.author), \(.commits) commits, \(.ab_steps) A/B steps, \(.wall_s | floor) s"'))" ||
	{ sed 's/^/#   /' "$WORK/night.out" >&2; jq -c '.entries[0].bisect' "$s2" | sed 's/^/#   /' >&2; }
"$KPAIR" report --mail "$WORK/nightly/2026-02-02" >"$WORK/mail.out" 2>"$WORK/mail.err"
rc=$?
m="$WORK/nightly/2026-02-02/mail.txt"
[ $rc = 0 ] && cmp -s "$m" "$WORK/mail.out" &&
	grep -q "^Subject: \[kpair\] nightly t87 2026-02-02: regressed$" "$m" &&
	grep -q "^smoke-x86_64: regressed (" "$m" &&
	grep -q "^  kernel \(main at \)\?$(git -C "$repo" rev-parse --short=12 main) \"fs/open: a comment (harmless)\" \[$k2\]$" "$m" &&
	grep -q "^  bisected write_s: the first bad commit is $slow (\"fs/sync: a 300 ms busy wait in vfs_fsync_range() (the planted slowdown)\")$" "$m" &&
	grep -q "^    by .* <.*>, [23] commits between " "$m" &&
	[ "$(tail -1 "$m")" = "#regzbot introduced: ${slow:0:12}" ]
ok $? "report --mail of the night: subject, entry, kernels by commit and subject, the bisect, #regzbot introduced" ||
	sed 's/^/#   /' "$m" >&2
b2="$WORK/nightly/2026-02-02/smoke-x86_64/bisect"
"$KPAIR" report --mail "$b2" >/dev/null 2>"$WORK/mailb.err" &&
	grep -q "^Subject: \[kpair\] write_s: .* regressed by ${slow:0:12} (\"fs/sync: a 300 ms busy wait" "$b2/mail.txt" &&
	grep -q "^Each step (an A/B of write_s against the base):" "$b2/mail.txt" &&
	grep -q "^  metric .* stock .* patched .* change .* 95% CI" "$b2/mail.txt" &&
	grep -q "harness/kpair bisect .*smoke.job --source $repo --good $good --bad " "$b2/mail.txt" &&
	[ "$(tail -1 "$b2/mail.txt")" = "#regzbot introduced: ${slow:0:12}" ]
ok $? "report --mail of the night's bisect: the commit, each step, the last step's table, the command, #regzbot" ||
	sed 's/^/#   /' "$b2/mail.txt" >&2

# night 3, the same tip: three nights now, so the change points decide. The step from night 2
# is confirmed by its second night, but night 2 already said so: not a regression again
night --date 2026-02-03 --set kernel.branch=main --set nightly.runs=3
rc=$?
s3="$WORK/nightly/2026-02-03/summary.json"
[ $rc = 0 ] && jqt "$s3" '.entries[0] | .status == "passed" and .ab_status == "regressed" and (.changepoints.new | length) == 0' &&
	jqt "$s3" '[.entries[0].changepoints.metrics.write_s[] | select(.kind == "step" and .confirmed and .night_label == "2026-02-02" and .worse and .ratio > 1.5)] | length == 1' &&
	grep -q "^nightly 2026-02-03: passed (exit 0), no new change point in 2 series" "$WORK/night.out"
ok $? "night 3: the step from night 2 confirmed over 3 nights ($(jq -c '.entries[0].changepoints.metrics.write_s[0] | [.kind, .night_label, .change_pct, .confirmed]' "$s3")), not news: exit 0, one line" ||
	{ sed 's/^/#   /' "$WORK/night.out" >&2; jq -c '.entries[0].changepoints' "$s3" | sed 's/^/#   /' >&2; }

want=$(apt-cache show --no-all-versions linux-image-amd64 | sed -n 's/^Depends: linux-image-\([^ ,]*\).*/\1/p')
got=$("$KPAIR" kernel fetch debian:latest-amd64 2>"$WORK/latest.err")
[ -n "$want" ] && [ "$got" = "$want" ] && grep -q "debian:latest-amd64 is debian:$want today" "$WORK/latest.err"
ok $? "debian:latest-amd64 is the newest ABI the registry offers ($got)"
done_testing
