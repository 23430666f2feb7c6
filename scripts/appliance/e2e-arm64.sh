#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The arm64 appliance's part of `make test`: installs what is missing (qemu-system-arm,
# qemu-user-static, the aarch64 cross gcc and binutils, e2fsprogs, …: scripts/vm/fetch-kernel.sh
# --arch arm64), builds the arm64 boot-to-kiosk image when it is missing or older than the
# binary or its recipe, then runs scripts/appliance/boot-test-arm64.py (qemu-system-aarch64
# -M virt: pen with pressure and tilt, hover, signature API, power cut and restore).
#
#   scripts/appliance/e2e-arm64.sh BINARY RESULT_DIR      (BINARY: out/arm64/inkkiosk)
#
# RESULT_DIR gets the test's figures.json, screendumps (PNG), serial logs, signature/ (the
# capture's files fetched over the API), build.log and steps.json (build and boot seconds).
# Prints one line per check and ends with `arm64-vm: N passed, N failed`; exit 1 on a failure.
# APPLIANCE_ROOT: the arm64 root (default out/arm64/root); APPLIANCE_OUT: the image
# (default out/appliance-arm64); E2E_ARM64=0 skips it (RESULT_DIR then holds only `skipped`).
set -uo pipefail
cd "$(dirname "$0")/../.."

BIN=${1:?usage: e2e-arm64.sh BINARY RESULT_DIR}
RESULT=${2:?usage: e2e-arm64.sh BINARY RESULT_DIR}
OUT=${APPLIANCE_OUT:-out/appliance-arm64}
mkdir -p "$RESULT"
if [[ ${E2E_ARM64:-1} == 0 ]]; then
    echo "arm64-vm: skipped (E2E_ARM64=0)"
    : >"$RESULT/skipped"
    exit 0
fi
start_all=$SECONDS

# Host packages (a fresh CI machine): the kernel fetch installs the arm64 VM's tools.
if ! scripts/vm/fetch-kernel.sh --arch arm64 >"$RESULT/fetch-kernel.log" 2>&1; then
    tail -20 "$RESULT/fetch-kernel.log" >&2
    echo "arm64-vm: 0 passed, 1 failed (the arm64 kernel or the host tools could not be installed)"
    exit 1
fi

image=$OUT/initramfs.cpio.zst
build_s=0
built=false
if [[ ! -s $image || ! -s $OUT/vmlinuz ]] ||
    [[ -n $(find "$BIN" scripts/appliance/build.sh scripts/appliance/init.sh scripts/appliance/rootelf.py \
                 "${APPLIANCE_CONFIG:-config/inkkiosk.toml}" deploy/udev deploy/libinput -newer "$image" -print -quit) ]]; then
    echo "arm64-vm: building the arm64 appliance image ($OUT)"
    start=$SECONDS
    if ! APPLIANCE_OUT=$OUT scripts/appliance/build.sh --arch arm64 "$BIN" >"$RESULT/build.log" 2>&1; then
        tail -20 "$RESULT/build.log" >&2
        printf '{"built": false}\n' >"$RESULT/steps.json"
        echo "arm64-vm: 0 passed, 1 failed (the arm64 appliance image did not build: $RESULT/build.log)"
        exit 1
    fi
    build_s=$((SECONDS - start))
    built=true
else
    echo "arm64-vm: the arm64 appliance image in $OUT is up to date"
fi

start=$SECONDS
python3 scripts/appliance/boot-test-arm64.py --out "$OUT" --dir "$RESULT" --quiet
status=$?
printf '{"built": %s, "build_s": %d, "boot_test_s": %d, "all_s": %d, "status": %d}\n' \
    "$built" "$build_s" $((SECONDS - start)) $((SECONDS - start_all)) "$status" >"$RESULT/steps.json"
echo "arm64-vm: image build ${build_s} s, VM test $((SECONDS - start)) s, in all $((SECONDS - start_all)) s"
exit "$status"
