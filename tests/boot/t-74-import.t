#!/usr/bin/env bash
# kernel import: a kernel built by hand with the kernel's own make (an O= directory beside the
# source, the whole .config kpair's build of the test repository's 'base' with the user's config
# used: virtio, ext4 and xfs as modules) is checked and taken into the store as it is, boots and
# loads its modules; the same files again are a cache hit, in either form (the build directory,
# or --image + --modules from make modules_install + --config); bad imports are refused with the
# reason. The hand build compiles through ccache as kpair's builds do (CC="ccache gcc", the
# project's images/ccache, base_dir the directory over src and obj), so after t-72-git.t, which
# builds 'base' with that config, most of its objects are cache hits; alone it takes ~7 min
# on 2 cores (kept in images/ afterwards).
. "$(dirname "$0")/lib.sh"
need_kernel
plan 13
repo=$(test_repo)
top="$ROOT/images/test-hand-build"
hand="$top/obj"
# the hand build's recipe version: a change below makes it anew
ver=3
if [ "$(cat "$top/.kpair-test-done" 2>/dev/null)" != "$ver" ]; then
	rm -rf "$top"
	user_config "$repo" "$WORK/user.config"
	base=$("$KPAIR" kernel build --source "$repo" --rev base --config "$WORK/user.config" \
		2>"$WORK/base.err" | awk '{ print $1 }')
	[ -f "$ROOT/images/kernels/$base/config" ] ||
		{ echo "Bail out! no build of base: $(tail -3 "$WORK/base.err")"; exit 1; }
	mkdir -p "$top/src" "$hand"
	# the user's own steps: the sources, their config, then make -C tree O=dir, as the
	# kernel documents, with ccache as CC
	git -C "$repo" archive base | tar -x -C "$top/src"
	cp "$ROOT/images/kernels/$base/config" "$hand/.config"
	cc=(CC="ccache gcc")
	if ! command -v ccache >/dev/null; then cc=(); fi
	export CCACHE_DIR="$ROOT/images/ccache" CCACHE_BASEDIR="$top"
	ccache -z >/dev/null 2>&1
	make -s -C "$top/src" O="$hand" "${cc[@]}" olddefconfig >/dev/null 2>&1 &&
		make -s -C "$top/src" O="$hand" "${cc[@]}" -j2 bzImage modules >"$WORK/hand.log" 2>&1 &&
		make -s -C "$top/src" O="$hand" "${cc[@]}" modules_install INSTALL_MOD_PATH="$hand/mods" \
			>>"$WORK/hand.log" 2>&1 &&
		echo "$ver" >"$top/.kpair-test-done" ||
		{ echo "Bail out! the hand build failed: $(tail -5 "$WORK/hand.log")"; exit 1; }
	unset CCACHE_DIR CCACHE_BASEDIR
	echo "# the hand build: $(grep -c . "$WORK/hand.log") lines of log, ccache: $(CCACHE_DIR="$ROOT/images/ccache" ccache -s 2>/dev/null | grep -m1 'Hits:' | tr -s ' ')"
fi
rel=$(cat "$hand/include/config/kernel.release")

t0=$(date +%s%N)
"$KPAIR" kernel import "$hand" >"$WORK/imp.out" 2>"$WORK/imp.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
id=$(tail -1 "$WORK/imp.out")
is "$rc" 0 "kernel import of the hand-built O= directory ($id, ${ms} ms)"
kj="$ROOT/images/kernels/$id/kernel.json"
jqt "$kj" ".source.type == \"import\" and .release == \"$rel\" and .arch == \"amd64\" and .page_size == 4096" &&
	jqt "$kj" '(.source.image_sha256 | length) == 64 and .source.path != null and .modules == "lib/modules"' &&
	[ "$(sha256sum <"$hand/arch/x86/boot/bzImage" | cut -d' ' -f1)" = "$(jqr "$kj" .source.image_sha256)" ]
