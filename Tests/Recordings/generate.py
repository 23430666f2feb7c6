#!/usr/bin/env python3
"""Generate the synthetic .inklog input recordings used by the tests.

Each recording is one JSON object per line: a header listing the devices,
then the events in time order.  Everything here is deterministic; the only
randomness comes from seeded random.Random instances.

Usage:
    python3 generate.py [--out DIR]          write all recordings into DIR
                                             (default: this script's directory)
    python3 generate.py --long N --out FILE  write one long benchmark
                                             recording of N pen strokes
"""

import argparse
import json
import math
import os
import random
import sys

# --------------------------------------------------------------------------
# Devices

TABLET = {"id": 1, "kind": "tablet", "name": "Wacom Intuos5 touch M Pen",
          "widthMM": 224, "heightMM": 140, "direct": False}
TOUCH = {"id": 2, "kind": "touch", "name": "eGalax Touch Screen",
         "widthMM": 217, "heightMM": 136, "direct": True}
PAD = {"id": 3, "kind": "pad", "name": "Wacom Intuos5 touch M Pad",
       "widthMM": 224, "heightMM": 140, "direct": False}

BTN_STYLUS = 331
BTN_STYLUS2 = 332

PEN_SERIAL = 0x2A4B8C1
DEFAULT_TILT = (10.0, -5.0)
DEFAULT_PRESSURE = 0.5

START_US = 10_000_000  # recordings start at t = 10.0 s


def _r5(v):
    return round(v, 5) + 0.0  # "+ 0.0" turns -0.0 into 0.0


def _clamp01(v):
    return min(1.0, max(0.0, v))


def _lerp(a, b, s):
    return a + (b - a) * s


def line(p0, p1, duration, hz=200):
    """Points from p0 to p1 (inclusive) sampled at `hz` over `duration` s."""
    n = max(1, int(round(duration * hz)))
    return [(_lerp(p0[0], p1[0], i / n), _lerp(p0[1], p1[1], i / n))
            for i in range(n + 1)]


# --------------------------------------------------------------------------
# Recorder

