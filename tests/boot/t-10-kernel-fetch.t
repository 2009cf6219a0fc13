#!/usr/bin/env bash
# kernel stage: fetch from the Debian package, cache hit on the second fetch, kernel.json, list
. "$(dirname "$0")/lib.sh"
plan 9
"$KPAIR" kernel fetch "debian:$KERNEL" >"$WORK/f1.out" 2>"$WORK/f1.err"
ok $? "fetch debian:$KERNEL"
kj="$ROOT/images/kernels/$KERNEL/kernel.json"
t0=$(date +%s%N)
"$KPAIR" kernel fetch "debian:$KERNEL" >"$WORK/f2.out" 2>"$WORK/f2.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
ok $rc "second fetch succeeds"
grep -q "is cached" "$WORK/f2.err" && ! grep -q "apt-get download" "$WORK/f2.err"
ok $? "second fetch is a cache hit with no download (${ms} ms)"
is "$(jqr "$kj" .release)" "$KERNEL" "kernel.json release"
is "$(jqr "$kj" .page_size)" 4096 "kernel.json page size from the config"
[[ "$(jqr "$kj" .source.sha256)" =~ ^[0-9a-f]{64}$ ]]
ok $? "kernel.json has the package sha256"
[ -f "$ROOT/images/kernels/$KERNEL/lib/modules/$KERNEL/modules.dep" ] &&
	[ -f "$ROOT/images/kernels/$KERNEL/vmlinuz" ] && [ -f "$ROOT/images/kernels/$KERNEL/config" ]
ok $? "vmlinuz, config and modules.dep are in the store"
"$KPAIR" kernel list | grep -q "^$KERNEL .*debian-package"
ok $? "kernel list shows it"
"$KPAIR" kernel fetch debian:6.1.0-57-sparc64 2>"$WORK/bad.err"
[ $? -ne 0 ] && grep -q "unknown flavour" "$WORK/bad.err"
ok $? "an unknown flavour is a clear error"
done_testing
