#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make arm64`: inkkiosk cross-built for aarch64 on this x86 machine, from Debian's packages only
# (scripts/arm64/toolchain.sh makes and caches the toolchain).
#
#   scripts/arm64/build.sh [--tests]
#
# Leaves out/arm64/inkkiosk (aarch64, Swift runtime linked in, release flags as `make release`)
# and out/arm64/root (the Debian 13 arm64 root it was linked against), so that
#   qemu-aarch64-static -L out/arm64/root out/arm64/inkkiosk replay …
# runs it here. Prints the glibc version the binary needs and fails above GLIBC_LIMIT (2.41,
# Debian 13's, which the boards' OS images follow). With --tests, also the unit tests (debug, in
# .build-arm64/aarch64-unknown-linux-gnu/debug/; scripts/arm64/test.sh runs them under qemu).
set -euo pipefail
cd "$(dirname "$0")/../.."

GLIBC_LIMIT=${GLIBC_LIMIT:-2.41}
SCRATCH=.build-arm64
OUT=out/arm64
# As the Makefile's RELEASE_FLAGS; lld comes from the SDK's toolset.
FLAGS=(--static-swift-stdlib -Xlinker --no-export-dynamic -Xlinker -z -Xlinker pack-relative-relocs)
SDK=(--swift-sdks-path /sdk/bundles --swift-sdk inkkiosk-arm64)

log() { echo "arm64: $*" >&2; }
die() { log "error: $*"; exit 1; }

CACHE=$(scripts/arm64/toolchain.sh)
ROOT=$CACHE/root
mkdir -p "$OUT"
ln -sfn "$ROOT" "$OUT/root"

start=$SECONDS
log "swift build -c release for aarch64 (Swift 6.2.3 in the build root)"
scripts/arm64/toolchain.sh --run swift build -c release --scratch-path "$SCRATCH" "${SDK[@]}" "${FLAGS[@]}" --product inkkiosk
cp "$SCRATCH/aarch64-unknown-linux-gnu/release/inkkiosk" "$OUT/inkkiosk.tmp"
mv "$OUT/inkkiosk.tmp" "$OUT/inkkiosk"
log "built $OUT/inkkiosk in $((SECONDS - start)) s"

# What it is, what it needs, and that it runs.
file_info=$(readelf -h "$OUT/inkkiosk" | sed -n 's/^ *Machine: *//p')
[[ $file_info == *AArch64* ]] || die "$OUT/inkkiosk is for '$file_info', not AArch64"
needed=$(readelf -d "$OUT/inkkiosk" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
for lib in $needed; do
    [[ -e $ROOT/usr/lib/aarch64-linux-gnu/$lib || -e $ROOT/lib/$lib ]] || die "$OUT/inkkiosk needs $lib, which the arm64 root lacks"
done
[[ $needed != *libswift* && $needed != *libFoundation* ]] || die "$OUT/inkkiosk links the Swift runtime dynamically: $needed"
glibc=$(readelf --version-info "$OUT/inkkiosk" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1)
log "needs: $needed"
log "needs glibc $glibc (limit $GLIBC_LIMIT, Debian 13)"
[[ $(printf '%s\n%s\n' "$glibc" "$GLIBC_LIMIT" | sort -V | tail -n1) == "$GLIBC_LIMIT" ]] ||
    die "$OUT/inkkiosk needs glibc $glibc, more than $GLIBC_LIMIT: $(readelf --version-info "$OUT/inkkiosk" | grep -o "[a-z0-9_]*@*GLIBC_$glibc" | head -n3 | tr '\n' ' ')"
printf '%s\n' "$glibc" >"$OUT/glibc-needed"
version=$(qemu-aarch64-static -L "$ROOT" "$OUT/inkkiosk" --version) || die "$OUT/inkkiosk does not run under qemu-aarch64-static"
log "runs under qemu-aarch64-static: inkkiosk --version = $version; $(stat -c %s "$OUT/inkkiosk") bytes"

if [[ ${1:-} == --tests ]]; then
    # Debian's swiftlang ships _Testing_Foundation's module but not its library: without the
    # cross-import overlays (nothing here uses them) the tests link.
    # No debug information: nothing debugs these under qemu-user, and without it the build (all the
    # dependencies in debug: BoringSSL, SwiftNIO) took a sixth less time.
    NO_DEBUG_INFO=(-Xswiftc -gnone -Xcc -g0 -Xcxx -g0)
    start=$SECONDS
    log "swift build --build-tests for aarch64 (no debug information)"
    # INKKIOSK_TEST_TARGETS (Package.swift): the test targets to build, when not all.
    scripts/arm64/toolchain.sh --run env INKKIOSK_TEST_TARGETS="${INKKIOSK_TEST_TARGETS-}" \
        swift build --build-tests --scratch-path "$SCRATCH" "${SDK[@]}" \
        -Xswiftc -Xfrontend -Xswiftc -disable-cross-import-overlays "${NO_DEBUG_INFO[@]}"
    log "built $SCRATCH/aarch64-unknown-linux-gnu/debug/inkkioskPackageTests.xctest in $((SECONDS - start)) s"
fi
