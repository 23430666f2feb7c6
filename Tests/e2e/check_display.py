# SPDX-License-Identifier: Apache-2.0
"""Checks of the display-faults session (display_faults.py): the second card's screendumps,
whose size is the mode the kiosk set, and its log."""
import json
import os
import sys

from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))  # the harness's shared modules
import kiosk_lines  # noqa: E402

CANVAS = (1280, 800)
INK_DARKNESS = 0.25


def display_checks(work, check):
    def load(name):
        path = os.path.join(work, "shots", f"{name}.png")
        return (Image.open(path).convert("RGB"), path) if os.path.exists(path) else (None, path)

    def dark(im, x, y):
        r, g, b = im.getpixel((x, y))
        return 1 - (r + g + b) / (3 * 255)

    def ink_along(im, y, x0, x1, samples=12):
        """Ink within 2 px of every sample point of a horizontal line, screen pixels."""
        def near(x, yy):
            return any(dark(im, x + dx, yy + dy) > INK_DARKNESS for dx in range(-2, 3) for dy in range(-2, 3))
        return all(near(round(x0 + (x1 - x0) * i / (samples - 1)), round(y)) for i in range(samples))

    def on_screen(placement, cx, cy):
        """A canvas position (normalised) in screen pixels, for a placement (scale, ox, oy)."""
        scale, ox, oy = placement
        return ox + cx * CANVAS[0] * scale, oy + cy * CANVAS[1] * scale

    def strokes(im, placement, rows, x0=0.22, x1=0.78):
        return all(ink_along(im, on_screen(placement, x0, y)[1], on_screen(placement, x0, y)[0], on_screen(placement, x1, y)[0])
                   for y in rows)

    log_path = os.path.join(work, "display.log")
    log = open(log_path).read() if os.path.exists(log_path) else ""

    im, p = load("display-1280")
    if im:
        check(im.size == (1280, 800) and strokes(im, (1, 0, 0), [0.25]), "second card: the finger's stroke on the 1280x800 screen", p)

    im, p = load("display-1440")
    if im:
        centred = (1, 80, 50)
        borders = [(20, 450), (720, 20), (1420, 450), (720, 880)]
        check(im.size == (1440, 900), f"a 1440x900 monitor plugged in instead: the kiosk set its preferred mode (screendump {im.size[0]}x{im.size[1]})", p)
        if im.size == (1440, 900):
            check(all(im.getpixel(b) == (0, 0, 0) for b in borders) and dark(im, 100, 70) < 0.05,
                  "the 1280x800 canvas is shown 1:1, centred, with black borders", p)
            check(strokes(im, centred, [0.25]), "the stroke drawn before the unplug is there", p)
            check(strokes(im, centred, [0.4]), "the stroke drawn while unplugged (in RAM only) is there", p)
    im, p = load("display-1440-drawn")
    if im and im.size == (1440, 900):
        check(ink_along(im, 0.7 * 900, 0.32 * 1440, 0.68 * 1440),
              "after the replug a finger draws where it touches the new screen", p)
        check(strokes(im, (1, 80, 50), [0.55]), "and the pen (a desk tablet, mapped onto the canvas) draws on the canvas", p)

    im, p = load("display-1024")
    if im:
        check(im.size == (1024, 640), f"the monitor's mode changed to 1024x640 while connected: the kiosk followed (screendump {im.size[0]}x{im.size[1]})", p)
        if im.size == (1024, 640):
            scaled = (0.8, 0, 0)
            finger = ((0.32 * 1440 - 80) / 1280, (0.68 * 1440 - 80) / 1280, (0.7 * 900 - 50) / 800)
            check(strokes(im, scaled, [0.25, 0.4, 0.55]) and ink_along(im, finger[2] * 640, finger[0] * 1024, finger[1] * 1024),
                  "the canvas is scaled down by 0.8 to fit, every stroke in its place", p)

    check("mode set 1024x640@75 on Virtual-2 failed: Permission denied (EACCES)" in log,
          "with DRM master held by another program, the mode set fails with EACCES and is logged with its errno", log_path)
    recovered = [l for l in log.splitlines() if "works again after" in l and "mode set" in l]
    check(bool(recovered), f"the kiosk survived and set the mode once master was free ({recovered[-1].split('inkkiosk: ')[-1] if recovered else 'never'})", log_path)
    ebadf = [l for l in log.splitlines() if "Bad file descriptor" in l]
    check(not ebadf, f"at exit every buffer is freed while the card is open ({len(ebadf)} EBADF lines)", log_path)
    check(log.count("failed: Permission denied (EACCES)") <= 3, f"no log flood: {log.count('failed: Permission denied (EACCES)')} EACCES lines for the whole outage", log_path)
    im, p = load("display-master-back")
    if im and im.size == (1024, 640):
        check(strokes(im, (0.8, 0, 0), [0.25, 0.55, 0.85]), "the whole picture is back, with the stroke drawn while the screen was refused", p)
    path = os.path.join(work, "display-figures.json")
    f = json.load(open(path)) if os.path.exists(path) else {}
    check(f.get("kioskFramebuffers") == 2, f"after two mode changes the kiosk holds {f.get('kioskFramebuffers')} frame "
          f"framebuffers on the card (debugfs; and {f.get('kioskCursorFramebuffers')} of the cursor plane): the old ones were freed, no leak", path)
    hovering, out = f.get("cursorHovering") or {}, f.get("cursorAfterOut") or {}
    # The pen at the canvas's middle, on the 1440x900 screen at 720,450; the 64x64 preview's hotspot is its centre.
    pos = hovering.get("pos")
    check(f.get("cursorPlane") is not None and bool(hovering.get("fb")) and pos is not None and pos[:2] == [64, 64]
          and abs(pos[2] - (720 - 32)) <= 2 and abs(pos[3] - (450 - 32)) <= 2,
          f"atomic KMS on virtio-gpu: the hover preview is on the cursor plane ({f.get('cursorPlane')}), committed with the frame, "
          f"under the pen (kernel state: fb {hovering.get('fb')}, {pos[0]}x{pos[1]} at {pos[2]},{pos[3]}; pen at 720,450)"
          if pos else f"atomic KMS on virtio-gpu: the hover preview on the cursor plane (kernel state: {hovering or 'none'})", path)
    check(f.get("cursorPlane") is not None and out.get("fb") == 0,
          f"after proximity out the cursor plane is off (kernel state: fb {out.get('fb')})", path)
    if f:
        print(f"figure: display faults: replug with 1440x900 → first frame on it (Idle status) {f['replugToIdleMs']:.0f} ms; "
              f"mode change to 1024x640 → Idle {f['modeChangeToIdleMs']:.0f} ms; DRM master freed → mode set "
              f"{f['masterFreedToModeSetMs']:.0f} ms; {recovered[-1].split('inkkiosk: ')[-1] if recovered else ''}")


