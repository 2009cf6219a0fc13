#!/usr/bin/env bash
# golden: kpair export kcidb on the example run (results/examples/smoke-ext4) is valid against
# the real KCIDB v5.0 schema (tests/golden/kcidb-io-schema-v5.0.json, exported from kernelci's
# kcidb-io) and carries every sample; broken result files are errors naming file and field;
# export lava refuses what LAVA's QEMU command line cannot carry. No guest is booted.
. "$(dirname "$0")/../boot/lib.sh"
plan 21
EX="$ROOT/results/examples/smoke-ext4"
valid() { kcidb_valid "$@"; }	# lib.sh: against the KCIDB v5.0 schema

"$KPAIR" export kcidb "$EX" -o "$WORK/run.json" >"$WORK/run.out" 2>&1
ok $? "export kcidb of a run directory"
valid "$WORK/run.json"
ok $? "valid against the KCIDB v5.0 schema"
# and the validator does reject what the schema forbids
jq '.tests[0].status = "OK"' "$WORK/run.json" >"$WORK/not.json"
! valid "$WORK/not.json" >/dev/null
ok $? "the schema check rejects a made-up status"
is "$(jqr "$WORK/run.json" '.version.major, .version.minor' | tr '\n' ' ')" "5 0 " "version 5.0"
is "$(jqr "$WORK/run.json" '[.checkouts[], .builds[], .tests[] | .id | startswith("kpair:")] | all')" true \
	"every id is kpair:..."
rid=$(jqr "$EX/result.json" .run_id)
t=".tests[] | select(.id == \"kpair:$rid\")"
is "$(jqr "$WORK/run.json" "$t | .status + \" \" + .path")" "PASS kpair.smoke" "the run: PASS, path kpair.smoke"
is "$(jqr "$WORK/run.json" "$t | .build_id")" "$(jqr "$WORK/run.json" '.builds[0].id')" "the run names its build"
is "$(jqr "$WORK/run.json" '.builds[0].checkout_id')" "$(jqr "$WORK/run.json" '.checkouts[0].id')" \
	"the build names its checkout"
is "$(jqr "$WORK/run.json" '.builds[0].architecture')" x86_64 "architecture x86_64 (kernel.arch amd64)"
# every raw sample, as samples.jsonl has it
is "$(jq -c "$t | .misc.samples" "$WORK/run.json")" "$(jq -sc 'map(select(.type == "sample"))' "$EX/samples.jsonl")" \
	"the run's misc.samples are samples.jsonl's sample records"
for m in write_s read_s write_bytes read_bytes; do
	is "$(jqr "$WORK/run.json" ".tests[] | select(.path == \"kpair.smoke.$m\") | \"\(.status) \(.number.value) \(.number.unit)\"")" \
		"DONE $(jqr "$EX/result.json" ".samples.$m.values[0]") $(jqr "$EX/result.json" ".samples.$m.unit")" \
		"$m: a DONE test with the run's value and unit"
done

# bad input: the error names the file and the field (or line), exit 2
bad() {	# bad NAME WANT-IN-STDERR: export $WORK/NAME, expect exit 2 and the message
	"$KPAIR" export kcidb "$WORK/$1" -o "$WORK/$1.json" >/dev/null 2>"$WORK/$1.err"
	local rc=$?
	[ $rc -eq 2 ] && grep -qF -- "$2" "$WORK/$1.err" && [ ! -e "$WORK/$1.json" ]
	ok $? "$1: exit 2, '$2'"
	[ $rc -eq 2 ] || echo "#   exit $rc: $(cat "$WORK/$1.err")"
}
mk() { mkdir -p "$WORK/$1" && cp "$EX"/result.json "$EX"/samples.jsonl "$WORK/$1/"; }
mk no-kernel-id
jq 'del(.kernel.id)' "$EX/result.json" >"$WORK/no-kernel-id/result.json"
bad no-kernel-id "no-kernel-id/result.json': kernel.id: missing"
mk bad-status
jq '.status = "fine"' "$EX/result.json" >"$WORK/bad-status/result.json"
bad bad-status "bad-status/result.json': status: 'fine' is not a kpair run status"
mk records
jq '.records = 3' "$EX/result.json" >"$WORK/records/result.json"
bad records "records/samples.jsonl': 4 sample records, but"
mk garbage
printf '{"type":"sample","seq":5,"metric":"x","unit":"s"}\n' >>"$WORK/garbage/samples.jsonl"
bad garbage "garbage/samples.jsonl':7: sample record:"
mk truncated
head -c 100 "$EX/result.json" >"$WORK/truncated/result.json"
bad truncated "truncated/result.json': line"
bad nonexistent "nonexistent': No such file or directory"

"$KPAIR" export lava "$ROOT/configs/jobs/smoke.job" --set 'job.cmdline=init="/x"' -o "$WORK/lava" \
	>/dev/null 2>"$WORK/lava.err"
[ $? -eq 2 ] && grep -q "job.cmdline: .*quotes" "$WORK/lava.err" && [ ! -e "$WORK/lava/job.yaml" ]
ok $? "export lava: a quote in job.cmdline is refused before anything is made"
done_testing