class Recorder:
    """Accumulates events for one recording and tracks the pen state.

    Time is kept in integer microseconds.  Every pen event is emitted at the
    current time, after which the clock advances by one pen period
    (`pen_dt`), so consecutive pen events are one sample apart.
    """

    def __init__(self, devices, pen_hz=200, touch_hz=100):
        self.devices = list(devices)
        self.dev_ids = {d["id"] for d in self.devices}
        self.now = START_US
        self.pen_dt = int(round(1_000_000 / pen_hz))
        self.touch_dt = int(round(1_000_000 / touch_hz))
        self.lines = []
        self._dumps = json.JSONEncoder(separators=(",", ":")).encode
        # pen state
        self.pen_dev = TABLET["id"]
        self.in_prox = False
        self.tip = False
        self.x = self.y = 0.5
        self.pressure = 0.0
        self.distance = 1.0
        self.tilt = DEFAULT_TILT

    # ---- low level -------------------------------------------------------

    def emit(self, dev, ev, **fields):
        assert dev in self.dev_ids, "device %d not in header" % dev
        obj = {"t": round(self.now / 1e6, 6), "dev": dev, "ev": ev}
        obj.update(fields)
        self.lines.append(self._dumps(obj))

    def wait(self, seconds):
        self.now += int(round(seconds * 1_000_000))

    def axes(self, **override):
        a = {"x": _r5(self.x), "y": _r5(self.y),
             "pressure": _r5(self.pressure), "distance": _r5(self.distance),
             "tiltX": _r5(self.tilt[0]), "tiltY": _r5(self.tilt[1])}
        a.update(override)
        return a

    def _set(self, x=None, y=None, pressure=None, distance=None, tilt=None):
        if x is not None:
            self.x = _clamp01(x)
        if y is not None:
            self.y = _clamp01(y)
        if pressure is not None:
            self.pressure = pressure
        if distance is not None:
            self.distance = distance
        if tilt is not None:
            self.tilt = tilt

    def pen_axis(self, **state):
        self._set(**state)
        self.emit(self.pen_dev, "axis", **self.axes())
        self.now += self.pen_dt

    # ---- proximity / tip -------------------------------------------------

    def prox_in(self, x, y, distance=0.6, tool="pen", serial=PEN_SERIAL,
                tilt=None):
        assert not self.in_prox
        self._set(x=x, y=y, pressure=0.0, distance=distance,
                  tilt=tilt or self.tilt)
        self.in_prox, self.tip = True, False
        self.emit(self.pen_dev, "proximity", **{"in": True, "tool": tool,
                                                "serial": serial},
                  **self.axes())
        self.tool, self.serial = tool, serial
        self.now += self.pen_dt

    def prox_out(self, tip_down=False, **override):
        """Proximity out at the current state; `override` replaces axis
        values in the event only (e.g. x=0, y=0 like some drivers send).
        tip_down: the pen leaves while the tip is still down (no tip-up)."""
        assert self.in_prox and (tip_down or not self.tip)
        self.tip = False
        self.emit(self.pen_dev, "proximity", **{"in": False, "tool": self.tool,
                                                "serial": self.serial},
                  **self.axes(**override))
        self.in_prox = False
        self.now += self.pen_dt

    def tip_down(self, pressure):
        assert self.in_prox and not self.tip and pressure > 0
        self._set(pressure=pressure, distance=0.0)
        self.tip = True
        self.emit(self.pen_dev, "tip", down=True, **self.axes())
        self.now += self.pen_dt

    def tip_up(self, distance=0.02, **override):
        """Tip up at the current state; `override` replaces axis values in
        the event only (a controller's glitch on release: 0,0 or the maximum)."""
        assert self.tip
        self._set(pressure=0.0, distance=distance)
        self.tip = False
        self.emit(self.pen_dev, "tip", down=False, **self.axes(**override))
        self.now += self.pen_dt

    # ---- hovering --------------------------------------------------------

    def hover(self, path):
        """Hover axis events along `path`, a list of (x, y, distance)."""
        assert self.in_prox and not self.tip
        for x, y, d in path:
            self.pen_axis(x=x, y=y, distance=d, pressure=0.0)

    def hover_to(self, x, y, distance, duration, tilt=None, lift=0.0):
        """Hover in a straight line to (x, y, distance) over `duration`;
        `lift` raises the pen mid-way (a small arc)."""
        n = max(1, int(round(duration * 1_000_000 / self.pen_dt)))
        x0, y0, d0, t0 = self.x, self.y, self.distance, self.tilt
        t1 = tilt or t0
        for i in range(1, n + 1):
            s = i / n
            self.tilt = (_lerp(t0[0], t1[0], s), _lerp(t0[1], t1[1], s))
            self.hover([(_lerp(x0, x, s), _lerp(y0, y, s),
                         _lerp(d0, distance, s) + lift * math.sin(math.pi * s))])

    def hover_hold(self, duration, drift=(0.0004, -0.0003)):
        """Keep hovering roughly in place (slight hand drift) for `duration`,
        emitting axis events at the pen rate."""
        n = int(round(duration * 1_000_000 / self.pen_dt))
        x0, y0, d = self.x, self.y, self.distance
        for i in range(1, n + 1):
            s = i / max(1, n)
            self.hover([(x0 + drift[0] * math.sin(math.pi * s),
                         y0 + drift[1] * s, d)])

    def approach(self, x, y, steps=6, offset=(-0.01, -0.01)):
        """Enter proximity near (x, y) at distance 0.6 and descend to ~0.05
        right above (x, y)."""
        sx, sy = x + offset[0], y + offset[1]
        self.prox_in(sx, sy, distance=0.6)
        for i in range(1, steps + 1):
            s = i / steps
            self.hover([(_lerp(sx, x, s), _lerp(sy, y, s), _lerp(0.6, 0.05, s))])

    def lift_off(self, leave, steps=4):
        """Hover events after a tip-up: keep drifting in the stroke direction
        while rising; optionally rise further and leave proximity."""
        dx, dy = self._last_dir
        target = 0.12 if not leave else 0.4
        total = steps if not leave else steps + 4
        d0 = self.distance
        for i in range(1, total + 1):
            self.hover([(self.x + dx * 0.5, self.y + dy * 0.5,
                         _lerp(d0, target, i / total))])
        if leave:
            self.prox_out()

    # ---- strokes ---------------------------------------------------------

    def pen_stroke(self, points, pressure=DEFAULT_PRESSURE, tilt=None,
                   leave=True):
        """A full pen stroke through `points` (one sample per pen period).

        pressure: a number or a list with one value per point.
        tilt: a (tiltX, tiltY) pair or a list with one pair per point;
              default: the default natural pen angle.
        leave: leave proximity after the stroke (otherwise keep hovering).
        """
        n = len(points)
        pressures = pressure if isinstance(pressure, list) else [pressure] * n
        tilt = tilt or DEFAULT_TILT
        tilts = tilt if isinstance(tilt, list) else [tilt] * n
        assert len(pressures) == n and len(tilts) == n and n >= 2
        x0, y0 = points[0]

        if not self.in_prox:
            self.tilt = tilts[0]
            self.approach(x0, y0)
        else:
            dist = math.hypot(x0 - self.x, y0 - self.y)
            self.hover_to(x0, y0, 0.05, max(0.03, dist / 2.0), tilt=tilts[0],
                          lift=min(0.15, dist * 0.3))

        self.tilt = tilts[0]
        self.tip_down(pressures[0])
        for (x, y), p, tl in zip(points[1:], pressures[1:], tilts[1:]):
            self.pen_axis(x=x, y=y, pressure=p, distance=0.0, tilt=tl)
        (xa, ya), (xb, yb) = points[-2], points[-1]
        self._last_dir = (xb - xa, yb - ya)
        self.tip_up()
        self.lift_off(leave)

    def click(self, button, ms, settle=0.05):
        """Stylus button click (or hold) while hovering: axis events keep
        coming at the pen rate before, during and after it."""
        assert self.in_prox and not self.tip
        self.hover_hold(settle)
        self.button(button, True)
        self.hover_hold(ms / 1000.0 - self.pen_dt / 1e6)
        self.button(button, False)
        self.hover_hold(settle)

    def button(self, button, pressed):
        self.emit(self.pen_dev, "button", button=button, pressed=pressed)
        self.now += self.pen_dt

    # ---- pad -------------------------------------------------------------

    def pad_click(self, button, ms, dev=PAD["id"]):
        self.emit(dev, "pad-button", button=button, pressed=True)
        self.wait(ms / 1000.0)
        self.emit(dev, "pad-button", button=button, pressed=False)
        self.now += self.pen_dt

    # ---- touch -----------------------------------------------------------

    def touch_frame(self, events, dev=TOUCH["id"]):
        """One touch frame: `events` is a list of (ev, slot[, x, y]) emitted
        at the same time, followed by a touch-frame; then advance."""
        for e in events:
            ev, slot = e[0], e[1]
            if ev in ("touch-down", "touch-motion"):
                self.emit(dev, ev, slot=slot, x=_r5(e[2]), y=_r5(e[3]))
            else:
                self.emit(dev, ev, slot=slot)
        self.emit(dev, "touch-frame")
        self.now += self.touch_dt

    def touch_stroke(self, points, slot=0, end="touch-up"):
        """touch-down at points[0], touch-motion through the rest, then
        `end` ("touch-up" or "touch-cancel") one frame later."""
        self.touch_frame([("touch-down", slot) + tuple(points[0])])
        for p in points[1:]:
            self.touch_frame([("touch-motion", slot) + tuple(p)])
        self.touch_frame([(end, slot)])

    # ---- output ----------------------------------------------------------

    def header(self):
        return self._dumps({"inklog": 1, "devices": self.devices})

    def write(self, path):
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.header())
            f.write("\n")
            for ln in self.lines:
                f.write(ln)
                f.write("\n")


