#!/usr/bin/env bash
# git sources: a developer's tree (scripts/test-linux-git: linux-source-6.1 as commit 'base',
# then 'uname', a one-line change, then 'slow' and 'comment') and their own whole .config with
# virtio, ext4 and xfs as modules. Bad input is refused before any build; an A/B of two
# revisions runs end to end, the second side an incremental build in the shared O=;
# kernel.json records the commits, git describe, the dirty tree and the options kpair forced;
# modules stay modules and the guest loads them; a whole Debian config goes through
# olddefconfig (config only); the user's tree, index, HEAD and stash are left as they were.
# The first side's build takes ~5 min on 2 cores (cached in images/ afterwards).
. "$(dirname "$0")/lib.sh"
need_kernel
plan 21
repo=$(test_repo)
user_config "$repo" "$WORK/user.config"
job="$ROOT/configs/jobs/smoke.job"
# the user has work in progress: an untracked file (kpair records the tree dirty, builds commits)
echo "work in progress" >"$repo/kpair-test-untracked"
trap 'rm -f "$repo/kpair-test-untracked"; rm -rf "$WORK" "$notgit"' EXIT
tree_state "$repo" >"$WORK/state.before"
nkernels() { ls "$ROOT/images/kernels" 2>/dev/null | wc -l; }
n0=$(nkernels)

notgit=$(mktemp -d)
"$KPAIR" ab "$job" --source "$notgit" --stock base --patched uname >/dev/null 2>"$WORK/e1"
rc=$?
[ $rc = 2 ] && grep -q "not a git tree" "$WORK/e1"
ok $? "a --source that is not a git tree: usage error ($(head -1 "$WORK/e1"))"
t0=$(date +%s)
"$KPAIR" ab "$job" --source "$repo" --stock base --patched no-such-branch >/dev/null 2>"$WORK/e2"
rc=$?
[ $rc = 2 ] && grep -q "revision 'no-such-branch' does not exist" "$WORK/e2" &&
	[ $(( $(date +%s) - t0 )) -lt 10 ] && [ "$(nkernels)" = "$n0" ] && ! grep -q "^build: " "$WORK/e2"
ok $? "an unknown revision: usage error before anything is built ($(head -1 "$WORK/e2"))"
sed 's/^CONFIG_X86_64=y$/# CONFIG_X86_64 is not set/; s/^CONFIG_64BIT=y$/CONFIG_ARM64=y/' \
	"$WORK/user.config" >"$WORK/arm64.config"
"$KPAIR" ab "$job" --source "$repo" --stock base --patched uname --config "$WORK/arm64.config" \
	>/dev/null 2>"$WORK/e3"
rc=$?
[ $rc = 2 ] && grep -q "is for architecture 'arm64', target 'x86_64' wants 'amd64'" "$WORK/e3"
ok $? "a config for another architecture: usage error ($(head -1 "$WORK/e3"))"

"$KPAIR" ab "$job" --source "$repo" --stock base --patched uname --config "$WORK/user.config" \
	-n 3 --set params.size=4M -o "$WORK/ab" >"$WORK/ab.out" 2>"$WORK/ab.err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ]
ok $? "ab of two revisions runs end to end (exit $rc)"
[ $rc = 0 ] || [ $rc = 1 ] || tail -20 "$WORK/ab.err" | sed 's/^/#   /'
stock=$(awk '$1 == "base" { print $2 }' "$WORK/ab.out")
patched=$(awk '$1 == "uname" { print $2 }' "$WORK/ab.out")
[ -n "$stock" ] && [ -n "$patched" ] && [ "$stock" != "$patched" ] && [ -f "$WORK/ab/comparison.json" ]
ok $? "two kernels ($stock, $patched) and a comparison.json"
ks="$ROOT/images/kernels/$stock/kernel.json"
kp="$ROOT/images/kernels/$patched/kernel.json"
[ "$(jqr "$ks" .source.git.commit)" = "$(git -C "$repo" rev-parse base)" ] &&
	[ "$(jqr "$kp" .source.git.commit)" = "$(git -C "$repo" rev-parse uname)" ] &&
	[ "$(jqr "$kp" .source.git.rev)" = uname ] && jqt "$kp" '.source.git.describe | startswith("uname")'
ok $? "kernel.json: both commit ids, the revision names and git describe ($(jqr "$kp" .source.git.describe))"
jqt "$kp" '.source.git.dirty == true'
ok $? "kernel.json records that the user's tree was dirty"
jqt "$kp" '.source.config.kind == "whole" and ([.source.config.forced[].option] | index("PVH") != null)' &&
	grep -q "kpair forced .* option.* onto config '$WORK/user.config' for target x86_64: .*PVH=y (was unset)" "$WORK/ab.err"
ok $? "the options kpair forced are in kernel.json and printed ($(jqr "$kp" '.source.config.forced | length') options)"
bs=$(jqr "$ks" .source.build_s)
bp=$(jqr "$kp" .source.build_s)
# a full build of this config takes 280-380 s here; the one-line commit's rebuild 27 s
[ "$(echo "$bp < 100" | bc)" = 1 ]
ok $? "the second side rebuilt only what the commit changed: ${bp} s (the first side: ${bs} s; make bench has the ratio)"
rel=$(jqr "$kp" .release)
m="$ROOT/images/kernels/$patched/lib/modules/$rel"
grep -q '^CONFIG_EXT4_FS=m$' "$ROOT/images/kernels/$patched/config" &&
	grep -q '^CONFIG_VIRTIO_BLK=m$' "$ROOT/images/kernels/$patched/config" &&
	[ -f "$m/kernel/fs/ext4/ext4.ko" ] && [ -s "$m/modules.dep" ] && [ "$(jqr "$kp" .modules)" = lib/modules ] &&
	[ ! -e "$m/build" ]
