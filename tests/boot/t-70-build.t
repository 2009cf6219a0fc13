#!/usr/bin/env bash
# kernel builds: a minimal kernel from Debian's linux-source-6.1, stock and with a small patch,
# sharing objects; both boot; the patched one really carries its patch; a bad patch fails
# before any build step, naming the patch. The first build takes ~5 min on 2 cores.
. "$(dirname "$0")/lib.sh"
plan 12
patch="$ROOT/configs/patches/test-uname-suffix.patch"

"$KPAIR" kernel pair --source linux-source-6.1 --patch "$patch" >"$WORK/pair.out" 2>"$WORK/pair.err"
ok $? "kernel pair builds stock and patched"
stock=$(awk '$1 == "stock" { print $2 }' "$WORK/pair.out")
patched=$(awk '$1 == "patched" { print $2 }' "$WORK/pair.out")
[ -n "$stock" ] && [ -n "$patched" ] && [ "$stock" != "$patched" ]
ok $? "two distinct kernel ids ($stock, $patched)"
kj="$ROOT/images/kernels/$patched/kernel.json"
jqt "$kj" '.source.type == "build" and (.source.patches | length) == 1 and (.source.key | length) == 64'
ok $? "kernel.json of the patched build names its source, patch and key"

t0=$(date +%s%N)
"$KPAIR" kernel pair --source linux-source-6.1 --patch "$patch" >"$WORK/pair2.out" 2>"$WORK/pair2.err"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
grep -q "is cached" "$WORK/pair2.err" && [ "$(cat "$WORK/pair.out" | awk '{print $2}')" = "$(awk '{print $2}' "$WORK/pair2.out")" ]
ok $? "a repeated build is a cache hit with the same ids (${ms} ms)"

for side in stock patched; do
	id=${!side}
	kpair_run "smoke-$side" "$ROOT/configs/jobs/smoke.job" --kernel "$id" --set params.size=8M
	is "$RC" 0 "$side build boots and runs the smoke job (${SECS} s, boot $(jqr "$DIR/result.json" .times.boot_s) s)"
	is "$(jqr "$DIR/result.json" .guest.release)" "$(jqr "$ROOT/images/kernels/$id/kernel.json" .release)" \
		"$side: the guest runs the built release"
	eval "ver_$side=\$(jqr \"\$DIR/result.json\" .guest.version)"
done
case "$ver_patched" in *kpair-test-patch*) r=0 ;; *) r=1 ;; esac
ok $r "the patched guest carries the patch: $ver_patched"
case "$ver_stock" in *kpair-test-patch*) r=1 ;; *) r=0 ;; esac
ok $r "the stock guest does not: $ver_stock"

printf -- '--- a/init/no-such-file.c\n+++ b/init/no-such-file.c\n@@ -1,1 +1,1 @@\n-x\n+y\n' >"$WORK/bad.patch"
t0=$(date +%s%N)
"$KPAIR" kernel build --source linux-source-6.1 --patch "$WORK/bad.patch" >/dev/null 2>"$WORK/bad.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $rc -ne 0 ] && grep -q "patch '$WORK/bad.patch' does not apply" "$WORK/bad.err"
ok $? "a patch that does not apply fails, naming the patch (${ms} ms)"
! grep -q "^+y" "$ROOT/images/build/linux-source-6.1-x86_64/src/init/version-timestamp.c" &&
	! grep -q kpair-test-patch "$ROOT/images/build/linux-source-6.1-x86_64/src/init/version-timestamp.c"
ok $? "the source tree is left stock"
done_testing