# --------------------------------------------------------------------------
# Recordings

GAP = 0.3  # seconds out of proximity between strokes


def rec_pressure():
    r = Recorder([TABLET])
    pts = line((0.15, 0.25), (0.85, 0.25), 0.8)
    r.pen_stroke(pts, pressure=0.1)
    r.wait(GAP)
    pts = line((0.15, 0.5), (0.85, 0.5), 0.8)
    r.pen_stroke(pts, pressure=0.9)
    r.wait(GAP)
    pts = line((0.15, 0.75), (0.85, 0.75), 0.8)
    ramp = [0.05 + 0.95 * (x - 0.15) / 0.7 for x, _ in pts]
    r.pen_stroke(pts, pressure=ramp)
    return r


def rec_tilt():
    r = Recorder([TABLET])
    rng = random.Random(1234)
    for y, tl in ((0.2, (50.0, 0.0)), (0.4, (0.0, 50.0)), (0.6, (35.0, 35.0))):
        r.pen_stroke(line((0.2, y), (0.8, y), 0.6), pressure=0.6, tilt=tl)
        r.wait(GAP)
    pts = line((0.2, 0.8), (0.8, 0.8), 0.6)
    turn = 6  # 30 ms at 200 Hz
    tilts, j = [], None
    for i, (x, _) in enumerate(pts):
        if x < 0.5:
            tilts.append((50.0, 0.0))
            continue
        if j is None:
            j = i
        s = min(1.0, (i - j + 1) / turn)
        jx, jy = rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)
        tilts.append((_lerp(50.0, 0.0, s) + jx * s, jy * s))
    r.pen_stroke(pts, pressure=0.6, tilt=tilts)
    return r


