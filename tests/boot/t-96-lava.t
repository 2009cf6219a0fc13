#!/usr/bin/env bash
# lava backend: a real LAVA lab on this host (scripts/lava-lab-up: PostgreSQL, lava-server, its
# scheduler, a lava-worker with QEMU devices, a second worker in its own network and mount
# namespaces). A run through the lab gives the records of a local run; an A/B of the smoke job
# with a planted 16x difference comes out regressed with the comparison.json fields of a local
# A/B, its 10 runs one LAVA job (each its own part and boot); a job canceled in its third run
# fails that run with LAVA's word, retried, and the run it never booted runs alone, not a
# failure; resume after kpair is SIGKILLed mid-job takes back the runs the job booted and
# resubmits only the one it could not; a bad token, a token file others can read, an unreachable
# server and an unknown device type are each refused before anything is submitted; a job the
# queue never starts fails its run at the deadline and is canceled; --lava-serve hands the images
# to the lab over HTTP from kpair, and serves nothing else; Ctrl-C cancels the job; a kernel panic
# before hello is seen in LAVA's log; an A/B through the second worker alone (it sees none of
# kpair's files), the same with that worker killed mid-job and brought back (same verdicts, each
# run one boot's), and -j 2 over both workers (same verdicts and order). Prints the lab's start
# time and the per-run wall ratio.
. "$(dirname "$0")/lib.sh"
need_kernel
plan 60
job="$ROOT/configs/jobs/smoke.job"
t0=$(date +%s.%N)
URL=$("$ROOT/scripts/lava-lab-up" 2>"$WORK/lab.err") ||
	{ echo "Bail out! scripts/lava-lab-up failed: $(tail -5 "$WORK/lab.err" | tr '\n' ' ')"; exit 1; }
echo "# lava-lab-up: $URL up in $(echo "$(date +%s.%N) - $t0" | bc) s"
TOKEN=${KPAIR_LAVA_DIR:-/var/lib/kpair-lava}/token
LAVA=(--backend lava --lava-url "$URL" --lava-token-file "$TOKEN")
sets=(--set params.size=4M --set disk.size=256M)
(umask 077; printf 'Authorization: Token %s\n' "$(cat "$TOKEN")" >"$WORK/auth")	# not on a command line
api() { curl -sf -H @"$WORK/auth" "${URL}api/v0.2/$1"; }
njobs() { api "jobs/?limit=1" | jq .count; }
lava_id() { jqr "$1/result.json" .qemu.cmdline | sed -n 's/^LAVA job \([0-9]*\) .*/\1/p'; }