ok $? "modules stay modules: installed into the store with modules.dep ($m)"
r=$(ls -d "$WORK"/ab/runs/[0-9]*-patched 2>/dev/null | head -1)/result.json
jqt "$r" '[.initramfs.modules[] | select(test("ext4.ko|virtio_blk.ko"))] | length == 2' &&
	jqt "$r" '.times.modules_s > 0'
ok $? "the guest loaded them from the initramfs ($(jqr "$r" .times.modules_s) s)"
case "$(jqr "$r" .guest.version)" in *kpair-bisect-demo*) r1=0 ;; *) r1=1 ;; esac
rs=$(ls -d "$WORK"/ab/runs/[0-9]*-stock 2>/dev/null | head -1)/result.json
case "$(jqr "$rs" .guest.version)" in *kpair-bisect-demo*) r2=1 ;; *) r2=0 ;; esac
[ $r1 = 0 ] && [ $r2 = 0 ]
ok $? "the patched guest runs the 'uname' commit, the stock guest does not ($(jqr "$r" .guest.version))"

t0=$(date +%s%N)
"$KPAIR" ab "$job" --source "$repo" --stock base --patched uname --config "$WORK/user.config" \
	-n 3 --set params.size=4M -o "$WORK/ab" >"$WORK/ab2.out" 2>"$WORK/ab2.err"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$(grep -c "is cached" "$WORK/ab2.err")" = 2 ] && [ "$(awk '$1 == "uname" { print $2 }' "$WORK/ab2.out")" = "$patched" ]
ok $? "the same revisions again: both cached, the same ids (${ms} ms with the A/B on disk)"

objcfg() { md5sum "$ROOT"/images/build/git-test-linux-*-x86_64/obj/.config 2>&1; }
obj_before=$(objcfg)
t0=$(date +%s)
"$KPAIR" kernel build --source "$repo" --rev base --config debian:6.1.0-57-amd64 --config-only \
	>"$WORK/deb.out" 2>"$WORK/deb.err"
rc=$?
secs=$(( $(date +%s) - t0 ))
cfg=$(awk '$1 == "config" { print $2 }' "$WORK/deb.out")
[ $rc = 0 ] && [ -f "$cfg" ] && grep -q '^CONFIG_VIRTIO_BLK=m$' "$cfg" && grep -q '^CONFIG_XFS_FS=m$' "$cfg" &&
	grep -q '^CONFIG_PVH=y$' "$cfg" && grep -q '^CONFIG_MODULES=y$' "$cfg"
ok $? "Debian's whole amd64 config through olddefconfig, modules kept modules (${secs} s): $(cat "$WORK/deb.out")"
grep -q '(0 options forced)' "$WORK/deb.out" && grep -q '^CONFIG_DEBUG_INFO_BTF=y$' "$cfg" &&
	grep -q '^CONFIG_ACPI=y$' "$cfg"
ok $? "Debian's config meets every requirement as it is: nothing forced, nothing else changed"
# a config from a distro's own build tree names its certificate file, which this tree lacks
sed 's|^CONFIG_SYSTEM_TRUSTED_KEYRING=y$|&\nCONFIG_SYSTEM_TRUSTED_KEYS="debian/certs/debian-uefi-certs.pem"|' \
	"$ROOT/images/kernels/6.1.0-57-amd64/config" >"$WORK/distro-tree.config"
"$KPAIR" kernel build --source "$repo" --rev base --config "$WORK/distro-tree.config" --config-only \
	>"$WORK/deb2.out" 2>"$WORK/deb2.err"
cfg2=$(awk '$1 == "config" { print $2 }' "$WORK/deb2.out")
grep -q 'kpair forced 1 option onto .*SYSTEM_TRUSTED_KEYS="" (was "debian/certs/debian-uefi-certs.pem")' "$WORK/deb2.err" &&
	grep -q '^CONFIG_SYSTEM_TRUSTED_KEYS=""$' "$cfg2"
ok $? "a certificate file the tree lacks is forced empty, and said: $(grep -o 'kpair forced.*' "$WORK/deb2.err")"
[ "$(objcfg)" = "$obj_before" ] && [ "${cfg%/config-only/.config}" != "$cfg" ]
ok $? "--config-only leaves the builds' object directory alone"

t0=$(date +%s)
"$KPAIR" kernel build --source "$repo" --rev broken --config "$WORK/user.config" >/dev/null 2>"$WORK/broken.err"
rc=$?
secs=$(( $(date +%s) - t0 ))
[ $rc = 3 ] && grep -q "the build of revision 'broken' ($(git -C "$repo" rev-parse --short=12 broken)) failed; the last lines of .*build.log" "$WORK/broken.err" &&
	grep -q "kpair_test_does_not_compile" "$WORK/broken.err"
ok $? "a revision that does not build: exit 3, naming it, with the log's last lines (${secs} s)"
! ls "$ROOT/images/kernels" | grep -q "^git-test-linux-$(git -C "$repo" rev-parse --short=12 broken)-"
ok $? "and nothing of it is stored"

tree_state "$repo" >"$WORK/state.after"
diff "$WORK/state.before" "$WORK/state.after" >"$WORK/state.diff"
ok $? "the user's tree is as it was: status, HEAD, index, stash, worktrees"
[ -s "$WORK/state.diff" ] && sed 's/^/#   /' "$WORK/state.diff"
git -C "$repo" fsck --connectivity-only --no-progress >/dev/null 2>&1
ok $? "and its repository is sound (git fsck)"
done_testing