def rec_hover():
    r = Recorder([TABLET], pen_hz=100)
    r.prox_in(0.5, 0.5, distance=1.0)
    n = 100  # 1 s at 100 Hz
    for i in range(1, n + 1):
        r.hover([(0.5, 0.5, 1.0 - i / n)])
    for i in range(1, n + 1):
        r.hover([(0.5, 0.5, i / n)])
    r.prox_out()
    return r


def rec_zigzag():
    r = Recorder([TABLET])
    pts = [(0.1 + 0.013 * k, 0.4 if k % 2 == 0 else 0.6) for k in range(61)]
    r.pen_stroke(pts, pressure=0.5)
    r.wait(GAP)
    pts = [(0.5 + 0.075 * math.cos(2 * math.pi * k / 40),
            0.8 + 0.12 * math.sin(2 * math.pi * k / 40)) for k in range(41)]
    r.pen_stroke(pts, pressure=0.5)
    return r


def rec_eraser():
    r = Recorder([TABLET])
    r.pen_stroke(line((0.2, 0.3), (0.8, 0.3), 0.6), leave=False)
    r.pen_stroke(line((0.2, 0.7), (0.8, 0.7), 0.6), leave=True)
    r.wait(0.6)  # flipping the pen over
    r.tilt = (-10.0, 5.0)
    r.prox_in(0.51, 0.14, distance=0.6, tool="eraser", serial=PEN_SERIAL)
    for i in range(1, 7):
        s = i / 6
        r.hover([(_lerp(0.51, 0.5, s), _lerp(0.14, 0.15, s), _lerp(0.6, 0.05, s))])
    r.tip_down(0.5)
    for x, y in line((0.5, 0.15), (0.5, 0.45), 0.4)[1:]:
        r.pen_axis(x=x, y=y, pressure=0.5, distance=0.0)
    r._last_dir = (0.0, 0.3 / 80)
    r.tip_up()
    r.lift_off(leave=True)
    return r


