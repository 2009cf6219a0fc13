#!/usr/bin/env bash
# workloads: pread-partial, msync-async, dd, tar-extract in real guests, scaled
# down, each checked for what its samples must be (counts, bytes, times,
# histogram totals, file times, extracted tree vs the host's tarball, fsck)
. "$(dirname "$0")/lib.sh"
need_kernel
plan 47
J="$ROOT/configs/jobs"
# wl_scaled(v, permille, align): v * permille / 1000, rounded down to align
scaled() { local r=$(( $1 / 1000 * $2 + $1 % 1000 * $2 / 1000 )); echo $(( r - r % ${3:-1} )); }
val() { jqr "$DIR/result.json" ".samples.$1.values[${2:-0}]"; }
nvals() { jqr "$DIR/result.json" ".samples.$1.values | length"; }

# --- pread-partial, seed 000: ext3 with 1 KiB blocks at 2 % ---
kpair_run pread "$J/seed000-pread-ext3-1k.job" --kernel "$KERNEL" --set params.scale=20
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "pread: status ok (${SECS} s)"
fsz=$(scaled 536870912 20 1024)
is "$(val file_bytes)" "$fsz" "pread: file is 2 % of 512 MiB, io_size aligned"
is "$(val create_writes)" $((fsz / 1024)) "pread: file written with 1 KiB writes"
is "$(val pwrite_ops)" 6000 "pread: 2 % of 300000 pwrites"
is "$(val pread_ops)" 2000 "pread: 2 % of 100000 preads"
jqt "$r" '[.samples.create_s, .samples.remount_s, .samples.pwrite_s, .samples.pread_s] | map(.values[0] > 0) | all'
ok $? "pread: create, remount, pwrite and pread times positive"
is "$(jqr "$r" '[.samples | to_entries[] | select(.key | startswith("pread_lat_hist_")) | .value.values[0]] | add')" \
	2000 "pread: histogram buckets add up to pread_ops"
is "$(jqr "$r" '[.samples | keys[] | select(startswith("pread_lat_hist_"))] | length')" 26 \
	"pread: every histogram bucket sent (le_1us .. le_16777216us, gt)"
jqt "$r" '.samples as $s | [$s.pread_lat_min_us, $s.pread_lat_p50_us, $s.pread_lat_p90_us,
	$s.pread_lat_p99_us, $s.pread_lat_max_us] | map(.values[0]) | (.[0] > 0 and . == sort)'
ok $? "pread: 0 < min <= p50 <= p90 <= p99 <= max"
jqt "$r" '(.samples.pread_lat_mean_us.values[0] * .samples.pread_ops.values[0] / 1e6) <= .samples.pread_s.values[0]'
ok $? "pread: per-pread latencies fit inside the timed loop"
jqr "$r" .disk.mkfs | grep -q '^mkfs.ext3 -F -q -b 1024 .*scratch.img$'
ok $? "pread: fresh ext3 with 1 KiB blocks"
digest=$(val offset_digest)
kpair_run pread4k "$J/seed000-pread-ext3-1k.job" --kernel "$KERNEL" \
	--set disk.fs=ext4 --set disk.blocksize=4096 --set params.scale=20
is "$(jqr "$DIR/result.json" .status)" ok "pread: ext4 4 KiB blocks, status ok (${SECS} s)"
is "$(val offset_digest)" "$digest" "pread: same seed, same offsets on another fs"
kpair_run pread-seed2 "$J/seed000-pread-ext3-1k.job" --kernel "$KERNEL" --set params.scale=20 \
	--set job.seed=2 --set disk.fs=ext4 --set disk.blocksize=4096
[ "$(jqr "$DIR/result.json" .status)" = ok ] && [ "$(val offset_digest)" != "$digest" ]
ok $? "pread: another seed, other offsets (${SECS} s)"

# --- msync-async, seed 001: 5 % of 512 MiB ---
kpair_run msync "$J/seed001-msync-ext4.job" --kernel "$KERNEL" --set params.scale=50
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "msync: status ok (${SECS} s)"
msz=$(scaled 536870912 50 4096)
is "$(val file_bytes)" "$msz" "msync: file is 5 % of 512 MiB"
is "$(val dirty_pages)" $((msz / 4096)) "msync: every page dirtied"
is "$(nvals msync_us)" 3 "msync: three timed msync(MS_ASYNC) calls"
jqt "$r" '.samples.msync_us.values | map(. > 0) | all'
ok $? "msync: latencies positive"
for f in mtime_dirty_delta_us ctime_dirty_delta_us mtime_msync_delta_us ctime_msync_delta_us \
	mtime_changed ctime_changed; do
	is "$(nvals $f)" 3 "msync: $f for every call"
