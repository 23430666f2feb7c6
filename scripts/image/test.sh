#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The disk image's part of `make test`: builds the UEFI image (scripts/image/build.sh) from the
# appliance (built first if it is missing or older than the binary), for a fleet server at
# https://10.0.2.100 whose TLS certificate the development fleet CA issues (fleet-test's
# goosebit, reached through QEMU's user network); then its four VM proofs:
#   boot-test.py      OVMF → GRUB → slot A and the kiosk's first frame; nothing confirms A, so
#                     the next boot falls back to B
#   watchdog-test.py  a kiosk that hangs after its first frame: the i6300esb resets the machine,
#                     GRUB takes the other slot
#   update-test.py    five bundles refused (a downgrade among them), a power cut while RAUC writes slot B, the v2
#                     installed again, B boots and confirms itself
#   fleet-test.py     goosebit (hawkBit's DDI API) assigns a release that dies at start: installed,
#                     rolled back, reported as a failure; then a good one: installed, confirmed,
#                     reported as a success; the data partition kept
# update-test runs beside the other three (each QEMU is one emulated CPU; the machine has two).
# Each proof's output goes to out/image/<proof>.log; its figures and verdict are printed.
# The last line is `image: N passed, N failed`.
#
#   scripts/image/test.sh [BINARY]      (default .build/release/inkkiosk)
#   scripts/image/test.sh --arch arm64  the arm64 image (from out/appliance-arm64, which
#                                       scripts/appliance/e2e-arm64.sh builds) under AAVMF:
#                                       update-test.py --switch, the install and the switch to B;
#                                       output in out/image-arm64/
set -uo pipefail
cd "$(dirname "$0")/../.."

passed=0 failed=0
TAG=image
# verdict NAME LOG STATUS SECONDS: the proof's figures (from its empty line before them on) and its verdict
verdict() {
    local name=$1 log=$2 status=$3 took=$4
    awk 'found { print } /^$/ { found = 1 }' "$log" | sed "s/^/  /"
    if ((status == 0)); then
        passed=$((passed + 1)); echo "$TAG: ok   $name ($took s; log $log)"
    else
        failed=$((failed + 1)); echo "$TAG: FAIL $name ($took s; log $log)"
        grep -E 'FAIL|error|Error' "$log" | tail -n 15 | sed 's/^/  /'
    fi
}
if [[ ${1:-} == --arch ]]; then
    [[ ${2:-} == arm64 ]] || { echo "image: --arch wants arm64 (amd64 is the default)" >&2; exit 2; }
    scripts/install-deps.sh --e2e || exit 1
    mkdir -p out/image-arm64
    [[ -s out/appliance-arm64/initramfs.cpio.zst ]] ||
        { echo "image-arm64: out/appliance-arm64 is missing (scripts/appliance/e2e-arm64.sh builds it)"; exit 1; }
    start=$SECONDS
    scripts/image/build.sh --arch arm64 >out/image-arm64/build.log 2>&1 ||
        { tail -20 out/image-arm64/build.log; echo "image-arm64: the disk image did not build"; exit 1; }
    echo "image-arm64: built in $((SECONDS - start)) s: $(grep -E '^image: .*\.img:' out/image-arm64/build.log | sed 's/^image: //')"
    TAG=image-arm64 t=$SECONDS
    python3 scripts/image/update-test.py --arch arm64 --switch --quiet >out/image-arm64/update-test.log 2>&1
    verdict "update-test --switch" out/image-arm64/update-test.log $? $((SECONDS - t))
    echo "image-arm64: $passed passed, $failed failed"
    ((failed == 0)); exit
fi
BIN=${1:-.build/release/inkkiosk}
[[ -x $BIN ]] || { echo "image: $BIN is missing; run 'make release' first" >&2; exit 1; }
scripts/install-deps.sh --e2e || exit 1
mkdir -p out/image
appliance=out/appliance/initramfs.cpio.zst
if [[ ! -s $appliance || $BIN -nt $appliance ]]; then
    echo "image: building the appliance (out/appliance)"
    scripts/appliance/build.sh "$BIN" >out/image/appliance-build.log 2>&1 ||
        { tail -20 out/image/appliance-build.log; echo "image: the appliance did not build"; exit 1; }
fi
start=$SECONDS
fleet_ca=$(python3 scripts/image/fleet-server.py ca out/keys/development/fleet) || { echo "image: no fleet CA"; exit 1; }
IMAGE_FLEET_SERVER=https://10.0.2.100 IMAGE_FLEET_CA=$fleet_ca scripts/image/build.sh --arch amd64 >out/image/build.log 2>&1 ||
    { tail -20 out/image/build.log; echo "image: the disk image did not build"; exit 1; }
echo "image: built in $((SECONDS - start)) s: $(grep -E '^image: .*\.img:' out/image/build.log | sed 's/^image: //')"

started=$SECONDS
python3 scripts/image/update-test.py --quiet >out/image/update-test.log 2>&1 &
update_pid=$!
for proof in boot watchdog fleet; do
    t=$SECONDS
    python3 "scripts/image/$proof-test.py" --quiet >"out/image/$proof-test.log" 2>&1
    verdict "$proof-test" "out/image/$proof-test.log" $? $((SECONDS - t))
done
wait "$update_pid"
verdict update-test out/image/update-test.log $? $((SECONDS - started))
echo "image: $passed passed, $failed failed"
((failed == 0))
