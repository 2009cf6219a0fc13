#!/usr/bin/env bash
# parameter and disk errors of the published workloads are clear errors
# before anything is made or booted: exit 2, one line naming what is wrong,
# no run directory, well under a second
. "$(dirname "$0")/lib.sh"
need_kernel
plan 27
J="$ROOT/configs/jobs"

# refused JOB "PATTERN" [--set ...]
refused() {
	local job=$1 pat=$2 t0 ms rc
	shift 2
	t0=$(date +%s%N)
	"$KPAIR" run -q -o "$WORK/never" --kernel "$KERNEL" "$J/$job" "$@" >/dev/null 2>"$WORK/err"
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	is "$rc" 2 "$job $*: exit 2"
	grep -q -- "$pat" "$WORK/err"
	ok $? "$job: says '$pat'"
	[ ! -e "$WORK/never" ] && [ $ms -lt 1000 ]
	ok $? "$job: nothing made, rejected in ${ms} ms"
	[ -s "$WORK/err" ] && sed 's/^/#   /' "$WORK/err" | head -n 2
}

refused seed000-pread-ext3-1k.job "params.pread_count: '0': must not be zero" --set params.pread_count=0
refused seed004-fio-xfs.job "mkfs.xfs refuses blocks under 1024 bytes" --set disk.blocksize=512
refused seed000-pread-ext3-1k.job "file_size of 4294967296 bytes does not fit a 2147483648-byte ext3 disk" \
	--set params.file_size=4G
refused seed004-fio-ext4.job "blocks larger than a page" --set disk.blocksize=65536
refused seed000-pread-ext3-1k.job "file_size 1048577 is not a multiple of io_size 1024" \
	--set params.file_size=1048577
refused seed004-fio-ext4.job "size 1000000 is not a multiple of bs" --set params.size=1000000
refused seed003-dd-ext2.job "needs a filesystem" --set disk.fs=none
refused seed001-msync-ext4.job "dirty_pages 200000 is more than the file's 131072 pages" \
	--set params.dirty_pages=200000
refused seed003-tar-ext2.job "params.scale: '0': must not be zero" --set params.scale=0
done_testing
