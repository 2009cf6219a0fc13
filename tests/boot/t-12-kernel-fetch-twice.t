#!/usr/bin/env bash
# two `kpair kernel fetch` of the same kernel at once, into an empty store (KPAIR_ROOT): the
# store lock makes one download and the other a cache hit; the store ends up with one whole
# kernel, readable, and no temporary directory.
. "$(dirname "$0")/lib.sh"
plan 6
R="$WORK/root"
mkdir -p "$R"
for i in 1 2; do
	KPAIR_ROOT="$R" "$KPAIR" kernel fetch "debian:$KERNEL" >"$WORK/f$i.out" 2>"$WORK/f$i.err" &
	eval "p$i=$!"
done
wait $p1; r1=$?
wait $p2; r2=$?
[ $r1 = 0 ] && [ $r2 = 0 ] && [ "$(cat "$WORK/f1.out")" = "$KERNEL" ] && [ "$(cat "$WORK/f2.out")" = "$KERNEL" ]
ok $? "both fetches succeed ($r1, $r2)"
is "$(cat "$WORK"/f[12].err | grep -c 'apt-get download')" 1 "exactly one downloaded"
is "$(cat "$WORK"/f[12].err | grep -c 'is cached')" 1 "the other found it in the store"
S="$R/images/kernels"
is "$(ls -A "$S" | grep -v '^\.lock$' | tr '\n' ' ')" "$KERNEL " "one kernel in the store, no temporary directory left"
[ "$(stat -c %a "$S/$KERNEL")" = 755 ] && jq -e .image_sha256 "$S/$KERNEL/kernel.json" >/dev/null &&
	[ "$(sha256sum <"$S/$KERNEL/vmlinuz" | cut -c1-64)" = "$(jqr "$S/$KERNEL/kernel.json" .image_sha256)" ]
ok $? "the kernel is whole: mode 755, its image matches kernel.json"
[ -f "$S/$KERNEL/lib/modules/$KERNEL/modules.dep" ]
ok $? "and its modules were indexed (depmod)"
rm -rf "$R"
done_testing