# refused before anything is submitted: each a clear message, exit 2
n0=$(njobs)
kpair_run any "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" --lava-serve 0.0.0.0:8010
[ "$RC" = 2 ] && grep -q "listens on every address: give --lava-serve-url" "$WORK/any.err"
ok $? "--lava-serve on every address without --lava-serve-url: exit 2, says what is missing"
kpair_run nosrv "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" --lava-serve-url http://h:1/
[ "$RC" = 2 ] && grep -q -- "--lava-serve-url needs --lava-serve ADDR:PORT" "$WORK/nosrv.err"
ok $? "--lava-serve-url alone: exit 2"
hostport=${URL#http://}
kpair_run busy "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" --lava-serve "${hostport%/}"
[ "$RC" = 2 ] && grep -q "cannot listen there" "$WORK/busy.err"
ok $? "--lava-serve on a port in use (the lab's own): exit 2"
printf 'not-a-token\n' >"$WORK/bad.token"; chmod 600 "$WORK/bad.token"
kpair_run bad "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" --lava-token-file "$WORK/bad.token"
is "$RC" 2 "a bad token: exit 2"
grep -q "the server refuses the token of '$WORK/bad.token'" "$WORK/bad.err" && ! grep -q not-a-token "$WORK/bad.err"
ok $? "a bad token: the server refuses it, the message names the file, not the token"
cp "$TOKEN" "$WORK/open.token"; chmod 644 "$WORK/open.token"
kpair_run open "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" --lava-token-file "$WORK/open.token"
[ "$RC" = 2 ] && grep -q "has mode 0644: others can read it" "$WORK/open.err"
ok $? "a token file others can read (0644) is refused"
kpair_run gone "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" --lava-url http://127.0.0.1:9/
[ "$RC" = 2 ] && grep -q "the server at 'http://127.0.0.1:9/' cannot be reached" "$WORK/gone.err"
ok $? "an unreachable server: exit 2, cannot be reached"
kpair_run nodt "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" --lava-device-type no-such-board
[ "$RC" = 2 ] && grep -q "has no device type 'no-such-board'" "$WORK/nodt.err"
ok $? "an unknown device type: exit 2, named"
is "$(njobs)" "$n0" "none of them submitted a job"

# one run through the lab against the same run here
kpair_run local "$job" --kernel "$KERNEL" "${sets[@]}"
LOCAL_S=$SECS
kpair_run lab "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}"
is "$RC/$(jqr "$DIR/result.json" .status)" "0/ok" "a run through the lab: ok (${SECS} s, here ${LOCAL_S} s)"
echo "# per-run wall: lab ${SECS} s, local ${LOCAL_S} s, ratio $(echo "scale=2; $SECS / $LOCAL_S" | bc)"
id=$(lava_id "$DIR")
[ -n "$id" ] && [ "$(api "jobs/$id/" | jq -r '.state + "/" + .health')" = Finished/Complete ]
ok $? "result.json names LAVA job $id, Finished and Complete in the lab"
shape() { jq -c '[.type, .metric // "", .unit // "", (to_entries | map(.key + ":" + (.value | type)))]' "$1"; }
is "$(shape "$DIR/samples.jsonl")" "$(shape "$WORK/local/samples.jsonl")" \
	"samples.jsonl: the records of the local run (types, metrics, units, fields)"
is "$(jq -r 'select(.type == "sample" and (.metric | endswith("_bytes"))) | .value' "$DIR/samples.jsonl" | tr '\n' ' ')" \
	"4194304 4194304 " "the byte counts the guest measured"
[ "$(grep -c '^kpair-record: {"type":' "$DIR/console.log")" = 7 ] && grep -q '^kpair-agent: smoke started' "$DIR/console.log"
ok $? "console.log: the guest's console from LAVA's log, hello to done (counters included), the records unescaped"
[ "$(grep -c "url: 'file:///" "$DIR/lava-job.yaml")" = 3 ] && jqt "$DIR/lava-job.json" ".id == $id"
ok $? "lava-job.yaml: the definition as submitted, its 3 images as file:// (no --lava-serve)"
! grep -rqF "$(cat "$TOKEN")" "$DIR" "$WORK/lab.out" "$WORK/lab.err"
ok $? "the token is in no result file and no output"

# the A/B with a planted 16x difference, through the lab and here
ab() {	# ab NAME ARGS...: kpair ab into $WORK/NAME
	local name=$1
	shift
	"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" --seed 7 --warmup 0 "${sets[@]}" \
		-o "$WORK/$name" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
}
# kpair serves the images over HTTP (--lava-serve), as for a lab whose workers do not see its files
t0=$(date +%s.%N)
(export TMPDIR=$WORK; ab big -n 5 --patched-set params.size=64M "${LAVA[@]}" --lava-serve 127.0.0.1:0) &
pid=$!
for _ in $(seq 1 600); do first=$(ls "$WORK"/big/runs/000-*/result.json 2>/dev/null) && break; sleep 0.1; done
u=$(sed -n "s/^ *url: '\(http:.*\)'$/\1/p" "${first%/result.json}/lava-job.yaml" | head -1)
base=${u%/*/*}
codes=$(for p in "${u#"$base"}" /00000000000000000000000000000000/kernel /../../etc/passwd /; do
	curl -s --path-as-is -o /dev/null -w '%{http_code} ' "$base$p"; done)
is "$codes" "404 404 404 404 " "--lava-serve: a finished run's image, an unknown token, a path out, / are not served"
wait $pid
rc=$?
echo "# A/B through the lab, 10 runs, images over HTTP: $(echo "$(date +%s.%N) - $t0" | bc) s"
is "$rc" 1 "A/B through the lab with a 16x difference exits 1"
c="$WORK/big/comparison.json"
is "$(jqr "$c" .metrics.write_s.verdict)/$(jqr "$c" .metrics.read_s.verdict)" regressed/regressed \
	"write_s and read_s: regressed"
jqt "$c" '.metrics.write_s.n_a == 5 and .metrics.write_s.n_b == 5 and .metrics.write_s.ratio_ci_low > 1.5'
ok $? "5 runs a side, write_s ratio CI well above 1 ($(jqr "$c" '.metrics.write_s | "\(.ratio) [\(.ratio_ci_low), \(.ratio_ci_high)]"'))"
ab here -n 2 --patched-set params.size=64M
fields() { jq -c '[paths | map(if type == "number" then "#" else . end) | join(".")] | unique' "$1" |
	   sed -e 's/"metrics\.[a-z_]*\.outliers_[ab]\.#",//g' -e 's/"counters\.changed\.#[^"]*",//g'; }
	# outliers and the counters that changed: lists, empty or not (a 16x change moves counters)
is "$(fields "$c")" "$(fields "$WORK/here/comparison.json")" \
	"comparison.json: the same fields as a local A/B's"
jqt "$WORK/big/ab.json" '.backend == "lava" and .lava.url == "'"$URL"'" and (.lava | has("token") | not) and .lava.serve == "127.0.0.1:0"'
ok $? "ab.json keeps the lab, the token's file and --lava-serve, not the token"
jqr "$c" .command | grep -qF -- "--backend lava --lava-url $URL --lava-token-file $TOKEN --lava-serve 127.0.0.1:0" &&
	! jqr "$c" .command | grep -qF "$(cat "$TOKEN")"
ok $? "the rerun line keeps the lab's options (not the token): $(jqr "$c" .command | grep -o -- '--backend.*')"
[ "$(grep -c "url: 'http://127.0.0.1:" "$(ls "$WORK"/big/runs/000-*/lava-job.yaml)")" = 30 ] &&
	! grep -q 'file://' "$WORK"/big/runs/[0-9]*/lava-job.yaml
ok $? "--lava-serve: every image of the 10 runs by http:// from kpair, none by file://"
! ls -d "$WORK"/kpair-serve-* >/dev/null 2>&1
ok $? "kpair's served-files directory is gone when it exits"
! grep -rqF "$(cat "$TOKEN")" "$WORK/big"
ok $? "the token is nowhere under the A/B's directory"
runs() { ls -d "$1"/runs/[0-9][0-9][0-9]-stock "$1"/runs/[0-9][0-9][0-9]-patched; }	# not .interrupted-*
is "$(for d in $(runs "$WORK/big"); do lava_id "$d"; done | sort -u | wc -l)" 1 \
	"the 10 runs were one LAVA job (--lava-runs-per-job 10, the default)"
is "$(for d in $(runs "$WORK/big"); do jq -r '"\(.part)/\(.runs)"' "$d/lava-job.json"; done | sort -n | tr '\n' ' ')" \
	"0/10 1/10 2/10 3/10 4/10 5/10 6/10 7/10 8/10 9/10 " "each run its own part of it, in the A/B's order"
is "$(cat "$WORK"/big/runs/[0-9]*/console.log | grep -o '"type":"hello".*"boot":"[^"]*"' | sed 's/.*"boot"://' | sort -u | wc -l)" 10 \
	"each run its own boot (10 boot_ids)"

# a job canceled in the lab mid-A/B, in its third run: that run failed with LAVA's word and is
# retried; the fourth, never booted, runs alone, not counted as a failure. The third run is
# seen by its QEMU on this host (the first worker's device), not in the job's log, which
# reaches the server seconds late (CI runs saw the cancel land after the third run, or the job)
booting() {	# booting ID K: job ID's log has its run K's boot (action 3K-1)
	api "jobs/$1/logs/" 2>/dev/null | grep -q "\"start: $((3 * $2 - 1)) "
}
qemus=
qemu_seen() {	# qemu_seen ID: $qemus, the QEMUs of LAVA job ID this host has seen (no subshell)
	local p
	for p in $(pgrep qemu-system-x86); do
		grep -q "/tmp/$1/" "/proc/$p/cmdline" 2>/dev/null && case " $qemus " in
			*" $p "*) ;;
			*) qemus="$qemus $p" ;;
		esac
	done
	return 0
}
ab cancel -n 2 "${LAVA[@]}" &
pid=$!
victim=
for _ in $(seq 1 3000); do
	victim=$(jq .id "$WORK"/cancel/runs/000-*/lava-job.json 2>/dev/null)
	[ -n "$victim" ] && qemu_seen "$victim" && [ $(echo $qemus | wc -w) -ge 3 ] && break
	sleep 0.02
