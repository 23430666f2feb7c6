#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The appliance's part of `make e2e`: builds the boot-to-kiosk image when it is missing or older
# than the binary or its recipe, then boots it once with boot-test.py (first frame, white
# screen, PID 1, a test pen stroke, the data partition checked and mounted, the journal on it).
# Tests/e2e/check_appliance.py judges the results with the rest of the VM proof.
#
#   scripts/appliance/e2e-boot.sh BINARY RESULT_DIR
#
# RESULT_DIR gets boot-test.py's output (figures.json, console.log, screendumps, data/: the files
# of the data disk after the VM) and steps.json (how long the build and the boot took).
# E2E_APPLIANCE=0 skips it all (RESULT_DIR then holds only `skipped`). APPLIANCE_OUT is where
# the image is (default out/appliance).
set -uo pipefail
cd "$(dirname "$0")/../.."

BIN=$1
RESULT=$2
OUT=${APPLIANCE_OUT:-out/appliance}
mkdir -p "$RESULT"
if [[ ${E2E_APPLIANCE:-1} == 0 ]]; then
    echo "e2e: appliance boot test skipped (E2E_APPLIANCE=0)"
    : >"$RESULT/skipped"
    exit 0
fi

# Stale when anything that goes into the image is newer than it.
image=$OUT/initramfs.cpio.zst
build_s=0
if [[ ! -s $image || ! -s $OUT/vmlinuz ]] ||
    [[ -n $(find "$BIN" scripts/appliance/build.sh scripts/appliance/init.sh "${APPLIANCE_CONFIG:-config/inkkiosk.toml}" \
                 deploy/udev deploy/libinput -newer "$image" -print -quit) ]]; then
    echo "e2e: building the appliance image ($OUT)"
    start=$SECONDS
    if ! APPLIANCE_OUT=$OUT scripts/appliance/build.sh "$BIN" >"$RESULT/build.log" 2>&1; then
        tail -20 "$RESULT/build.log" >&2
        echo "e2e: the appliance image did not build (log: $RESULT/build.log)" >&2
        printf '{"built": false}\n' >"$RESULT/steps.json"
        exit 1
    fi
    build_s=$((SECONDS - start))
else
    echo "e2e: the appliance image in $OUT is up to date"
fi

# --pvh: QEMU boots the uncompressed kernel, which saves the bzImage decompression (about 3 s
# under emulation); the figures from the kernel's start on are the same.
start=$SECONDS
python3 scripts/appliance/boot-test.py --out "$OUT" --boot-dir "$RESULT" --pvh --quiet
status=$?
printf '{"built": true, "build_s": %d, "boot_s": %d, "status": %d}\n' "$build_s" $((SECONDS - start)) "$status" >"$RESULT/steps.json"
exit "$status"