def rec_buttons():
    r = Recorder([TABLET])
    # stroke 1, then a click while hovering
    r.pen_stroke(line((0.2, 0.15), (0.8, 0.15), 0.6), leave=False)
    r.hover_to(0.81, 0.17, 0.1, 0.05)
    r.click(BTN_STYLUS, 80)
    # stroke 2, click again
    r.pen_stroke(line((0.2, 0.35), (0.8, 0.35), 0.6), leave=False)
    r.hover_to(0.81, 0.37, 0.1, 0.05)
    r.click(BTN_STYLUS, 80)
    # stroke 3, then a long press (hold)
    r.pen_stroke(line((0.2, 0.55), (0.8, 0.55), 0.6), leave=False)
    r.hover_to(0.81, 0.57, 0.1, 0.05)
    r.click(BTN_STYLUS, 900)
    # stroke 4
    r.pen_stroke(line((0.2, 0.75), (0.8, 0.75), 0.6), leave=False)
    # BTN_STYLUS2 held across stroke 5
    r.hover_to(0.7, 0.6, 0.1, 0.1)
    r.hover_hold(0.03)
    r.button(BTN_STYLUS2, True)
    r.hover_hold(0.03)
    r.pen_stroke(line((0.7, 0.65), (0.7, 0.85), 0.3), leave=False)
    r.hover_hold(0.03)
    r.button(BTN_STYLUS2, False)
    r.hover_to(0.72, 0.9, 0.4, 0.05)
    r.prox_out()
    return r


def rec_finger():
    r = Recorder([TOUCH])
    r.touch_stroke(line((0.2, 0.3), (0.8, 0.3), 0.5, hz=100))
    r.wait(0.3)
    r.touch_stroke(line((0.2, 0.5), (0.5, 0.5), 0.3, hz=100), end="touch-cancel")
    r.wait(0.3)
    # two fingers: slot 0 starts, slot 1 lands 60 ms later, both move, lift
    dx0, dx1, dy1 = 0.01, -0.006, -0.004
    r.touch_frame([("touch-down", 0, 0.2, 0.7)])
    x0 = 0.2
    for _ in range(5):
        x0 += dx0
        r.touch_frame([("touch-motion", 0, x0, 0.7)])
    x1, y1 = 0.8, 0.9
    x0 += dx0
    r.touch_frame([("touch-motion", 0, x0, 0.7), ("touch-down", 1, x1, y1)])
    for _ in range(5):
        x0, x1, y1 = x0 + dx0, x1 + dx1, y1 + dy1
        r.touch_frame([("touch-motion", 0, x0, 0.7), ("touch-motion", 1, x1, y1)])
    r.touch_frame([("touch-up", 0), ("touch-up", 1)])
    return r


def rec_finger_after_pen():
    r = Recorder([TABLET, TOUCH])
    r.pen_stroke(line((0.2, 0.3), (0.8, 0.3), 0.6))
    r.now -= r.pen_dt  # measure the gap from the proximity-out event itself
    r.wait(0.5)
    r.touch_stroke(line((0.2, 0.6), (0.8, 0.6), 0.5, hz=100))
    return r


def rec_stray():
    r = Recorder([TABLET])
    r.approach(0.3, 0.5)
    r.tip_down(0.5)
    for x, y in line((0.3, 0.5), (0.6, 0.5), 0.3)[1:]:
        r.pen_axis(x=x, y=y, pressure=0.5, distance=0.0)
    r.tip_up()
    r.hover_to(0.8, 0.2, 0.3, 0.2)
    r.prox_out(x=0.0, y=0.0)
    r.wait(0.4)
    r.prox_in(0.2, 0.8, distance=0.3, tool="eraser", serial=PEN_SERIAL)
    r.hover_hold(0.15, drift=(0.0, 0.0))
    r.prox_out()
    r.wait(0.4)
    r.prox_in(0.9, 0.9, distance=0.5, tool="pen", serial=PEN_SERIAL)
    r.hover_to(0.89, 0.88, 0.3, 0.1)
    r.hover_to(0.9, 0.89, 0.5, 0.05)
    r.prox_out()
    return r


