#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Self-test of the test VM: run it with
#   python3 scripts/vm/run.py -- /work/main/scripts/vm/selftest.sh
# Checks the DRM card, uinput + udev + libinput (a virtual Wacom pen, pad and touchscreen)
# and the screenshot path (guest draws into the framebuffer, host saves the screen).
# Exits 0 only if everything works.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fail=0
step() { echo; echo "== $*"; }
bad() { echo "selftest: FAIL: $*"; fail=1; }

step "kernel $(uname -r); $(nproc) CPUs; $(free -m | awk '/^Mem:/ {print $2}') MB"

step "ls -l /dev/dri /dev/uinput"
ls -l /dev/dri /dev/uinput
[[ -c /dev/dri/card0 ]] || bad "/dev/dri/card0 is missing"
[[ -c /dev/uinput ]] || bad "/dev/uinput is missing"

step "DRM connectors"
for c in /sys/class/drm/card*-*; do
    [[ -e $c/status ]] || continue
    modes=$(tr '\n' ' ' <"$c/modes")
    echo "$(basename "$c"): $(cat "$c/status"), $(cat "$c/enabled"); modes: ${modes:0:120}..."
done
ls -l /dev/fb0 2>/dev/null && echo "fb0: $(cat /sys/class/graphics/fb0/name) $(cat /sys/class/graphics/fb0/virtual_size) bpp $(cat /sys/class/graphics/fb0/bits_per_pixel)"

step "python3 $HERE/uinput_devices.py --check"
if ! python3 "$HERE/uinput_devices.py" --check; then
    bad "uinput_devices.py --check"
fi

step "draw a test pattern into /dev/fb0 and take a screenshot"
if [[ -c /dev/fb0 ]]; then
    # Switch the console cursor off so that it does not blink into the picture.
    printf '\033[?25l' >/dev/tty1 2>/dev/null || true
    echo 0 >/sys/class/graphics/fbcon/cursor_blink 2>/dev/null || true
    python3 - <<'PY' || bad "drawing into /dev/fb0"
import os, struct
fb = "/sys/class/graphics/fb0"
w, h = map(int, open(f"{fb}/virtual_size").read().split(","))
bpp = int(open(f"{fb}/bits_per_pixel").read())
stride = int(open(f"{fb}/stride").read())
assert bpp == 32, bpp
bars = [(255, 255, 255), (255, 255, 0), (0, 255, 255), (0, 255, 0),
        (255, 0, 255), (255, 0, 0), (0, 0, 255), (0, 0, 0)]   # SMPTE-like colour bars
rows = []
top = bytearray()
for x in range(w):
    r, g, b = bars[x * len(bars) // w]
    top += struct.pack("<BBBB", b, g, r, 0)              # XRGB8888, little endian
ramp = bytearray()
for x in range(w):
    v = x * 255 // (w - 1)
    ramp += struct.pack("<BBBB", v, v, v, 0)
pad = bytes(stride - 4 * w)
with open("/dev/fb0", "r+b", buffering=0) as f:
    data = bytearray()
    for y in range(h):
        data += (top if y < h * 2 // 3 else ramp) + pad
    f.write(data)
print(f"drew {w}x{h} colour bars + grey ramp ({stride} bytes/row)")
PY
else
    bad "/dev/fb0 is missing (no fbdev emulation?)"
fi
if vm-shot selftest; then
    png=$IK_WORK/shots/selftest.png
    if [[ -s $png ]]; then
        echo "screenshot: $png ($(stat -c %s "$png") bytes; $(head -c 24 "$png" | od -An -tx1 | tr -d ' \n' | cut -c1-16))"
    else
        bad "vm-shot succeeded but $png is missing"
    fi
else
    bad "vm-shot selftest"
fi

echo
if (( fail )); then echo "selftest: FAILED"; else echo "selftest: PASSED"; fi
exit $fail
