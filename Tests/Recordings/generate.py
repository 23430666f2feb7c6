#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the synthetic .inklog input recordings used by the tests.

Each recording is one JSON object per line: a header listing the devices,
then the events in time order.  Everything here is deterministic; the only
randomness comes from seeded random.Random instances.

Usage:
    python3 generate.py [--out DIR]          write all recordings into DIR
                                             (default: this script's directory)
    python3 generate.py --long N --out FILE  write one long benchmark
                                             recording of N pen strokes
    python3 generate.py --signatures N --out FILE.inklog [--xopp FILE.xopp]
                                             one 1920x1080 page of N
                                             signatures (the peer benchmark)
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
    # 15 signatures on a pen display: real-looking handwriting (the peer benchmark's page has 60).
    "signatures.inklog": lambda: signature_page(15)[0],
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
# A page of signatures (the peer benchmark: the same ink as .inklog and .xopp)

# A pen display: its area is the screen's, so device position × screen size is
# the pixel the kiosk draws at (and what the .xopp holds).
PEN_DISPLAY = {"id": 1, "kind": "tablet", "name": "Wacom One Pen Display 13",
               "widthMM": 294, "heightMM": 166, "direct": True}

# Cursive letters as waypoints in x-height units: x to the right, y up from
# the baseline; each starts where the previous one ended, near (0, 0.1), and
# ends at (advance, ~0.15).  (waypoints, advance, mark) where mark is a dot
# ("i") or a cross ("t") drawn after the word, or None.
LETTERS = {
    "e": ([(0.35, 0.45), (0.6, 0.8), (0.38, 1.0), (0.12, 0.6), (0.35, 0.08),
           (0.75, 0.15)], 0.75, None),
    "l": ([(0.45, 1.2), (0.65, 2.1), (0.45, 2.45), (0.25, 1.9), (0.3, 0.6),
           (0.45, 0.05), (0.8, 0.18)], 0.8, None),
    "n": ([(0.15, 0.8), (0.28, 1.0), (0.32, 0.5), (0.3, 0.0), (0.38, 0.65),
           (0.6, 1.0), (0.75, 0.6), (0.8, 0.08), (1.05, 0.18)], 1.05, None),
    "m": ([(0.12, 0.8), (0.22, 1.0), (0.28, 0.45), (0.26, 0.0), (0.33, 0.65),
           (0.5, 1.0), (0.6, 0.55), (0.6, 0.0), (0.67, 0.65), (0.85, 1.0),
           (0.98, 0.6), (1.02, 0.08), (1.3, 0.18)], 1.3, None),
    "o": ([(0.42, 0.92), (0.2, 0.88), (0.08, 0.45), (0.3, 0.04), (0.56, 0.32),
           (0.5, 0.92), (0.42, 0.86), (0.75, 0.78)], 0.75, None),
    "a": ([(0.55, 0.85), (0.32, 1.0), (0.1, 0.5), (0.25, 0.04), (0.52, 0.4),
           (0.58, 0.97), (0.56, 0.3), (0.66, 0.04), (0.88, 0.18)], 0.88, None),
    "g": ([(0.5, 0.9), (0.26, 1.0), (0.1, 0.55), (0.3, 0.2), (0.55, 0.6),
           (0.57, 0.97), (0.56, -0.3), (0.45, -1.1), (0.2, -1.0), (0.32, -0.3),
           (0.85, 0.15)], 0.85, None),
    "r": ([(0.2, 0.8), (0.34, 1.0), (0.45, 0.82), (0.56, 0.96), (0.6, 0.42),
           (0.65, 0.04), (0.9, 0.18)], 0.9, None),
    "u": ([(0.12, 0.9), (0.15, 0.3), (0.3, 0.02), (0.52, 0.5), (0.6, 0.98),
           (0.6, 0.3), (0.7, 0.03), (0.9, 0.18)], 0.9, None),
    "i": ([(0.22, 0.7), (0.3, 1.0), (0.3, 0.3), (0.4, 0.04), (0.6, 0.18)],
          0.6, ("dot", 0.3, 1.65)),
    "t": ([(0.3, 1.2), (0.46, 2.0), (0.4, 0.5), (0.46, 0.04), (0.72, 0.18)],
          0.72, ("cross", 0.42, 1.25)),
}
LOWER = "eelnnmoaagrrueitlnoe"
# Capitals: (waypoints ending near the baseline, advance).
CAPITALS = [
    ([(0.1, 0.1), (0.35, 2.6), (0.55, 0.6), (0.85, 2.6), (1.05, 0.3),
      (1.3, 0.2)], 1.3),                                              # M
    ([(1.1, 2.3), (0.7, 2.7), (0.25, 2.3), (0.55, 1.4), (0.95, 0.7),
      (0.6, 0.02), (0.1, 0.35), (0.6, 0.3), (1.2, 0.2)], 1.2),        # S
    ([(0.5, 2.6), (0.3, 1.2), (0.15, 0.1), (-0.15, 0.4), (0.4, 0.3),
      (1.0, 0.05), (1.25, 0.2)], 1.25),                               # L
    ([(0.2, 2.2), (0.8, 2.7), (1.1, 2.0), (0.55, 1.4), (1.2, 0.8),
      (0.7, 0.02), (0.1, 0.3), (0.35, 1.5), (1.3, 0.2)], 1.3),        # B
    ([(1.0, 2.2), (0.6, 2.6), (0.15, 1.8), (0.2, 0.5), (0.6, 0.02),
      (1.05, 0.35), (1.25, 0.2)], 1.25),                              # C
]


def _catmull(waypoints, per_segment=12):
    """A smooth curve through `waypoints` (centripetal enough for letters:
    uniform Catmull-Rom), as a dense polyline."""
    pts = [waypoints[0]] + list(waypoints) + [waypoints[-1]]
    out = []
    for i in range(1, len(pts) - 2):
        p0, p1, p2, p3 = pts[i - 1], pts[i], pts[i + 1], pts[i + 2]
        for j in range(per_segment):
            t = j / per_segment
            t2, t3 = t * t, t * t * t
            out.append(tuple(
                0.5 * (2 * p1[c] + (-p0[c] + p2[c]) * t
                       + (2 * p0[c] - 5 * p1[c] + 4 * p2[c] - p3[c]) * t2
                       + (-p0[c] + 3 * p1[c] - 3 * p2[c] + p3[c]) * t3)
                for c in (0, 1)))
    out.append(tuple(pts[-2]))
    return out


def _pen_samples(dense, speed, rng):
    """Resample a dense polyline (pixels) as the pen would report it: one
    sample per period, the pen slower in tight turns than on straight runs."""
    out = [dense[0]]
    carry, step = 0.0, speed
    for a, b in zip(dense, dense[1:]):
        seg = math.hypot(b[0] - a[0], b[1] - a[1])
        carry += seg
        while carry >= step:
            carry -= step
            f = 1 - carry / seg if seg > 0 else 1
            out.append((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f))
    if math.hypot(out[-1][0] - dense[-1][0], out[-1][1] - dense[-1][1]) > 0.3:
        out.append(dense[-1])
    # Speed variation: drop or double samples where the curve turns.
    result = [out[0]]
    for k in range(1, len(out) - 1):
        ax, ay = out[k][0] - out[k - 1][0], out[k][1] - out[k - 1][1]
        bx, by = out[k + 1][0] - out[k][0], out[k + 1][1] - out[k][1]
        na, nb = math.hypot(ax, ay), math.hypot(bx, by)
        turn = 0.0 if na == 0 or nb == 0 else math.acos(
            max(-1.0, min(1.0, (ax * bx + ay * by) / (na * nb))))
        if turn > 0.5 and rng.random() < 0.7:
            # a slower pen here: an extra sample half-way
            result.append(((out[k - 1][0] + out[k][0]) / 2,
                           (out[k - 1][1] + out[k][1]) / 2))
        result.append(out[k])
    result.append(out[-1])
    return result


def _pressures(n, rng, peak):
    """Pressure along a stroke: a quick rise, a slow wander, a lighter end."""
    phase, waves = rng.uniform(0, 2 * math.pi), rng.uniform(0.8, 2.2)
    out = []
    for i in range(n):
        s = i / max(1, n - 1)
        rise = min(1.0, (i + 1) / 5.0)
        fall = min(1.0, (n - i) / 6.0)
        wander = 1 + 0.18 * math.sin(2 * math.pi * waves * s + phase)
        out.append(round(max(0.03, min(1.0, peak * wander * (0.35 + 0.65 * rise)
                                       * (0.45 + 0.55 * fall))), 4))
    return out


def _signature(rng, origin, scale):
    """One signature: strokes as lists of pixel points (y down), each with
    its pressures.  Two words (a capital and cursive letters, the capital
    sometimes lifted), the i-dots and t-crosses, sometimes a flourish."""
    slant = rng.uniform(0.15, 0.4)
    angle = math.radians(rng.uniform(-4, 3))
    ca, sa = math.cos(angle), math.sin(angle)
    speed = rng.uniform(5.0, 7.5) * scale / 13.0

    def to_px(x, y):
        x, y = x + slant * y, y
        x, y = x * ca - y * sa, x * sa + y * ca
        return (origin[0] + x * scale, origin[1] - y * scale)

    def jitter(wps, amount=0.06):
        return [(x + rng.uniform(-amount, amount), y + rng.uniform(-amount, amount))
                for x, y in wps]

    strokes, marks = [], []
    x = 0.0
    words = 2
    for w in range(words):
        cap, cap_adv = CAPITALS[rng.randrange(len(CAPITALS))]
        word = [(x, 0.2)] + [(x + px, py) for px, py in jitter(cap, 0.08)]
        lifted = rng.random() < 0.2
        if lifted:
            strokes.append(word)
            word = [(x + cap_adv + 0.1, 0.3)]
        x += cap_adv
        for _ in range(rng.randint(3, 5) if w == 0 else rng.randint(3, 6)):
            ch = LOWER[rng.randrange(len(LOWER))]
            wps, adv, mark = LETTERS[ch]
            word += [(x + px, py) for px, py in jitter(wps)]
            if mark:
                marks.append((mark[0], x + mark[1], mark[2]))
            x += adv * rng.uniform(0.9, 1.15)
        strokes.append(word)
        x += rng.uniform(0.9, 1.5)
    for kind, mx, my in marks:
        if kind == "dot":
            strokes.append([(mx, my), (mx + 0.08, my + 0.05), (mx + 0.12, my - 0.02)])
        else:
            strokes.append([(mx - 0.45, my), (mx + 0.1, my + 0.08), (mx + 0.55, my + 0.02)])
    if rng.random() < 0.45:
        # A flourish back under the name.
        y0 = rng.uniform(-0.6, -0.3)
        strokes.append([(x - 0.8, 0.1), (x - 0.5, y0), (x * 0.55, y0 - 0.35),
                        (x * 0.15, y0 - 0.1), (-0.2, y0 + 0.15)])

    out = []
    for wps in strokes:
        dense = [to_px(px, py) for px, py in _catmull(wps)]
        pts = _pen_samples(dense, speed, rng)
        if len(pts) < 3:
            pts = [dense[0], dense[len(dense) // 2], dense[-1]]
        out.append((pts, _pressures(len(pts), rng, rng.uniform(0.3, 0.65))))
    return out


def signature_page(n=60, size=(1920, 1080), seed=2024):
    """`n` signatures laid out on one page of `size` pixels, in reading
    order.  Returns the Recorder and the strokes in pixels (for .xopp)."""
    rng = random.Random(seed)
    cols = 5
    rows = (n + cols - 1) // cols
    cw, ch = size[0] / cols, size[1] / rows
    r = Recorder([PEN_DISPLAY])
    page = []
    for k in range(n):
        col, row = k % cols, k // cols
        scale = rng.uniform(15.0, 19.0)
        origin = (col * cw + rng.uniform(0.06, 0.12) * cw,
                  row * ch + ch * rng.uniform(0.6, 0.68))
        strokes = _signature(rng, origin, scale)
        for i, (pts, pres) in enumerate(strokes):
            norm = [(_r5(_clamp01(x / size[0])), _r5(_clamp01(y / size[1])))
                    for x, y in pts]
            tilt = (rng.uniform(15, 30), rng.uniform(5, 20))
            r.pen_stroke(norm, pressure=pres, tilt=tilt,
                         leave=(i == len(strokes) - 1))
            page.append(([(x * size[0], y * size[1]) for x, y in norm], pres))
        r.wait(rng.uniform(0.4, 0.9))
    return r, page


# The kiosk's pen: 9 px at full pressure through the standard pressure curve
# (InkCore's Brush.standard(.pen) and PressureCurve.standard).
PEN_WIDTH = 9.0
PRESSURE_CURVE = [(0.0, 0.0), (0.05, 0.12), (0.5, 0.6), (1.0, 1.0)]
INK = "#0d1759ff"


def pen_width(pressure):
    p = max(pressure, 0.025)
    for (x0, y0), (x1, y1) in zip(PRESSURE_CURVE, PRESSURE_CURVE[1:]):
        if p <= x1:
            return PEN_WIDTH * (y0 + (y1 - y0) * (p - x0) / (x1 - x0))
    return PEN_WIDTH


def write_xopp(path, page, size=(1920, 1080)):
    """The same strokes as a Xournal++ document (gzip'd XML): one page of
    `size` points, white, one layer; a stroke's width attribute is its
    nominal width and then one width per segment (the pressure)."""
    import gzip
    out = ['<?xml version="1.0" standalone="no"?>',
           '<xournal creator="inkkiosk generate.py" fileversion="4">',
           '<title>Xournal++ document - see https://github.com/xournalpp/xournalpp</title>',
           '<page width="%.2f" height="%.2f">' % size,
           '<background type="solid" color="#ffffffff" style="plain"/>',
           '<layer>']
    for pts, pres in page:
        widths = " ".join("%.3f" % pen_width(p) for p in pres[:-1])
        coords = " ".join("%.4f %.4f" % p for p in pts)
        out.append('<stroke tool="pen" color="%s" width="%.2f %s">%s</stroke>'
                   % (INK, PEN_WIDTH, widths, coords))
    out += ['</layer>', '</page>', '</xournal>', '']
    data = "\n".join(out).encode("utf-8")
    with open(path, "wb") as f:
        # mtime 0: the same bytes on every run.
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as z:
            z.write(data)

# --------------------------------------------------------------------------

def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Generate .inklog test recordings.")
    ap.add_argument("--out", help="output directory (default: the script's "
                    "directory); with --long, the output file")
    ap.add_argument("--long", type=int, metavar="N",
                    help="write one long benchmark recording of N strokes "
                    "to the file given by --out")
    ap.add_argument("--signatures", type=int, metavar="N",
                    help="write one 1920x1080 page of N signatures to the "
                    ".inklog file given by --out (and with --xopp, the same "
                    "strokes as a Xournal++ document)")
    ap.add_argument("--xopp", metavar="FILE",
                    help="with --signatures: also write FILE.xopp")
    args = ap.parse_args(argv)

    if args.signatures is not None:
        if not args.out:
            ap.error("--signatures needs --out FILE")
        if args.signatures < 1:
            ap.error("--signatures needs N >= 1")
        rec, page = signature_page(args.signatures)
        rec.write(args.out)
        if args.xopp:
            write_xopp(args.xopp, page)
        return 0

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
