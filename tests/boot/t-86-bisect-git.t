#!/usr/bin/env bash
# bisect over git commits: good = 'base', bad = 'main' of the test repository (three commits:
# 'uname', then 'slow', a 300 ms busy wait in vfs_fsync_range(), then 'comment'); bisect on
# write_s builds only the commits it visits (incrementally, in the shared O=) and names 'slow'
# with its subject and the A/B evidence of each step. An unknown revision is refused before any
# build; the user's tree is left as it was. Runs after t-72-git.t, whose builds it reuses.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 8
repo=$(test_repo)
user_config "$repo" "$WORK/user.config"
job="$ROOT/configs/jobs/smoke.job"
tree_state "$repo" >"$WORK/state.before"
bisect() {
	"$KPAIR" bisect "$job" --source "$repo" --metric write_s --config "$WORK/user.config" \
		-n 5 --max-runs 6 --set params.size=4M -o "$WORK/bisect" "$@" \
		>"$WORK/bisect.out" 2>"$WORK/bisect.err"
}

bisect --good base --bad no-such-rev
rc=$?
[ $rc = 2 ] && grep -q "revision 'no-such-rev' does not exist" "$WORK/bisect.err" &&
	! grep -q "^build: " "$WORK/bisect.err"
ok $? "an unknown --bad: usage error before any build"

t0=$(date +%s)
bisect --good base --bad main
rc=$?
secs=$(( $(date +%s) - t0 ))
is $rc 0 "bisect finds a first bad commit (${secs} s)"
[ $rc = 0 ] || tail -20 "$WORK/bisect.err" | sed 's/^/#   /'
slow=$(git -C "$repo" rev-parse main~1)
grep -q "^bisect: first bad commit: ${slow:0:12} fs/sync: a 300 ms busy wait in vfs_fsync_range() (the planted slowdown) (2 of 3)" "$WORK/bisect.out"
ok $? "it is the 'slow' commit, with its subject: $(grep '^bisect: first bad' "$WORK/bisect.out")"
b="$WORK/bisect/bisect.json"
jqt "$b" ".first_bad.commit == \"$slow\" and .first_bad.index == 2 and .git.commits == 3 and .ab_steps <= 4" &&
	jqt "$b" "[.steps[] | select(.patches >= 2) | .result] | all(. == \"bad\")" &&
	jqt "$b" "[.steps[] | select(.patches < 2) | .result] | all(. == \"good\")"
ok $? "bisect.json: first bad 2 of 3, every step with it bad, every step without it good"
[ "$(grep '^bisect: step [0-9]*: commit [0-9a-f]\{12\} (subject .*p_adjusted' "$WORK/bisect.out" | cut -d: -f2 | sort -u | wc -l)" = "$(jqr "$b" '.steps | length')" ]
ok $? "the A/B evidence of each step is printed"
t0=$(date +%s)
bisect --good base --bad main
rc=$?
secs=$(( $(date +%s) - t0 ))
[ $rc = 0 ] && grep -q "^bisect: first bad commit: ${slow:0:12}" "$WORK/bisect.out" &&
	! grep -q "^build: .* in /" "$WORK/bisect.err" && ! grep -q "checking out" "$WORK/bisect.err" &&
	[ "$secs" -lt 40 ]
ok $? "a second bisect: the same answer, nothing checked out or built, the runs on disk reused (${secs} s)"
jqt "$b" '.steps[] | select(.patches == 3) | .ratio_ci_low > 1.2'
ok $? "the whole range: write_s ratio CI above +20 %"
tree_state "$repo" >"$WORK/state.after"
diff "$WORK/state.before" "$WORK/state.after" >/dev/null
ok $? "the user's tree is as it was"
done_testing