def rec_tipup_glitch():
    """Five strokes left to right, each ending differently: a tip-up reported at 0,0, one
    20 mm below the stroke's end, one at the axis maximum, a proximity-out at 0,0 with the
    tip still down, and a true tip-up 1 mm past the last sample (the stroke reaches it)."""
    r = Recorder([TABLET])
    mm_x, mm_y = 1 / TABLET["widthMM"], 1 / TABLET["heightMM"]
    endings = [lambda y: dict(x=0.0, y=0.0),
               lambda y: dict(y=_r5(y + 20 * mm_y)),
               lambda y: dict(x=1.0, y=1.0),
               None,
               lambda y: dict(x=_r5(0.6 + 1 * mm_x))]
    for i, ending in enumerate(endings):
        y = 0.15 + 0.16 * i
        r.approach(0.3, y)
        r.tip_down(0.5)
        for x, yy in line((0.3, y), (0.6, y), 0.3)[1:]:
            r.pen_axis(x=x, y=yy, pressure=0.5, distance=0.0)
        if ending is None:
            r.prox_out(tip_down=True, x=0.0, y=0.0)
        else:
            r.tip_up(**ending(y))
            r.prox_out()
        r.wait(0.3)
    return r


def rec_pad():
    r = Recorder([TABLET, PAD])
    r.pen_stroke(line((0.2, 0.3), (0.8, 0.3), 0.6))
    r.wait(0.2)
    r.pad_click(0, 80)
    r.wait(0.2)
    r.pen_stroke(line((0.2, 0.5), (0.8, 0.5), 0.6))
    r.wait(0.2)
    r.pad_click(0, 80)
    r.wait(0.2)
    r.pen_stroke(line((0.2, 0.7), (0.8, 0.7), 0.6))
    return r


RECORDINGS = {
    "pressure.inklog": rec_pressure,
    "tilt.inklog": rec_tilt,
    "hover.inklog": rec_hover,
    "zigzag.inklog": rec_zigzag,
    "eraser.inklog": rec_eraser,
    "buttons.inklog": rec_buttons,
    "finger.inklog": rec_finger,
    "finger-after-pen.inklog": rec_finger_after_pen,
    "stray.inklog": rec_stray,
    "pad.inklog": rec_pad,
    "tipup-glitch.inklog": rec_tipup_glitch,
}


def rec_long(n_strokes, seed=1234):
    """Benchmark recording: n_strokes wavy strokes (~0.25 s each) with
    sinusoidal pressure, spread over the tablet; the pen leaves proximity
    every 10 strokes."""
    r = Recorder([TABLET])
    rng = random.Random(seed)
    samples = 50  # 0.25 s at 200 Hz
    for k in range(n_strokes):
        x0, y0 = rng.uniform(0.05, 0.7), rng.uniform(0.08, 0.92)
        length = rng.uniform(0.1, 0.25)
        amp = rng.uniform(0.005, 0.03)
        waves = rng.uniform(1.0, 3.0)
        phase = rng.uniform(0.0, 2 * math.pi)
        pts, pres = [], []
        for i in range(samples + 1):
            s = i / samples
            pts.append((x0 + length * s,
                        y0 + amp * math.sin(2 * math.pi * waves * s)))
            pres.append(0.5 + 0.35 * math.sin(2 * math.pi * 1.5 * s + phase))
        leave = (k % 10 == 9) or k == n_strokes - 1
        r.pen_stroke(pts, pressure=pres, leave=leave)
        if leave:
            r.wait(0.2)
    return r


# --------------------------------------------------------------------------

def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Generate .inklog test recordings.")
    ap.add_argument("--out", help="output directory (default: the script's "
                    "directory); with --long, the output file")
    ap.add_argument("--long", type=int, metavar="N",
                    help="write one long benchmark recording of N strokes "
                    "to the file given by --out")
    args = ap.parse_args(argv)

    if args.long is not None:
        if not args.out:
            ap.error("--long needs --out FILE")
        if args.long < 1:
            ap.error("--long needs N >= 1")
        rec_long(args.long).write(args.out)
        return 0

    out = args.out or here
    os.makedirs(out, exist_ok=True)
    for name, fn in RECORDINGS.items():
        fn().write(os.path.join(out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
