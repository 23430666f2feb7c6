#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""inkkiosk and Xournal++ side by side on one page of signatures (scripts/peer-bench.sh).

Times `inkkiosk replay PAGE.inklog --png` and `xournalpp -i ... --export-png-width=1920 PAGE.xopp`
alternately (the same for SVG and PDF), prints the medians and their ratio, and checks that
both PNGs show the ink: dark where the strokes' samples are, nothing away from the strokes.
The strokes (pixel positions and widths) are read from the .xopp, which holds the same ink as
the .inklog.
"""

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

from PIL import Image, ImageChops, ImageDraw

SIZE = (1920, 1080)
MARGIN = 3.0   # px: a smooth curve may bend this far off the polyline between two samples


def strokes_of(xopp):
    root = ET.fromstring(gzip.open(xopp).read())
    strokes = []
    for s in root.iter("stroke"):
        v = [float(t) for t in s.text.split()]
        pts = list(zip(v[0::2], v[1::2]))
        widths = [float(t) for t in s.get("width").split()]
        per_point = widths[1:] + [widths[-1]] if len(widths) > 1 else [widths[0]] * len(pts)
        strokes.append((pts, per_point[:len(pts)]))
    return strokes


def check(png, strokes):
    """(share of samples with ink at them, pixels of ink away from every stroke, ink pixels)."""
    gray = Image.open(png).convert("RGB").convert("L")
    if gray.size != SIZE:
        return 0.0, -1, 0
    ink = gray.point(lambda v: 255 if v < 200 else 0)
    allowed = Image.new("L", SIZE, 0)
    draw = ImageDraw.Draw(allowed)
    hit = total = 0
    px = gray.load()
    for pts, widths in strokes:
        for (x0, y0), (x1, y1), w in zip(pts, pts[1:], widths):
            draw.line([(x0, y0), (x1, y1)], fill=255, width=max(1, round(w + 2 * MARGIN)))
        for (x, y), w in zip(pts, widths):
            r = w / 2 + MARGIN
            draw.ellipse([x - r, y - r, x + r, y + r], fill=255)
            total += 1
            xi, yi = int(x), int(y)
            if any(px[min(max(xi + dx, 0), SIZE[0] - 1), min(max(yi + dy, 0), SIZE[1] - 1)] < 200
                   for dx in (-1, 0, 1) for dy in (-1, 0, 1)):
                hit += 1
    stray = ImageChops.multiply(ink, ImageChops.invert(allowed))
    return hit / max(total, 1), stray.histogram()[255], ink.histogram()[255]


def timed(cmd):
    """Wall seconds and peak RSS (MiB) of one run of cmd."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("peer-bench: %s failed:\n%s" % (" ".join(cmd), err.decode(errors="replace")))
    return elapsed, usage.ru_maxrss / 1024


def alternate(a, b, runs):
    """Medians of a's and b's wall time, of the ratio of each pair (a and b run in turn, so a
    machine that slows down slows both), and a's and b's largest peak RSS."""
    timed(a), timed(b)   # warm the page cache
    ta, tb, ra, rb = [], [], [], []
    for _ in range(runs):
        (x, mx), (y, my) = timed(a), timed(b)
        ta.append(x), tb.append(y), ra.append(mx), rb.append(my)
    return (statistics.median(ta), statistics.median(tb),
            statistics.median(x / y for x, y in zip(ta, tb)), max(ra), max(rb))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    out = args.out
    inklog, xopp = os.path.join(out, "page.inklog"), os.path.join(out, "page.xopp")
    strokes = strokes_of(xopp)
    print("page: %d strokes, %d samples, 1920x1080 (%s, %s)"
          % (len(strokes), sum(len(p) for p, _ in strokes), inklog, xopp))

    def ours(kind):
        return [args.bin, "replay", inklog, "--size", "%dx%d" % SIZE, "--" + kind, os.path.join(out, "inkkiosk." + kind)]

    def theirs(kind):
        f = os.path.join(out, "xournalpp." + kind)
        if kind == "pdf":
            return ["xournalpp", "-p", f, xopp]
        return ["xournalpp", "-i", f] + (["--export-png-width=%d" % SIZE[0]] if kind == "png" else []) + [xopp]

    print("%d runs each, alternating; median wall time, median of the pairs' ratios, peak RSS:" % args.runs)
    ratios = {}
    for kind in ("png", "svg", "pdf"):
        a, b, ratio, ma, mb = alternate(ours(kind), theirs(kind), args.runs if kind == "png" else max(3, args.runs // 2))
        ratios[kind] = ratio
        sa = os.path.getsize(os.path.join(out, "inkkiosk." + kind))
        sb = os.path.getsize(os.path.join(out, "xournalpp." + kind))
        print("  %s  inkkiosk %.3f s (%d KB, %.0f MiB)  xournalpp %.3f s (%d KB, %.0f MiB)  ratio %.2f"
              % (kind.upper(), a, sa // 1024, ma, b, sb // 1024, mb, ratio))
    print("  command: %s" % " ".join(ours("png")))

    failed = False
    for name in ("inkkiosk.png", "xournalpp.png"):
        share, stray, inked = check(os.path.join(out, name), strokes)
        ok = share >= 0.98 and stray == 0
        failed |= not ok
        print("check %s: ink at %.1f %% of the samples, %d ink pixels away from the strokes, %d ink pixels: %s"
              % (name, 100 * share, stray, inked, "ok" if ok else "FAILED"))
    print("inkkiosk / Xournal++ (PNG): %.2f (the target is 0.35 or less)" % ratios["png"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
