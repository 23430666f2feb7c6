#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The proof on a real kernel: boots Debian's kernel in QEMU (bochs DRM, uinput devices copied
# from real hardware), runs `inkkiosk record` on /dev/dri/card0 while scripted pen and finger
# sessions play, takes the screen with QMP screendump, and checks those pixels on the host.
# Then boots the appliance image (scripts/appliance/e2e-boot.sh; E2E_APPLIANCE=0 skips it).
# Usage: scripts/e2e.sh [BINARY]   (default: .build/release/inkkiosk)
# E2E_ONLY=api runs only the signature API's probes (Tests/e2e/api_probes.py, a few minutes)
# and their checks, without the appliance; E2E_ONLY=worksheets the classroom's worksheet session;
# E2E_ONLY=documents the document signing session (Tests/e2e/documents.py); E2E_ONLY=cloud the
# classroom on the school's cloud (Tests/e2e/cloud_session.py); E2E_ONLY=logging
# the log levels and journald priorities (Tests/e2e/logging_session.py, a minute); E2E_ONLY=display
# sessions 1 and 2 (bochs: atomic, then legacy KMS) and the display faults (virtio-gpu).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${1:-.build/release/inkkiosk}
[[ -x $BIN ]] || { echo "e2e: $BIN is missing; run 'make release' first" >&2; exit 1; }
scripts/install-deps.sh --e2e

# The guest mounts its own /tmp, so everything it runs travels in the shared work directory.
WORK=$(mktemp -d /tmp/inkkiosk-e2e-XXXXXX)
KIT=$WORK/kit
mkdir -p "$KIT/Tests/e2e" "$KIT/scripts/lib"
cp "$BIN" "$KIT/inkkiosk"
cp -r scripts/vm "$KIT/scripts/"
find scripts/lib -maxdepth 1 -type f -exec cp -t "$KIT/scripts/lib/" {} +   # Tests/e2e reads kiosk_lines; not __pycache__/
cp -r deploy config "$KIT/"
find Tests/e2e -maxdepth 1 -type f -exec cp -t "$KIT/Tests/e2e/" {} +   # not __pycache__/

# A second disk for the journal, throttled like a cheap SD card: 20 writes a second, so an
# fsync takes 50 ms or more. cache=directsync: the guest's syncs reach the host's file.
truncate -s 64M "$WORK/data.img"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$WORK/data.img"   # no zeroing in the background, eating the budget

# A USB stick (FAT, as teachers' sticks are) with two worksheets: a typed one and a scanned one
# of 25 MB. The guest mounts it read-only as the classroom's worksheets_usb and later pulls it
# out (vm-unplug stick: QMP device_del).
python3 Tests/e2e/worksheet_pdf.py "$WORK/fractions.pdf" --pages 2 --title Fractions
python3 Tests/e2e/worksheet_pdf.py "$WORK/scanned-atlas.pdf" --pages 18 --title Atlas --scanned
truncate -s 64M "$WORK/stick.img"
mkfs.vfat -n WORKSHEETS "$WORK/stick.img" >/dev/null
mcopy -i "$WORK/stick.img" "$WORK/fractions.pdf" "$WORK/scanned-atlas.pdf" ::/
rm "$WORK/fractions.pdf" "$WORK/scanned-atlas.pdf"

# The school's cloud (WsgiDAV with TLS, scripts/classroom/school-cloud.py) for the classroom's
# cloud session: on the host's loopback, which the guest reaches as 10.0.2.2 through QEMU's user
# network; the guest drives it (stops it mid-hand-in, starts it again) through files in WORK/cloud-ctl.
python3 scripts/classroom/school-cloud.py supervise "$WORK/cloud" --control "$WORK/cloud-ctl" \
    --address 10.0.2.2 --public-host 10.0.2.2 --timeout 3600 >"$WORK/cloud-server.json" 2>"$WORK/cloud-supervise.log" &
cloud_server=$!
trap 'kill $cloud_server 2>/dev/null || true' EXIT

echo "e2e: work directory $WORK"
status=0
only=()
if [[ -n ${E2E_ONLY:-} ]]; then
    only=(--env "IK_E2E_ONLY=$E2E_ONLY")
    export E2E_APPLIANCE=0
fi
# --second-screen: a virtio-gpu card whose monitor the guest can unplug and swap (display faults).
python3 scripts/vm/run.py --work "$WORK" --timeout 1500 --quiet --second-screen 1280x800 "${only[@]}" \
    --qemu=-drive --qemu="file=$WORK/data.img,if=virtio,format=raw,cache=directsync,throttling.iops-write=20" \
    --qemu=-device --qemu=qemu-xhci,id=xhci \
    --qemu=-drive --qemu="file=$WORK/stick.img,if=none,id=stickdisk,format=raw" \
    --qemu=-device --qemu=usb-storage,bus=xhci.0,drive=stickdisk,id=stick \
    --qemu=-netdev --qemu=user,id=net0 --qemu=-device --qemu=virtio-net-pci,netdev=net0 \
    -- "$KIT/Tests/e2e/guest.sh" || status=$?
if (( status != 0 )); then
    echo "e2e: the VM session failed (status $status); console log: $WORK/console.log; screenshots: $WORK/shots/" >&2
    tail -40 "$WORK/console.log" >&2 || true
fi
echo "e2e: screenshots in $WORK/shots/"
# The boot-to-kiosk appliance (make appliance): built if stale, booted once; judged by check.py.
scripts/appliance/e2e-boot.sh "$BIN" "$WORK/appliance" || true
if [[ -n ${E2E_OUT:-} ]]; then
    mkdir -p "$E2E_OUT" && cp "$WORK"/shots/*.png "$E2E_OUT"/ 2>/dev/null || true
    echo "e2e: screenshots copied to $E2E_OUT/"
    # The signature session's capture is stored encrypted (sealed by default); the session's
    # host side decrypted it with its key (Tests/e2e/modes.py): those plain files.
    if [[ -d $WORK/sig-plain ]]; then
        mkdir -p "$E2E_OUT/signature" && cp "$WORK"/sig-plain/* "$E2E_OUT/signature/" 2>/dev/null || true
        echo "e2e: the signature capture, decrypted with the session's key, copied to $E2E_OUT/signature/"
    fi
fi
# The checks' summary ("e2e: N passed, N failed") is the last line.
/usr/bin/python3 Tests/e2e/check.py "$WORK" "$BIN" || status=1
exit $status