ok $? "kernel.json: source path, image sha256, release $rel, arch, page size, modules"
m="$ROOT/images/kernels/$id/lib/modules/$rel"
[ -f "$m/kernel/fs/ext4/ext4.ko" ] && [ -f "$m/kernel/drivers/block/virtio_blk.ko" ] && grep -q ext4 "$m/modules.dep"
ok $? "its modules, from modules.order, with depmod's modules.dep"
is "$("$KPAIR" kernel list | awk -v id="$id" '$1 == id { print $4 " " $5 }')" "import $rel" \
	"kernel list: the imported kernel's source and release"
[ "$(find "$hand" -newer "$top/.kpair-test-done" -type f ! -path "$hand/mods/*" | wc -l)" = 0 ]
ok $? "nothing was rebuilt in the build directory"

kpair_run smoke "$ROOT/configs/jobs/smoke.job" --kernel "$id" --set params.size=4M
is "$RC" 0 "the imported kernel boots and runs the smoke job (${SECS} s)"
[ "$(jqr "$DIR/result.json" .guest.release)" = "$rel" ] &&
	jqt "$DIR/result.json" '[.initramfs.modules[] | select(test("ext4.ko|virtio_blk.ko"))] | length == 2'
ok $? "the guest runs release $rel and loaded its ext4 and virtio_blk modules"

t0=$(date +%s%N)
"$KPAIR" kernel import "$hand" >"$WORK/imp2.out" 2>"$WORK/imp2.err"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$(tail -1 "$WORK/imp2.out")" = "$id" ] && grep -q "is cached" "$WORK/imp2.err"
ok $? "the same build directory again: a cache hit (${ms} ms)"
"$KPAIR" kernel import --image "$hand/arch/x86/boot/bzImage" --modules "$hand/mods" \
	--config "$hand/.config" >"$WORK/imp3.out" 2>"$WORK/imp3.err"
[ "$(tail -1 "$WORK/imp3.out")" = "$id" ] && grep -q "is cached" "$WORK/imp3.err"
ok $? "the same files as --image, --modules (make modules_install) and --config: the same id, cached"

mkdir -p "$WORK/noimg/include/config"
cp "$hand/.config" "$WORK/noimg/.config"
"$KPAIR" kernel import "$WORK/noimg" >/dev/null 2>"$WORK/b1"
[ $? = 2 ] && grep -q "no image arch/x86/boot/bzImage" "$WORK/b1"
ok $? "a build directory with no image: $(cat "$WORK/b1")"
"$KPAIR" kernel import --image "$hand/System.map" --config "$hand/.config" >/dev/null 2>"$WORK/b2"
[ $? = 2 ] && grep -q "is not a kernel image" "$WORK/b2"
ok $? "a file that is not a kernel: $(cat "$WORK/b2")"
sed 's/^CONFIG_X86_64=y$/# CONFIG_X86_64 is not set/; s/^CONFIG_64BIT=y$/CONFIG_ARM64=y/' "$hand/.config" >"$WORK/arm.config"
"$KPAIR" kernel import --image "$hand/arch/x86/boot/bzImage" --config "$WORK/arm.config" >/dev/null 2>"$WORK/b3"
[ $? = 2 ] && grep -q "is an x86 bzImage but config .* is for arm64" "$WORK/b3"
ok $? "an image for another architecture than its config: $(cat "$WORK/b3")"
mkdir -p "$WORK/other/lib/modules/6.1.0-other"
"$KPAIR" kernel import --image "$hand/arch/x86/boot/bzImage" --config "$hand/.config" \
	--modules "$WORK/other/lib/modules/6.1.0-other" >/dev/null 2>"$WORK/b4"
[ $? = 2 ] && grep -q "is not lib/modules/$rel" "$WORK/b4"
ok $? "modules of another release: $(cat "$WORK/b4")"
done_testing
