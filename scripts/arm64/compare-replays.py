#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The same pictures on both architectures: every bundled recording replayed by the x86 build and
by the arm64 build (under qemu-aarch64-static, against the arm64 root it was linked with), and
what they write compared.

    scripts/arm64/compare-replays.py X86_BINARY ARM64_BINARY ARM64_ROOT [--out DIR]

Per recording: the screen as PNG, the ink as SVG, and a signature capture (PNG, SVG, InkML,
JSON). The rules, and why:
- PNG and InkML: byte-identical. The ink's geometry is computed in Swift (IEEE 754 doubles, the
  same operations in the same order on both), rasterised by cairo and pixman with integer and
  fixed-point arithmetic, and the InkML prints the samples' own numbers: nothing here may differ
  by architecture. Should a PNG ever differ, the check still reports how much (pixels off, the
  largest channel difference) before it fails.
- SVG: the x86 build links Debian 12's cairo 1.16, the arm64 build Debian 13's cairo 1.18, whose
  SVG writer names its groups differently and writes a version attribute. So the SVG's drawing is
  compared, not its text: every path's data and fill, in order, must be identical, and both files
  rasterised by rsvg-convert must be identical pixel for pixel.
- JSON: identical but for the capture's wall-clock times (`started`, `ended`), which are when the
  replay ran, and the SVG's SHA-256 (the SVG is judged above).
A recording without ink (hover.inklog) has no capture: the kiosk refuses an empty signature.
Prints a line per file and `arm64-replay: N passed, N failed`; exit 1 on a failure.
"""

import argparse
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from PIL import Image, ImageChops

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
WALL_CLOCK_KEYS = {"started", "ended"}


NO_INK = {"hover"}


def replay(cmd, recording, outdir):
    name = os.path.splitext(os.path.basename(recording))[0]
    tool = "calligraphy" if name == "tilt" else "pen"
    os.makedirs(outdir, exist_ok=True)
    args = cmd + ["replay", recording, "--tool", tool,
                  "--png", os.path.join(outdir, name + ".png"),
                  "--svg", os.path.join(outdir, name + ".svg")]
    if name not in NO_INK:
        args += ["--capture", os.path.join(outdir, "capture")]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({run.returncode}): {run.stderr.strip()[-500:]}")
    files = {}
    for path in glob.glob(os.path.join(outdir, "**", "*"), recursive=True):
        if os.path.isfile(path):
            files[os.path.relpath(path, outdir)] = path
    return files


def pixels_differ(a, b):
    """(pixels that differ, largest channel difference, total pixels)."""
    ia, ib = Image.open(a).convert("RGBA"), Image.open(b).convert("RGBA")
    if ia.size != ib.size:
        return None
    diff = ImageChops.difference(ia, ib)
    worst = max(hi for _, hi in diff.getextrema())
    off = sum(1 for px in diff.getdata() if any(px))
    return off, worst, ia.size[0] * ia.size[1]


PATH_RE = re.compile(r"<path\b([^>]*)/?>")
ATTR_RE = re.compile(r'([a-z-]+)="([^"]*)"')
FILL_RE = re.compile(r"fill:\s*([^;]+)")


def svg_paths(path):
    """Each path's (fill colour, data), whether cairo wrote the fill as a style (1.16) or an
    attribute (1.18)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    paths = []
    for attrs in PATH_RE.findall(text):
        a = dict(ATTR_RE.findall(attrs))
        fill = a.get("fill") or next(iter(FILL_RE.findall(a.get("style", ""))), "")
        paths.append((fill.replace(" ", ""), a.get("d", "")))
    return paths


def rasterise(svg, png):
    subprocess.run(["rsvg-convert", "-o", png, svg], check=True)


def compare(rel, x86, arm, work):
    """(ok, detail)."""
    with open(x86, "rb") as f:
        xb = f.read()
    with open(arm, "rb") as f:
        ab = f.read()
    if xb == ab:
        return True, "byte-identical"
    ext = os.path.splitext(rel)[1]
    if ext == ".png":
        d = pixels_differ(x86, arm)
        if d is None:
            return False, "sizes differ"
        return False, f"{d[0]} of {d[2]} pixels differ, by up to {d[1]}"
    if ext == ".json":
        xj, aj = json.loads(xb), json.loads(ab)
        for j in (xj, aj):
            for k in WALL_CLOCK_KEYS:
                j.pop(k, None)
            for name in list(j.get("sha256", {})):
                if name.endswith(".svg"):
                    del j["sha256"][name]
        return (xj == aj), "identical but for the wall-clock times" if xj == aj else "differ beyond the wall-clock times"
    if ext == ".svg":
        xp, ap = svg_paths(x86), svg_paths(arm)
        if not xp and not rel.startswith(tuple(NO_INK)):
            return False, "no <path> in the x86 SVG"
        if xp != ap:
            first = next((i for i, (p, q) in enumerate(zip(xp, ap)) if p != q), min(len(xp), len(ap)))
            return False, f"path data differ ({len(xp)} against {len(ap)} paths; first difference at path {first})"
        xr, ar = os.path.join(work, "x86.png"), os.path.join(work, "arm.png")
        rasterise(x86, xr)
        rasterise(arm, ar)
        d = pixels_differ(xr, ar)
        if d is None:
            return False, "rasterised sizes differ"
        ok = d[0] == 0
        return ok, (f"{len(xp)} paths identical; text differs (cairo 1.16 / 1.18); rasterised: "
                    f"{d[0]} of {d[2]} pixels differ, by up to {d[1]}")
    return False, "differ"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("x86")
    ap.add_argument("arm64")
    ap.add_argument("root")
    ap.add_argument("--out", help="keep both builds' files here (default: a temporary directory)")
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="inkkiosk-arm64-replay-")
    # A capture is never written over: the last run's files go first.
    for build in ("x86", "arm64"):
        shutil.rmtree(os.path.join(out, build), ignore_errors=True)
    x86_cmd = [a.x86]
    arm_cmd = ["qemu-aarch64-static", "-L", a.root, a.arm64]
    passed = failed = 0
    recordings = sorted(glob.glob(os.path.join(REPO, "Tests", "Recordings", "*.inklog")))
    if not recordings:
        print("arm64-replay: no recordings in Tests/Recordings")
        return 1
    for rec in recordings:
        name = os.path.splitext(os.path.basename(rec))[0]
        try:
            xf = replay(x86_cmd, rec, os.path.join(out, "x86", name))
            af = replay(arm_cmd, rec, os.path.join(out, "arm64", name))
        except RuntimeError as e:
            print(f"FAIL {name}: {e}")
            failed += 1
            continue
        if set(xf) != set(af):
            print(f"FAIL {name}: files differ: x86 {sorted(xf)} arm64 {sorted(af)}")
            failed += 1
        for rel in sorted(set(xf) & set(af)):
            ok, detail = compare(rel, xf[rel], af[rel], out)
            print(f"{'ok  ' if ok else 'FAIL'} {name}/{rel}: {detail}")
            passed, failed = (passed + 1, failed) if ok else (passed, failed + 1)
    print(f"files in {out}")
    print(f"arm64-replay: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
