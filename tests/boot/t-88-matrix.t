#!/usr/bin/env bash
# every shipped job on every kind of kernel kpair makes or takes: Debian's package, kpair's
# default build of linux-source-6.1 (built by t-70), a git revision built without --config, and
# an imported build (kpair's default build's image and config, taken in by kernel import); each job of configs/jobs and each fio file of
# configs/fio at a reduced size runs ok, and its run exports to KCIDB (valid against the schema)
# and to LAVA (or is refused, naming what LAVA cannot carry). Then a kernel that lacks what a
# job needs (kpair's build from before configs/kconfig/workloads.config: no System V IPC, no
# 9p) stops run and ab before the first boot, naming the option.
. "$(dirname "$0")/lib.sh"
need_kernel
repo=$(test_repo)
# reduced ARGS of a job: real time (the seed jobs' icount mode costs some 12 s of wall time a
# run and says nothing about a kernel's config), a 512 MiB scratch disk, the seed jobs at a small
# scale, stress-ng with few ops, smoke 4 MiB
small() {
	echo "--set job.mode=wallclock --set disk.size=512M"
	case "$(sed -n 's/^workload *= *//p' "$1" 2>/dev/null)" in
	smoke) echo "--set params.size=4M" ;;
	pread-partial) echo "--set params.scale=20" ;;
	msync-async) echo "--set params.scale=50" ;;
	tar-extract) echo "--set params.scale=100" ;;
	fio|fio-randwrite) echo "--set params.scale=50" ;;
	stress-ng) echo "--set params.ops=200" ;;
	esac
}
jobs=("$ROOT"/configs/jobs/*.job "${ROOT}"/configs/fio/*.fio)
kinds=(debian build git import)
plan $(( ${#kinds[@]} * (${#jobs[@]} * 2 + 1) + 6 ))

# the four kernels
k_debian=$KERNEL
k_build=$("$KPAIR" kernel build --source linux-source-6.1 2>"$WORK/build.err" | awk '{ print $1 }')
k_git=$("$KPAIR" kernel build --source "$repo" --rev base 2>"$WORK/git.err" | awk '{ print $1 }')
b="$ROOT/images/kernels/$k_build"
k_import=$("$KPAIR" kernel import --image "$b/vmlinuz" --config "$b/config" 2>"$WORK/import.err" |
	tail -1)
for kind in "${kinds[@]}"; do
	v=k_$kind
	id=${!v}
	[ -n "$id" ] && [ -f "$ROOT/images/kernels/$id/kernel.json" ]
	ok $? "kernel of kind $kind: ${id:-none} ($(grep -h '^build: .* built in' "$WORK/$kind.err" 2>/dev/null || echo cached))"
	[ -n "$id" ] || sed 's/^/#   /' "$WORK/$kind.err" 2>/dev/null
done

# one job on one kernel, in the background: its run, its KCIDB and its LAVA export; the outcome
# goes to $WORK/<kind>-<name>.res as "run-rc status secs|kcidb-rc|lava-rc|lava-why|reason"
one() {
	local kind=$1 id=$2 j=$3 name spec t0 rc st kc lc
	name=$(basename "${j%.*}")
	spec=$j
	case "$j" in *.fio) spec="fio:$j" ;; esac
	t0=$(date +%s.%N)
	# shellcheck disable=SC2046
	"$KPAIR" run -q -o "$WORK/$kind-$name" "$spec" --kernel "$id" $(small "$j") >/dev/null 2>&1
	rc=$?
	st=$(jqr "$WORK/$kind-$name/result.json" .status 2>/dev/null)
	"$KPAIR" export kcidb "$WORK/$kind-$name" -o "$WORK/$kind-$name.k.json" >/dev/null 2>&1 &&
		kcidb_valid "$WORK/$kind-$name.k.json" >/dev/null
	kc=$?
	# shellcheck disable=SC2046
	"$KPAIR" export lava "$spec" --kernel "$id" $(small "$j") -o "$WORK/$kind-$name.lava" \
		>/dev/null 2>"$WORK/$kind-$name.lava.err"
	lc=$?
	printf '%s %s %.1f|%s|%s|%s|%s\n' "$rc" "$st" "$(echo "$(date +%s.%N) - $t0" | bc)" "$kc" "$lc" \
		"$(sed 's/.*needs a host-made //' "$WORK/$kind-$name.lava.err" | head -1 | cut -c1-40)" \
		"$(jqr "$WORK/$kind-$name/result.json" .reason 2>/dev/null | cut -c1-200)" >"$WORK/$kind-$name.res"
	grep -q "which export lava does not carry" "$WORK/$kind-$name.lava.err" && echo refused >>"$WORK/$kind-$name.res"
	rm -rf "$WORK/$kind-$name" "$WORK/$kind-$name.lava"
}

# two at a time (two cores): the runs are checked for what they can do, not timed
for kind in "${kinds[@]}"; do
	v=k_$kind
	id=${!v}
	t0=$(date +%s)
	for j in "${jobs[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
		one "$kind" "$id" "$j" &
	done
	wait
	for j in "${jobs[@]}"; do
		name=$(basename "${j%.*}")
		IFS='|' read -r run kc lc lwhy reason <"$WORK/$kind-$name.res"
		refused=$(sed -n 2p "$WORK/$kind-$name.res")
		is "${run% *}" "0 ok" "$kind: $name runs ok (${run##* } s)"
		[ "${run%% *}" = 0 ] || echo "#   $reason"
		[ "$kc" = 0 ] && { [ "$lc" = 0 ] || { [ "$lc" = 2 ] && [ "$refused" = refused ]; }; }
		ok $? "$kind: $name exports: KCIDB valid, LAVA $([ "$lc" = 0 ] && echo written || echo "refused: $lwhy")"
	done
	ok 0 "$kind: ${#jobs[@]} jobs in $(( $(date +%s) - t0 )) s, two at a time"
done

# a kernel without what the job needs (its config as kpair's builds were before workloads.config:
# no System V IPC, no 9p; taken into the store by kernel import): refused before the first boot
old="$WORK/old.config"
sed '/^CONFIG_SYSVIPC=/d; /^CONFIG_NET_9P/d; /^CONFIG_9P_FS/d' "$b/config" >"$old"
echo "# CONFIG_SYSVIPC is not set" >>"$old"
k_lack=$("$KPAIR" kernel import --image "$b/vmlinuz" --config "$old" 2>"$WORK/lack.err" | tail -1)
"$KPAIR" run "fio:$ROOT/configs/fio/randread-4k.fio" --kernel "$k_lack" -o "$WORK/lack-run" >"$WORK/lack-run.out" 2>&1
rc=$?
[ $rc = 3 ] && jqr "$WORK/lack-run/result.json" .reason | grep -q "does not set CONFIG_SYSVIPC, which fio-job needs" &&
	[ ! -e "$WORK/lack-run/console.log" ]
ok $? "run: a kernel without CONFIG_SYSVIPC: setup-failed before boot, naming it (exit $rc)"
"$KPAIR" ab "$ROOT/configs/jobs/stress-ng-pipe.job" --stock "$k_lack" --patched "$k_debian" \
	-o "$WORK/lack-ab" >"$WORK/lack-ab.out" 2>"$WORK/lack-ab.err"
rc=$?
[ $rc = 2 ] && grep -q "stock side: kernel '$k_lack' does not set CONFIG_NET_9P, which stress-ng needs" "$WORK/lack-ab.err" &&
	[ ! -d "$WORK/lack-ab/runs" ]
ok $? "ab: stops before the first boot, naming the option and the side (exit $rc)"
[ -n "$k_lack" ] && rm -rf "$ROOT/images/kernels/$k_lack"
done_testing