done
[ -n "$victim" ] && api "jobs/$victim/cancel/" >/dev/null
ok $? "canceled LAVA job ${victim:-?} while the A/B's third run booted"
wait $pid
rc=$?
[ $rc -le 1 ] && jqt "$WORK/cancel/comparison.json" '.metrics.write_s.n_a == 2 and .metrics.write_s.n_b == 2'
ok $? "the A/B still has 2 runs a side (exit $rc)"
reason=$(grep -h '"reason"' "$WORK"/cancel/runs/*/result.json | grep "lava job $victim Canceled" | head -1)
[ -n "$victim" ] && [ -n "$reason" ]
ok $? "the canceled run failed with LAVA's word:$(echo "$reason" | sed 's/.*"reason": *//' | cut -c-80)"
is "$(jq '[.order[] | select(.status != "ok")] | length' "$WORK/cancel/comparison.json")" 1 \
	"one failed run in the order, retried; the run the job never booted is not a failure"
is "$(for d in $(runs "$WORK/cancel"); do lava_id "$d"; done | sort | uniq -c | awk '{print $1}' | sort -n | tr '\n' ' ')" \
	"1 1 3 " "runs 1-3 from the canceled job; the one it never booted and the retry a job each"

# kill kpair while LAVA runs the job of its A/B's 4 runs, then resume: no run is submitted again
# that the job booted; the one it could not (its initramfs was the killed kpair's open file)
# runs in a job of its own
"$KPAIR" ab "$job" --stock "$KERNEL" --patched "$KERNEL" --seed 7 --warmup 0 "${sets[@]}" \
	-n 2 "${LAVA[@]}" -o "$WORK/res" >"$WORK/res.out" 2>&1 &
pid=$!	# kpair itself, not a subshell: SIGKILL must reach it
for _ in $(seq 1 600); do
	left=$(jq .id "$WORK"/res/runs/000-*/lava-job.json 2>/dev/null)
	[ -n "$left" ] && booting "$left" 3 && break
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
! kill -0 $pid 2>/dev/null
ok $? "kpair SIGKILLed while LAVA job $left ran the A/B's third run"
for _ in $(seq 1 300); do [ "$(api "jobs/$left/" | jq -r .state)" = Finished ] && break; sleep 0.2; done
booted=$(api "jobs/$left/logs/" | grep -c '"lvl": "info", "msg": "start: [0-9]* boot-image-retry')
before=$(njobs)
"$KPAIR" resume "$WORK/res" >"$WORK/resume.out" 2>&1
rc=$?
[ $rc -le 1 ] && jqt "$WORK/res/comparison.json" '.metrics.write_s.n_a == 2 and .metrics.write_s.n_b == 2'
ok $? "resume finishes the A/B: 2 runs a side (exit $rc)"
[ $rc -le 1 ] || sed "s/^/#   /" "$WORK/resume.out"
is "$(($(njobs) - before))" "$((4 - booted))" \
	"resume submitted $((4 - booted)) jobs: none for the $booted runs job $left booted"
grep -q "lava job $left was submitted before kpair stopped: waiting for it again" "$WORK/resume.out" &&
	[ "$(for d in $(runs "$WORK/res"); do lava_id "$d"; done | grep -c "^$left\$")" = "$booted" ]
ok $? "the job running when kpair was killed ($left) was taken back: its $booted runs are its results"
total=$(for d in $(runs "$WORK/res"); do cat "$d/samples.jsonl"; done | grep -c '"type":"sample"')
is "$total" 16 "samples on disk: 4 runs x 4, none lost, none doubled"
# SIGTERM (or Ctrl-C's SIGINT) while kpair waits: the job is canceled in the lab, kpair ends by the
# signal (SIGTERM here: a script's background job starts with SIGINT ignored)
"$KPAIR" run -q -o "$WORK/int" "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" \
	>"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
for _ in $(seq 1 600); do [ -f "$WORK/int/lava-job.json" ] && break; sleep 0.1; done
iid=$(jq .id "$WORK/int/lava-job.json")
kill -TERM $pid
wait $pid
rc=$?
grep -q "Terminated: lava job $iid canceled" "$WORK/int.err" && [ $rc = 143 ]
ok $? "SIGTERM during the wait: kpair cancels lava job $iid and dies of the signal (exit $rc)"
for _ in $(seq 1 100); do [ "$(api "jobs/$iid/" | jq -r .state)" = Finished ] && break; sleep 0.2; done
is "$(api "jobs/$iid/" | jq -r .health)" Canceled "the lab has job $iid Canceled"
# a kernel that panics before the agent's hello: kpair's console scan sees it in LAVA's log
kpair_run panic "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" \
	--set "job.cmdline=rdinit=/nonexistent root=/dev/nonexistent"
is "$(jqr "$DIR/result.json" .status)" kernel-panic "a panic before hello: status kernel-panic, as here"
grep -q '^\[ *0\.0*\] Linux version' "$DIR/console.log" &&
	jqr "$DIR/result.json" .reason | grep -q '^Kernel panic - not syncing: VFS: Unable to mount root'
ok $? "the kernel's console from its first line is in console.log, the panic line the reason"
# a queue that never starts the job: the device in maintenance, a 5 s deadline
api_post() { curl -sf -H @"$WORK/auth" -H 'Content-Type: application/json' \
	-d "$2" "${URL}api/v0.2/$1"; }
api_post devices/kpair-qemu-01/set_health/ '{"health": "MAINTENANCE", "reason": "t-96"}' >/dev/null
kpair_run queue "$job" --kernel "$KERNEL" "${sets[@]}" "${LAVA[@]}" --lava-queue-timeout 5
api_post devices/kpair-qemu-01/set_health/ '{"health": "GOOD", "reason": "t-96"}' >/dev/null
qid=$(lava_id "$DIR")
[ "$(jqr "$DIR/result.json" .status)" = qemu-died ] &&
	jqr "$DIR/result.json" .reason | grep -q "lava job $qid given up: lava job $qid did not start within 5 s"
ok $? "a job the queue never starts: a failed run after --lava-queue-timeout ($(jqr "$DIR/result.json" .reason | cut -c-70))"
[ -n "$qid" ] && [ "$(api "jobs/$qid/" | jq -r .health)" = Canceled ]
ok $? "and kpair canceled it in the lab"
# the second worker shares nothing with kpair: its own network namespace (10.207.0.2) and mount
# namespace (tmpfs over kpair's tree, /tmp, the lab's directory); an A/B through it alone (the
# first worker's qemu-served device in maintenance) fetches everything over --lava-serve
w2=$(cat /run/kpair-lava/worker2.pid)
[ -z "$(nsenter -t "$w2" -m ls -A "$ROOT")" ] && ! nsenter -t "$w2" -m test -e "$WORK" &&
	[ "$(nsenter -t "$w2" -n ip -4 -o addr show | awk '{print $4}' | tr '\n' ' ')" = "127.0.0.1/8 10.207.0.2/24 " ]
ok $? "worker 2 sees none of kpair's files (its $ROOT is empty, no $WORK), its address 10.207.0.2"
SERVED=(--lava-device-type qemu-served --lava-serve 10.207.0.1:0)
lava-server manage devices update --health MAINTENANCE kpair-qemu-03 >/dev/null
ab ns -n 3 --patched-set params.size=64M "${LAVA[@]}" "${SERVED[@]}"
rc=$?
nsid=$(lava_id "$(ls -d "$WORK"/ns/runs/000-*)")
is "$rc/$(jqr "$WORK/ns/comparison.json" .metrics.write_s.verdict)/$(jqr "$WORK/ns/comparison.json" .metrics.read_s.verdict)" \
	1/regressed/regressed "an A/B through worker 2 alone: regressed, as through the first worker"
is "$(api "jobs/$nsid/" | jq -r .actual_device)" kpair-qemu-02 "its job ran on worker 2's device kpair-qemu-02"
# kill worker 2 mid-A/B (every process of its namespace: lava-worker, lava-run, QEMU) and bring it
# back: LAVA runs the job again and its log joins the second attempt onto the first; kpair takes
# each run from one boot (a run whose hello and done are two boots' fails and is retried)
ab kill -n 3 --patched-set params.size=64M "${LAVA[@]}" "${SERVED[@]}" &
pid=$!
kid=
for _ in $(seq 1 900); do
	kid=$(jq .id "$WORK"/kill/runs/000-*/lava-job.json 2>/dev/null)
	[ -n "$kid" ] && booting "$kid" 3 && break
	sleep 0.1
done
ip netns pids kpair-w2 | xargs -r kill -9
sleep 1
! ip netns pids kpair-w2 | grep -q . && [ "$(api "jobs/$kid/" | jq -r .state)" = Running ]
ok $? "worker 2 killed while LAVA job ${kid:-?} ran the A/B's third run (the lab still has it Running)"
"$ROOT/scripts/lava-lab-up" >/dev/null 2>"$WORK/lab2.err"
ok $? "scripts/lava-lab-up brings worker 2 back"
wait $pid
rc=$?
is "$rc/$(jqr "$WORK/kill/comparison.json" .metrics.write_s.verdict)/$(jqr "$WORK/kill/comparison.json" .metrics.read_s.verdict)" \
	1/regressed/regressed "the A/B finishes with the verdicts of the clean one: regressed, regressed"
jqt "$WORK/kill/comparison.json" '.metrics.write_s.n_a == 3 and .metrics.write_s.n_b == 3'
ok $? "3 runs a side, as asked ($(jq -r '[.order[] | .status] | group_by(.) | map("\(length) \(.[0])") | join(", ")' "$WORK/kill/comparison.json"))"
okruns() { for d in $(runs "$1"); do [ "$(jqr "$d/result.json" .status)" = ok ] && echo "$d"; done; }
is "$(for d in $(okruns "$WORK/kill"); do jq -r 'select(.type == "hello") | .boot' "$d/samples.jsonl"; done | sort -u | wc -l)" \
	6 "the 6 runs compared each from a boot of its own"
lava-server manage devices update --health GOOD kpair-qemu-03 >/dev/null
# -j 2 over both qemu-served devices, one on each worker: the same verdicts, jobs on both
ab two -n 3 -j 2 --patched-set params.size=64M "${LAVA[@]}" "${SERVED[@]}"
rc=$?
is "$rc/$(jqr "$WORK/two/comparison.json" .metrics.write_s.verdict)/$(jqr "$WORK/two/comparison.json" .metrics.read_s.verdict)" \
	1/regressed/regressed "-j 2 over two workers: regressed, regressed"
is "$(for d in $(runs "$WORK/two"); do api "jobs/$(lava_id "$d")/" | jq -r .actual_device; done | sort -u | tr '\n' ' ')" \
	"kpair-qemu-02 kpair-qemu-03 " "its jobs ran on both workers' devices"
is "$(jq -c '[.order[] | .side]' "$WORK/two/comparison.json")" "$(jq -c '[.order[] | .side]' "$WORK/ns/comparison.json")" \
	"the run order of the one-worker A/B (seed 7)"
# the second worker's network made again when only its host half is left (CI once stopped at
# "RTNETLINK answers: File exists": a veth left by a lab made from another root, its namespace's
# name gone): worker 2 and its namespace gone, a stale kpair-w2h in their place
ip netns pids kpair-w2 | xargs -r kill -9
ip netns del kpair-w2 && ip link add kpair-w2h type veth peer name kpair-w2x
"$ROOT/scripts/lava-lab-up" >/dev/null 2>"$WORK/lab3.err" &&
	[ "$(api "workers/kpair-worker-2/" | jq -r .state)" = Online ] &&
	ip -n kpair-w2 -4 -o addr show kpair-w2n | grep -q 10.207.0.2/ && ! ip link show kpair-w2x >/dev/null 2>&1
ok $? "lava-lab-up over a stale veth with no namespace: the pair made again, worker 2 Online" ||
	sed 's/^/#   /' "$WORK/lab3.err"
# a nightly through the lab: an A/A night (the same kernel both sides, 3 runs a side) passes
cat >"$WORK/t.nightly" <<EOT
[nightly]
name    = t96
results = $WORK/nl
jobs    = configs/jobs/smoke.job
runs    = 3
seed    = 5
set     = params.size=4M | disk.size=256M
backend = lava
[kernel]
package = debian:$KERNEL
[baseline]
rule    = pinned
kernel  = $KERNEL
EOT
"$KPAIR" nightly "$WORK/t.nightly" --date 2026-01-01 --lava-url "$URL" --lava-token-file "$TOKEN" \
	>"$WORK/nl.out" 2>"$WORK/nl.err"
rc=$?
is "$rc/$(jqr "$WORK/nl/2026-01-01/summary.json" '.entries[0].status')" 0/passed \
	"nightly with backend = lava: an A/A night passes"
is "$(find "$WORK/nl" -path '*/runs/*' -name result.json | while read -r f; do lava_id "${f%/result.json}"; done |
	sort -u | wc -l)" 2 "its 6 runs were one LAVA job, the warm-up boot another"
"$KPAIR" nightly "$WORK/t.nightly" --date 2026-01-02 --lava-url "$URL" --lava-token-file "$WORK/bad.token" \
	>"$WORK/nl2.out" 2>"$WORK/nl2.err"
[ $? = 2 ] && grep -q "refuses the token" "$WORK/nl2.err" && [ ! -d "$WORK/nl/2026-01-02" ]
ok $? "a nightly with a bad token: exit 2 before the night starts"
done_testing