def kms_checks(work, check):
    """Which KMS interface each session's kiosk said it took (its start-up line): atomic on bochs
    (session 1) and on virtio-gpu (display faults), legacy where the command line asked for it
    (session 2)."""
    def said(name, card, driver, interface, accepts):
        """The session's KMS line (from the card on) for that card, driver and interface, whose
        detail `accepts` takes; else None."""
        path = os.path.join(work, f"{name}.log")
        text = open(path).read() if os.path.exists(path) else ""
        for m in kiosk_lines.KMS.finditer(text):
            if (m["card"], m["driver"], m["interface"]) == (card, driver, interface) and accepts(m["detail"]):
                return text[m.start("card"):m.end()], path
        return None, path

    def planes(cursor):
        """An atomic line's detail: its planes, a cursor plane among them when `cursor`."""
        def accepts(detail):
            found = kiosk_lines.ATOMIC_PLANES.fullmatch(detail)
            return found is not None and (found["cursor"] is not None or not cursor)
        return accepts
    line, p = said("session1", "/dev/dri/card0", "bochs-drm", "atomic", planes(cursor=False))
    check(line is not None, f"bochs takes atomic KMS by default: {line}", p)
    line, p = said("session2", "/dev/dri/card0", "bochs-drm", "legacy", lambda detail: detail == '[display] kms = "legacy"')
    check(line is not None, f"--kms legacy keeps legacy KMS: {line}", p)
    line, p = said("display", "/dev/dri/card1", "virtio_gpu", "atomic", planes(cursor=True))
    check(line is not None, f"virtio-gpu takes atomic KMS, with its cursor plane: {line}", p)
