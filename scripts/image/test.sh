#!/usr/bin/env bash
# The disk image's part of `make test`: builds the UEFI image (scripts/image/build.sh) from the
# appliance (built first if it is missing or older than the binary), then its three VM proofs:
#   boot-test.py      OVMF → GRUB → slot A and the kiosk's first frame; nothing confirms A, so
#                     the next boot falls back to B
#   watchdog-test.py  a kiosk that hangs after its first frame: the i6300esb resets the machine,
#                     GRUB takes the other slot
#   update-test.py    four bundles refused, a power cut while RAUC writes slot B, the v2
#                     installed again, B boots and confirms itself
# update-test runs beside the other two (each QEMU is one emulated CPU; the machine has two).
# Each proof's output goes to out/image/<proof>.log; its figures and verdict are printed.
# The last line is `image: N passed, N failed`.
#
#   scripts/image/test.sh [BINARY]      (default .build/release/inkkiosk)
set -uo pipefail
cd "$(dirname "$0")/../.."

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
scripts/image/build.sh --arch amd64 >out/image/build.log 2>&1 ||
    { tail -20 out/image/build.log; echo "image: the disk image did not build"; exit 1; }
echo "image: built in $((SECONDS - start)) s: $(grep -E '^image: .*\.img:' out/image/build.log | sed 's/^image: //')"

passed=0 failed=0
# verdict NAME LOG STATUS SECONDS: the proof's figures (from its empty line before them on) and its verdict
verdict() {
    local name=$1 log=$2 status=$3 took=$4
    awk 'found { print } /^$/ { found = 1 }' "$log" | sed "s/^/  /"
    if ((status == 0)); then
        passed=$((passed + 1)); echo "image: ok   $name ($took s; log $log)"
    else
        failed=$((failed + 1)); echo "image: FAIL $name ($took s; log $log)"
        grep -E 'FAIL|error|Error' "$log" | tail -n 15 | sed 's/^/  /'
    fi
}
started=$SECONDS
python3 scripts/image/update-test.py --quiet >out/image/update-test.log 2>&1 &
update_pid=$!
for proof in boot watchdog; do
    t=$SECONDS
    python3 "scripts/image/$proof-test.py" --quiet >"out/image/$proof-test.log" 2>&1
    verdict "$proof-test" "out/image/$proof-test.log" $? $((SECONDS - t))
done
wait "$update_pid"
verdict update-test out/image/update-test.log $? $((SECONDS - started))
echo "image: $passed passed, $failed failed"
((failed == 0))
