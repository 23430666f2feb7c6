#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the VM session's screenshots: what a person would see on the kiosk's screen.

    check.py WORK_DIR INKKIOSK_BINARY

WORK_DIR holds shots/*.png (QMP screendumps of the real DRM scanout), the kiosk's own
recordings (session*.inklog), its latency figures (session*-latency.json) and the guest log.
Prints one line per check and exits non-zero if any failed, naming the screenshot.
"""
import json
import os
import subprocess
import sys

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_modes import check_modes  # noqa: E402
from check_durability import check_durability  # noqa: E402
from check_api import check_api, summary as api_summary  # noqa: E402

WORK, BIN = sys.argv[1], sys.argv[2]
W, H = 1280, 800
INK = (13, 23, 89)          # RGBA.ink in 8 bits
results = []


def shot(name):
    path = os.path.join(WORK, "shots", f"{name}.png")
    if not os.path.exists(path):
        return None, path
    return Image.open(path).convert("RGB"), path


def check(ok, what, path=""):
    results.append(ok)
    print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f"   [{path}]"), flush=True)


def px(x, y):
    return int(round(x * W)), int(round(y * H))


def darkness(im, x, y):
    r, g, b = im.getpixel((x, y))
    return 1 - (r + g + b) / (3 * 255)


def ink_near(im, x, y, radius=2):
    return any(darkness(im, x + dx, y + dy) > 0.25
               for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1)
               if 0 <= x + dx < W and 0 <= y + dy < H)


def thickness(im, x, y, span=30):
    return sum(1 for yy in range(max(0, y - span), min(H, y + span)) if darkness(im, x, yy) > 0.5)


def ink_count(im, box):
    x0, y0, x1, y1 = box
    return sum(1 for y in range(y0, y1) for x in range(x0, x1) if darkness(im, x, y) > 0.25)


def alpha_at(im, x, y):
    """The preview's opacity over white paper, from the red channel."""
    r, _, _ = im.getpixel((x, y))
    return (255 - r) / (255 - INK[0])


def along(im, y, x0, x1, step=0.05):
    xs = [x0 + i * step for i in range(int(round((x1 - x0) / step)) + 1)]
    return [ink_near(im, *px(x, y), radius=1) for x in xs]


def compare(a, b):
    """Largest channel difference and the share of pixels that differ by more than 40."""
    diff_max, differing = 0, 0
    pa, pb = a.load(), b.load()
    for y in range(H):
        for x in range(W):
            d = max(abs(c1 - c2) for c1, c2 in zip(pa[x, y], pb[x, y]))
            diff_max = max(diff_max, d)
            differing += d > 40
    return diff_max, differing / (W * H)


def coverage(im, points, radius=2.5):
    """The share of points (screen pixels, continuous) with an ink pixel within `radius`:
    the distance from the point to the nearest part of the pixel's square."""
    r = int(radius) + 2
    hit = 0
    for x, y in points:
        found = False
        for py in range(int(y) - r, int(y) + r + 1):
            for qx in range(int(x) - r, int(x) + r + 1):
                if not (0 <= qx < W and 0 <= py < H) or darkness(im, qx, py) <= 0.25:
                    continue
                dx = max(qx - x, 0, x - (qx + 1))
                dy = max(py - y, 0, y - (py + 1))
                if dx * dx + dy * dy <= radius * radius:
                    found = True
                    break
            if found:
                break
        hit += found
    return hit / max(len(points), 1)


def check_smoothing():
    """Ink within 2.5 px of the pen's own positions, with libinput's smoothing on (its
    default) and off (deploy/libinput's quirk): the figure with the quirk must be >= 97 %."""
    path = os.path.join(WORK, "smoothing-path.json")
    if not os.path.exists(path):
        check(False, "the smoothing session left its pen path", path)
        return
    data = json.load(open(path))
    mx, my = data["max"]
    # libinput's normalised position: (raw - min) / (max - min + 1); the tablet's 1.6 aspect is the screen's.
    points = [(x / (mx + 1) * W, y / (my + 1) * H) for stroke in data["strokes"] for x, y in stroke]
    figures = {}
    for label in ("default", "quirk"):
        im, p = shot(f"smoothing-{label}")
        if im is None:
            check(False, f"the smoothing session left its screenshot with {label} smoothing", p)
            continue
        figures[label] = coverage(im, points)
    listing = {label: open(os.path.join(WORK, f"devices-smoothing-{label}.txt")).read()
               for label in ("default", "quirk") if os.path.exists(os.path.join(WORK, f"devices-smoothing-{label}.txt"))}
    check("smoothing: on" in listing.get("default", "") and "smoothing: off" in listing.get("quirk", ""),
          "`inkkiosk devices` says whether libinput smooths the pen (on by default, off with the quirk)",
          os.path.join(WORK, "devices-smoothing-quirk.txt"))
    if "quirk" in figures and "default" in figures:
        print(f"figure: ink within 2.5 px of the pen's positions ({len(points)} samples at 100 Hz, zig-zag and loops): "
              f"{figures['quirk'] * 100:.1f} % with the quirk (smoothing off), {figures['default'] * 100:.1f} % with libinput's default smoothing")
        check(figures["quirk"] >= 0.97, f"with the quirk, ink lies within 2.5 px of {figures['quirk'] * 100:.1f} % "
              f"of the pen's positions (>= 97 %)", shot("smoothing-quirk")[1])


def only_part():
    """The part the guest ran alone (scenario.py, IK_E2E_ONLY), or "" for all of it."""
    path = os.path.join(WORK, "e2e-only.txt")
    return open(path).read().strip() if os.path.exists(path) else ""


def main():
    if only_part().startswith("api"):
        check_api(WORK, check)
        api_summary(WORK)
        failed = results.count(False)
        print(f"e2e (the API probes only): {len(results) - failed} passed, {failed} failed")
        return 1 if failed else 0
    if only_part() == "documents":
        from check_documents import document_checks
        document_checks(WORK, BIN, check, shot, ink_count)
        failed = results.count(False)
        print(f"e2e (the documents only): {len(results) - failed} passed, {failed} failed")
        return 1 if failed else 0
    if only_part() == "logging":
        from check_logging import logging_checks
        logging_checks(WORK, check)
        failed = results.count(False)
        print(f"e2e (the logging only): {len(results) - failed} passed, {failed} failed")
        return 1 if failed else 0
    if only_part() == "cloud":
        from check_cloud import cloud_checks
        cloud_checks(WORK, check, shot, ink_count, W, H)
        failed = results.count(False)
        print(f"e2e (the school's cloud only): {len(results) - failed} passed, {failed} failed")
        return 1 if failed else 0
    if only_part() == "display":
        from check_display import display_checks, kms_checks
        kms_checks(WORK, check)
        display_checks(WORK, check)
        failed = results.count(False)
        print(f"e2e (the display only): {len(results) - failed} passed, {failed} failed")
        return 1 if failed else 0
    if only_part() == "worksheets":
        from check_worksheets import worksheet_checks
        worksheet_checks(WORK, check, shot, ink_count, darkness, W, H)
        failed = results.count(False)
        print(f"e2e (the worksheets only): {len(results) - failed} passed, {failed} failed")
        return 1 if failed else 0
    check_smoothing()

    # --- `inkkiosk devices` on the VM ----------------------------------------------------
    path = os.path.join(WORK, "devices.txt")
    listing = open(path).read() if os.path.exists(path) else ""
    print(listing.rstrip())
    check("[tablet]" in listing and "pressure, distance, tilt-x, tilt-y" in listing and "rotation" in listing and "[touch, direct]" in listing
          and "[pad]" in listing and "Virtual-1: connected" in listing,
          "`inkkiosk devices` lists the pen's axes, the touchscreen, the pad and the connector", path)

    # --- session 1: pen ---------------------------------------------------------------
    im, p = shot("hover-near")
    if im:
        a = alpha_at(im, *px(0.25, 0.15))
        check(a > 0.85, f"hovering close, the preview shows under the pen (alpha {a:.2f})", p)
        near = a
    im, p = shot("hover-far")
    if im:
        a = alpha_at(im, *px(0.25, 0.15))
        expected = 1 - (0.7 - 0.1) / 0.9
        check(abs(a - expected) < 0.12 and a < near, f"farther away the preview is fainter (alpha {a:.2f}, formula {expected:.2f})", p)
    im, p = shot("hover-gone")
    if im:
        check(ink_count(im, (0, 0, W, H)) == 0, "after proximity-out the preview is gone and nothing else is drawn", p)

    im, p = shot("pressure")
    if im:
        light = thickness(im, *px(0.3, 0.3))
        firm = thickness(im, *px(0.7, 0.3))
        check(light >= 1 and firm >= light + 3, f"higher pressure gives visibly wider ink (light {light} px, firm {firm} px)", p)
        check(all(along(im, 0.3, 0.17, 0.43)) and all(along(im, 0.3, 0.57, 0.83)), "ink along both pressed strokes", p)
        check(not any(along(im, 0.5, 0.1, 0.9)), "no ink where the pen only hovered", p)

    im, p = shot("erased")
    if im:
        check(not any(along(im, 0.3, 0.17, 0.43)) and all(along(im, 0.3, 0.57, 0.83)),
              "after a side-button click the pen erases (light stroke gone, firm stroke kept)", p)
        check(ink_count(im, (*px(0.28, 0.2), *px(0.32, 0.4))) == 0, "the eraser stroke left no ink", p)
    im, p = shot("switched-back")
    if im:
        check(all(along(im, 0.45, 0.17, 0.83)), "a second click switches back to the pen", p)
    im, p = shot("finger")
    if im:
        check(not any(along(im, 0.6, 0.2, 0.8)), "after the pen was used, a finger does not draw", p)

    im, p = shot("vt-locked")
    if im:
        check(all(along(im, 0.3, 0.57, 0.83)) and darkness(im, 20, 20) < 0.05,
              "with VT switching locked, Ctrl-Alt-F2 does not leave the kiosk", p)

    # --- session 2: calligraphy, unplug, libinput replay -----------------------------------
    im, p = shot("calligraphy")
    if im:
        across = thickness(im, *px(0.5, 0.2))
        along_ = thickness(im, *px(0.5, 0.35))
        check(across >= 10 and along_ <= 4, f"calligraphy follows the tilt (nib across: {across} px, along: {along_} px)", p)
    im, p = shot("vt-away")
    if im:
        paper = sum(1 for x in range(0, W, 40) for y in range(0, H, 40) if darkness(im, x, y) < 0.05)
        check(paper == 0, f"switched to VT 2, the kiosk has let go of the screen ({paper} paper-white samples left)", p)
    im, p = shot("vt-back")
    if im:
        check(all(along(im, 0.2, 0.22, 0.78)) and darkness(im, 20, 20) < 0.05,
              "back on its VT, the kiosk takes the screen back and redraws the ink", p)
    im, p = shot("replug")
    if im:
        check(any(along(im, 0.5, 0.2, 0.3)), "the stroke cut by the unplug kept its ink", p)
        check(all(along(im, 0.65, 0.2, 0.8)), "after unplugging and plugging the tablet back, the next stroke draws", p)
    im, p = shot("libinput-replay")
    if im:
        check(all(along(im, 0.8, 0.3, 0.7)), "a session played by `libinput replay` draws", p)

    # --- a resistive kiosk controller, before and after the udev rule -------------------------
    before = os.path.join(WORK, "devices-resistive-untagged.txt")
    text = open(before).read() if os.path.exists(before) else ""
    check("eGalax" in text and "resolution" in text,
          "`inkkiosk devices` says libinput ignored the untagged resistive controller, and why", before)
    after = os.path.join(WORK, "devices-resistive-tagged.txt")
    text = open(after).read() if os.path.exists(after) else ""
    check("eGalax Inc. USB TouchController  [touch, direct]" in text,
          "with deploy/udev's rule it is a touchscreen", after)
    im, p = shot("resistive")
    if im:
        check(all(along(im, 0.9, 0.22, 0.78)), "and it draws", p)

    # --- never lose ink: kill -9 and restart -------------------------------------------------
    im, p = shot("journal-restored")
    if im:
        check(all(all(along(im, y, 0.22, 0.78)) for y in (0.2, 0.35, 0.5)),
              "after kill -9 and a restart, every finished stroke is back", p)
        check(not any(along(im, 0.65, 0.2, 0.5)), "and the stroke cut by the kill is not half-drawn", p)

    # --- the kiosk's own recordings, replayed offscreen, give the same picture ----------------
    for session, tool, final in (("session1", "pen", "final1"), ("session2", "calligraphy", "final2")):
        im, p = shot(final)
        rec = os.path.join(WORK, f"{session}.inklog")
        if im is None or not os.path.exists(rec):
            check(False, f"{session}: screenshot and recording exist", p)
            continue
        out = os.path.join(WORK, f"{session}-replay.png")
        r = subprocess.run([BIN, "replay", rec, "--size", f"{W}x{H}", "--tool", tool, "--png", out],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"{session}: its recording replays ({r.stderr.strip()[:200]})", rec)
        if r.returncode == 0:
            worst, share = compare(im, Image.open(out).convert("RGB"))
            check(share < 0.001, f"{session}: replay matches the screen (max difference {worst}, {share * 100:.3f}% of pixels differ)", p)

    # --- the console after SIGTERM ----------------------------------------------------------
    for session in ("session1", "session2"):
        path = os.path.join(WORK, f"{session}-kdmode.txt")
        mode = open(path).read().strip() if os.path.exists(path) else "missing"
        check(mode == "0", f"{session}: after SIGTERM the console is back in text mode (KDGETMODE {mode})", path)

    # --- the two products: signature kiosk and classroom tablet ------------------------------
    check_modes(WORK, shot, check, px, along, ink_count, darkness, W, H)
    from check_documents import document_checks
    document_checks(WORK, BIN, check, shot, ink_count)
    from check_worksheets import worksheet_checks   # modes.worksheet_session
    worksheet_checks(WORK, check, shot, ink_count, darkness, W, H)
    from check_cloud import cloud_checks   # cloud_session.py: hand-out and hand-in over the school's cloud
    cloud_checks(WORK, check, shot, ink_count, W, H)
    # --- the signature API flooded, fed malformed requests, loaded, killed during Accept -------
    check_api(WORK, check)
    check_durability(WORK, check)
    # --- kiosk lockdown (lockdown.py, check_lockdown.py) ---------------------------------------
    from check_lockdown import lockdown_checks
    lockdown_checks(WORK, check, shot, along, darkness)
    from check_logging import logging_checks   # logging_session.py: [log] level, journald's priorities
    logging_checks(WORK, check)

    # --- display faults on the second card (display_faults.py, check_display.py) ---------------
    from check_display import display_checks, kms_checks
    kms_checks(WORK, check)
    display_checks(WORK, check)

    # --- the boot-to-kiosk appliance (scripts/appliance/e2e-boot.sh, check_appliance.py) -------
    from check_appliance import appliance_checks
    appliance_checks(WORK, check)

    # --- latency ------------------------------------------------------------------------------
    for session in ("session1", "session2"):
        path = os.path.join(WORK, f"{session}-latency.json")
        if os.path.exists(path):
            r = json.load(open(path))
            print(f"     {session} latency over {r['frames']} frames: input→flip median {r['inputToFlipMs']['median']:.2f} ms"
                  f" p99 {r['inputToFlipMs']['p99']:.2f} ms; flip→scanout median {r['flipToScanoutMs']['median']:.2f} ms"
                  f" p99 {r['flipToScanoutMs']['p99']:.2f} ms; render median {r['renderMs']['median']:.2f} ms"
                  f" p99 {r['renderMs']['p99']:.2f} ms; peak RSS {r.get('peakRSSMiB', 0):.1f} MiB")
        else:
            check(False, f"{session}: latency figures written", path)

    api_summary(WORK)
    failed = results.count(False)
    print(f"e2e: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