done
is "$(val mtime_changed 0)" 1 "msync: first dirtying of the mapping moved mtime"
jqt "$r" '.samples.mtime_changed.values + .samples.ctime_changed.values | map(. == 0 or . == 1) | all'
ok $? "msync: changed flags are 0 or 1"

# --- dd, seed 003: the published 51 x 1 MiB at full scale ---
kpair_run dd "$J/seed003-dd-ext2.job" --kernel "$KERNEL"
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "dd: status ok (${SECS} s)"
is "$(val dd_bytes)" 53477376 "dd: 51 MiB written"
is "$(val dd_blocks)" 51 "dd: 51 blocks"
jqt "$r" '.samples.dd_s.values[0] > 0 and ((.samples.dd_MBps.values[0] -
	.samples.dd_bytes.values[0] / 1e6 / .samples.dd_s.values[0]) | fabs) < 0.01'
ok $? "dd: seconds positive, MB/s = bytes / 1e6 / seconds"
jqr "$r" .disk.mkfs | grep -q '^mkfs.ext2 '
ok $? "dd: fresh ext2"

# --- tar-extract, seed 003: 10 % of the tree, ext2 then xfs ---
shape="tree-v2-s7-f250-d25-b1782579"
rm -f "$ROOT/images/tarballs/$shape.tar" "$ROOT/images/tarballs/$shape.json"
kpair_run tar "$J/seed003-tar-ext2.job" --kernel "$KERNEL" --set params.scale=100 \
	--set job.seed=7 --keep-disk
r="$DIR/result.json"
is "$(jqr "$r" .status)" ok "tar: status ok (${SECS} s)"
m="$DIR/input.json"
is "$(jqr "$m" .key)" "$shape" "tar: the tarball is keyed by seed and scaled shape"
is "$(val tar_files)" "$(jqr "$m" .files)" "tar: files extracted = files generated ($(jqr "$m" .files))"
is "$(val tar_dirs)" "$(jqr "$m" .dirs)" "tar: dirs extracted = dirs generated ($(jqr "$m" .dirs))"
is "$(val tar_bytes)" "$(jqr "$m" .bytes)" "tar: bytes extracted = bytes generated"
is "$(val archive_bytes)" "$(stat -c %s "$ROOT/images/tarballs/$shape.tar")" "tar: whole archive read"
jqt "$r" '.samples.tar_s.values[0] > 0 and .samples.sync_s.values[0] >= 0'
ok $? "tar: extraction time positive"
e2fsck -fn "$DIR/scratch.img" >"$WORK/fsck.out" 2>&1
ok $? "tar: e2fsck -fn on the host: clean"
grep -q "^$DIR/scratch.img: $(( $(jqr "$m" .files) + $(jqr "$m" .dirs) + 11 ))/" "$WORK/fsck.out"
ok $? "tar: the fs holds files + dirs + 11 reserved inodes"
mkdir -p "$WORK/host" "$WORK/guest"
tar xf "$ROOT/images/tarballs/$shape.tar" -C "$WORK/host" &&
	debugfs -R "rdump /srctree-7 $WORK/guest" "$DIR/scratch.img" >/dev/null 2>&1 &&
	diff -r "$WORK/host/srctree-7" "$WORK/guest/srctree-7" >/dev/null
ok $? "tar: the guest's tree has the same contents as the host's tar xf"
[ "$(stat -c %Y "$WORK/host/srctree-7")" = "$(debugfs -R 'stat /srctree-7' "$DIR/scratch.img" 2>/dev/null |
	sed -n 's/^ *mtime: 0x\([0-9a-f]*\).*/\1/p' | head -1 | xargs -I{} printf '%d' 0x{})" ]
ok $? "tar: directory mtime kept (set after its contents)"
sha=$(jqr "$m" .sha256)
rm -rf "$DIR/scratch.img" "$ROOT/images/tarballs/$shape.tar" "$ROOT/images/tarballs/$shape.json"
kpair_run tar-xfs "$J/seed003-tar-ext2.job" --kernel "$KERNEL" --set params.scale=100 \
	--set job.seed=7 --set disk.fs=xfs --keep-disk
is "$(jqr "$DIR/result.json" .status)" ok "tar: on xfs, status ok (${SECS} s)"
is "$(jqr "$DIR/input.json" .sha256)" "$sha" "tar: regenerated tarball has the same bytes (deterministic)"
is "$(val tar_files)" "$(jqr "$DIR/input.json" .files)" "tar: on xfs, every file extracted"
xfs_repair -n -f "$DIR/scratch.img" >"$WORK/repair.out" 2>&1
ok $? "tar: xfs_repair -n on the host: clean"
rm -f "$DIR/scratch.img"
done_testing
