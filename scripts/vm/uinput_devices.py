#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Virtual input devices for the inkkiosk test VM, copied from real hardware.

Creates uinput devices (python3-evdev, Debian's `python3-evdev`) that udev and libinput
treat like the real thing, and drives them with the event sequences the real kernel drivers
send, at a real report rate:

  Pen    "Wacom Intuos5 touch M Pen" (056a:0027, USB): 224 x 140 mm at 200 units/mm,
         pressure 0..2047, distance 0..63, tilt -64..63 at 57 units/radian (about 1 degree),
         tool id in ABS_MISC, serial in MSC_SERIAL; pen and eraser (and the Intuos mouse and
         airbrush tools the real device declares). libinput: capability "tablet".
  Touch  a USB multitouch screen (hid-multitouch style, MT protocol B, 10 slots,
         INPUT_PROP_DIRECT, 0..4095). libinput: capability "touch".
  Pad    "Wacom Intuos5 touch M Pad": BTN_0..BTN_8, touch ring (ABS_WHEEL 0..71), plus the
         BTN_STYLUS and ABS_X/ABS_Y that the kernel's wacom driver sets on pads so that udev
         tags them ID_INPUT_TABLET + ID_INPUT_TABLET_PAD. libinput: capability "tablet-pad".

All positions are normalised, 0..1 over the device's area (as libinput's transformed
coordinates are). Every method that sends a frame ends it with SYN_REPORT and then keeps
the report rate (default 200 Hz: one frame every 5 ms).

As a module (inside the VM; needs /dev/uinput and root):

    sys.path.insert(0, "/work/main/scripts/vm"); from uinput_devices import Pen, Touch, Pad
    pen = Pen()                      # plugs the tablet in and waits for udev
    pen.hover_in(0.2, 0.5, distance=0.5)
    pen.stroke([(0.2, 0.5), (0.5, 0.55), (0.8, 0.5)], pressure=0.6, tilt=(20, -10))
    pen.click("stylus")              # the lower side button (BTN_STYLUS), 100 ms
    pen.out()
    pen.destroy(); pen.create()      # unplug, replug

As a command:  python3 uinput_devices.py --check   (see --help)
"""

import math
import os
import subprocess
import sys
import time

try:
    import evdev
    from evdev import AbsInfo, UInput, ecodes as e
except ImportError:  # e.g. a pyenv python3 first on PATH: Debian's module is for /usr/bin/python3
    if (__name__ == "__main__" and os.path.exists("/usr/bin/python3")
            and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3")
            and not os.environ.get("IK_UINPUT_REEXEC")):
        os.environ["IK_UINPUT_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__), *sys.argv[1:]])
    raise SystemExit("uinput_devices: python3-evdev is missing (apt-get install python3-evdev; "
                     "it is for /usr/bin/python3)")

BUS_USB = 0x03
WACOM = 0x056A
INTUOS5_TOUCH_M = 0x0027
STYLUS_DEVICE_ID = 0x802   # libwacom: "Grip Pen" (Intuos4/5), paired eraser 0x80a
ERASER_DEVICE_ID = 0x80A   # libwacom: "Grip Pen Eraser"
PAD_DEVICE_ID = 0x0F       # what the wacom driver puts in ABS_MISC while a pad control is used


def _clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


def _udev_db_path(dev_path):
    st = os.stat(dev_path)
    return f"/run/udev/data/c{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"


class Device:
    """A uinput device: create() plugs it in, destroy() unplugs it."""

    NAME = "virtual device"
    VENDOR = 0
    PRODUCT = 0
    VERSION = 0x0100
    BUSTYPE = BUS_USB
    PHYS = ""
    PROPS = ()
    RATE = 200.0

    def __init__(self, rate=None, create=True, wait=True):
        self.rate = float(rate or self.RATE)
        self.ui = None
        self._next = 0.0
        if create:
            self.create(wait=wait)

    # -- plumbing -----------------------------------------------------------------------------
    def capabilities(self):
        raise NotImplementedError

    def create(self, wait=True):
        """Plugs the device in; with wait, returns once udev has tagged it (10 s at most)."""
        if self.ui is not None:
            return
        self.ui = UInput(self.capabilities(), name=self.NAME, vendor=self.VENDOR,
                         product=self.PRODUCT, version=self.VERSION, bustype=self.BUSTYPE,
                         phys=self.PHYS, input_props=list(self.PROPS))
        self._next = time.monotonic()
        self._reset_state()
        if wait:
            self.wait_for_udev()

    def destroy(self):
        """Unplugs the device (the kernel removes its event node, libinput sees DEVICE_REMOVED)."""
        if self.ui is not None:
            self.ui.close()
            self.ui = None

    def _reset_state(self):
        pass

    @property
    def devnode(self):
        """/dev/input/eventN of the device (None if python-evdev could not find it)."""
        if self.ui is None or self.ui.device is None:
            return None
        return self.ui.device.path

    def wait_for_udev(self, timeout=60.0):
        """Waits until udev has processed the device (its database entry has ID_INPUT=1).
        The bound is for a udev that never does; an emulated guest on a loaded host has been
        seen to take over 10 s for one device (udev itself took 37 s to settle at boot)."""
        end = time.monotonic() + timeout
        path = self.devnode
        while path is None and time.monotonic() < end:
            time.sleep(0.05)
            path = self._find_node()
        if path is None:
            raise RuntimeError(f"{self.NAME}: no /dev/input/event* node appeared")
        db = _udev_db_path(path)
        while time.monotonic() < end:
            try:
                with open(db) as f:
                    if "E:ID_INPUT=1" in f.read():
                        return path
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"{self.NAME}: udev did not tag {path} within {timeout:g} s "
                           f"(is systemd-udevd running? {db} has no ID_INPUT=1)")

    def _find_node(self):
        for p in evdev.list_devices():
            try:
                d = evdev.InputDevice(p)
                if d.name == self.NAME and d.phys == self.PHYS:
                    d.close()
                    return p
                d.close()
            except OSError:
                pass
        return None

    def udev_properties(self):
        """The udev properties of the device (from /run/udev/data), as a dict."""
        props = {}
        path = self.devnode
        if path:
            try:
                with open(_udev_db_path(path)) as f:
                    for line in f:
                        if line.startswith("E:") and "=" in line:
                            k, _, v = line[2:].rstrip("\n").partition("=")
                            props[k] = v
            except FileNotFoundError:
                pass
        return props

    def write(self, etype, code, value):
        if self.ui is None:
            raise RuntimeError(f"{self.NAME} is unplugged (call create())")
        self.ui.write(etype, code, int(value))

    # When the newest report of any device was sent (time.monotonic(), CLOCK_MONOTONIC): the
    # kernel stamps the report after this, so a reader that has handled input at least this
    # recent has everything sent before it.
    last_report = 0.0

    def sync(self):
        """Ends a frame (SYN_REPORT), then sleeps until the next report is due."""
        Device.last_report = time.monotonic()
        self.ui.syn()
        period = 1.0 / self.rate
        now = time.monotonic()
        self._next = max(self._next + period, now)
        delay = self._next - now
        if delay > 0:
            time.sleep(delay)

    def pause(self, seconds):
        time.sleep(seconds)
        self._next = time.monotonic()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()


class Pen(Device):
    """The pen of a Wacom Intuos5 touch M (PTH-650), as the kernel's wacom driver declares it."""

    NAME = "Wacom Intuos5 touch M Pen"
    VENDOR = WACOM
    PRODUCT = INTUOS5_TOUCH_M
    VERSION = 0x0110
    PHYS = "usb-0000:00:14.0-1/input0"
    PROPS = (e.INPUT_PROP_POINTER,)
    MAX_X, MAX_Y = 44704, 27940          # 223.52 x 139.70 mm at 200 units/mm
    RES_XY = 200
    MAX_PRESSURE = 2047
    MAX_DISTANCE = 63
    TILT_MIN, TILT_MAX, TILT_RES = -64, 63, 57   # 57 units/radian: about 1 degree per unit

    def __init__(self, serial=0x2280C3D8, rate=None, create=True, wait=True):
        self.serial = serial & 0x7FFFFFFF
        super().__init__(rate=rate, create=create, wait=wait)

    def capabilities(self):
        a = AbsInfo
        return {
            e.EV_KEY: [e.BTN_LEFT, e.BTN_RIGHT, e.BTN_MIDDLE, e.BTN_SIDE, e.BTN_EXTRA,
                       e.BTN_TOOL_PEN, e.BTN_TOOL_RUBBER, e.BTN_TOOL_BRUSH, e.BTN_TOOL_PENCIL,
                       e.BTN_TOOL_AIRBRUSH, e.BTN_TOOL_MOUSE, e.BTN_TOOL_LENS,
                       e.BTN_TOUCH, e.BTN_STYLUS, e.BTN_STYLUS2],
            e.EV_ABS: [
                (e.ABS_X, a(0, 0, self.MAX_X, 4, 0, self.RES_XY)),
                (e.ABS_Y, a(0, 0, self.MAX_Y, 4, 0, self.RES_XY)),
                (e.ABS_Z, a(0, -900, 899, 0, 0, 287)),          # rotation (Art Pen, 4D mouse)
                (e.ABS_WHEEL, a(0, 0, 1023, 0, 0, 0)),           # airbrush finger wheel
                (e.ABS_PRESSURE, a(0, 0, self.MAX_PRESSURE, 0, 0, 0)),
                (e.ABS_DISTANCE, a(0, 0, self.MAX_DISTANCE, 0, 0, 0)),
                (e.ABS_TILT_X, a(0, self.TILT_MIN, self.TILT_MAX, 0, 0, self.TILT_RES)),
                (e.ABS_TILT_Y, a(0, self.TILT_MIN, self.TILT_MAX, 0, 0, self.TILT_RES)),
                (e.ABS_THROTTLE, a(0, -1023, 1023, 0, 0, 0)),    # 4D mouse throttle
                (e.ABS_MISC, a(0, 0, 0, 0, 0, 0)),               # tool id
            ],
            e.EV_REL: [e.REL_WHEEL],
            e.EV_MSC: [e.MSC_SERIAL],
        }

    def _reset_state(self):
        self.tool = None          # None (out of proximity), "pen" or "eraser"
        self.tip = False
        self.x = self.y = 0.5
        self.pressure = 0.0
        self.distance = 0.0
        self.tilt = (0.0, 0.0)

    # -- unit conversion ---------------------------------------------------------------------
    def _ux(self, x):
        return round(_clamp(x, 0.0, 1.0) * self.MAX_X)

    def _uy(self, y):
        return round(_clamp(y, 0.0, 1.0) * self.MAX_Y)

    def _upressure(self, p):
        return round(_clamp(p, 0.0, 1.0) * self.MAX_PRESSURE)

    def _udistance(self, d):
        return round(_clamp(d, 0.0, 1.0) * self.MAX_DISTANCE)

    def _utilt(self, degrees):
        return _clamp(round(math.radians(degrees) * self.TILT_RES), self.TILT_MIN, self.TILT_MAX)

    def _axes(self, x=None, y=None, pressure=None, distance=None, tilt=None, all_axes=False):
        """Writes the axes that changed (or all of them) from the current state."""
        if x is not None and (all_axes or x != self.x):
            self.x = x
            self.write(e.EV_ABS, e.ABS_X, self._ux(x))
        elif all_axes:
            self.write(e.EV_ABS, e.ABS_X, self._ux(self.x))
        if y is not None and (all_axes or y != self.y):
            self.y = y
            self.write(e.EV_ABS, e.ABS_Y, self._uy(y))
        elif all_axes:
            self.write(e.EV_ABS, e.ABS_Y, self._uy(self.y))
        if distance is not None:
            self.distance = distance
        if all_axes or distance is not None:
            self.write(e.EV_ABS, e.ABS_DISTANCE, self._udistance(self.distance))
        if pressure is not None:
            self.pressure = pressure
        if all_axes or pressure is not None:
            self.write(e.EV_ABS, e.ABS_PRESSURE, self._upressure(self.pressure))
        if tilt is not None:
            self.tilt = (float(tilt[0]), float(tilt[1]))
        if all_axes or tilt is not None:
            self.write(e.EV_ABS, e.ABS_TILT_X, self._utilt(self.tilt[0]))
            self.write(e.EV_ABS, e.ABS_TILT_Y, self._utilt(self.tilt[1]))

    def _serial(self):
        self.write(e.EV_MSC, e.MSC_SERIAL, self.serial)

    # -- what a hand does ---------------------------------------------------------------------
    def _prox_in(self, tool, x, y, distance, tilt):
        if self.tool is not None and self.tool != tool:
            self.out()
        if self.tool == tool:
            self.move(x, y, distance=distance, tilt=tilt)
            return
        btn, tool_id = ((e.BTN_TOOL_PEN, STYLUS_DEVICE_ID) if tool == "pen"
                        else (e.BTN_TOOL_RUBBER, ERASER_DEVICE_ID))
        self._axes(x, y, pressure=0.0, distance=distance,
                   tilt=tilt if tilt is not None else self.tilt, all_axes=True)
        self.write(e.EV_ABS, e.ABS_MISC, tool_id)
        self._serial()
        self.write(e.EV_KEY, btn, 1)
        self.tool = tool
        self.tip = False
        self.sync()

    def hover_in(self, x, y, distance=0.5, tilt=None):
        """The pen tip comes into proximity above (x, y); distance 0..1 (1 = the top of the range)."""
        self._prox_in("pen", x, y, distance, tilt)

    def eraser_in(self, x, y, distance=0.5, tilt=None):
        """The pen, turned round, comes into proximity with its eraser end (BTN_TOOL_RUBBER)."""
        self._prox_in("eraser", x, y, distance, tilt)

    def move(self, x, y, pressure=None, distance=None, tilt=None):
        """One report: the pen at (x, y), optionally with new pressure (0..1), distance (0..1)
        and tilt (degrees, (x, y)); hovers in first if the pen is out of proximity."""
        if self.tool is None:
            self.hover_in(x, y, distance if distance is not None else 0.5, tilt)
            return
        self._axes(x, y, pressure=pressure, distance=distance, tilt=tilt)
        self._serial()
        self.sync()

    def down(self, pressure=0.4):
        """The tip touches the surface: distance 0, the given pressure, BTN_TOUCH."""
        if self.tool is None:
            self.hover_in(self.x, self.y, 0.05)
        self._axes(distance=0.0, pressure=pressure)
        self._serial()
        self.write(e.EV_KEY, e.BTN_TOUCH, 1)
        self.tip = True
        self.sync()

    def up(self, distance=0.05):
        """The tip leaves the surface (pressure 0, BTN_TOUCH released); the pen still hovers."""
        if self.tool is None:
            return
        self._axes(pressure=0.0, distance=distance)
        self._serial()
        self.write(e.EV_KEY, e.BTN_TOUCH, 0)
        self.tip = False
        self.sync()

    def out(self):
        """The pen leaves proximity; like the wacom driver, zeroes every axis."""
        if self.tool is None:
            return
        if self.tip:
            self.up()
        btn = e.BTN_TOOL_PEN if self.tool == "pen" else e.BTN_TOOL_RUBBER
        for code in (e.ABS_X, e.ABS_Y, e.ABS_DISTANCE, e.ABS_PRESSURE, e.ABS_TILT_X,
                     e.ABS_TILT_Y, e.ABS_MISC):
            self.write(e.EV_ABS, code, 0)
        self._serial()
        self.write(e.EV_KEY, btn, 0)
        self.tool = None
        self.tip = False
        self.sync()

    def stroke(self, points, pressure=0.5, tilt=None, hover=0.1):
        """Draws through points [(x, y), ...] one report per point: hovers in if needed, tip
        down at the first point, up after the last (the pen stays in proximity).
        pressure: a value, a list (one per point) or a function of t in 0..1; tilt likewise
        with (x, y) tuples in degrees."""
        points = list(points)
        if not points:
            return

        def at(v, i):
            if callable(v):
                return v(i / max(len(points) - 1, 1))
            if isinstance(v, (list, tuple)) and v and isinstance(v[0], (list, tuple)):
                return v[i]
            if isinstance(v, list):
                return v[i]
            return v

        x0, y0 = points[0]
        t0 = at(tilt, 0)
        if self.tool is None:
            self.hover_in(x0, y0, hover, t0)
        else:
            self.move(x0, y0, distance=hover, tilt=t0)
        self.down(at(pressure, 0))
        for i, (x, y) in enumerate(points[1:], start=1):
            self.move(x, y, pressure=at(pressure, i), tilt=at(tilt, i))
        self.up()

    def line(self, x0, y0, x1, y1, steps=40, **kw):
        """A straight stroke from (x0, y0) to (x1, y1) in steps reports."""
        self.stroke([(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
                     for i in range(steps + 1)], **kw)

    def click(self, button="stylus", ms=100):
        """Presses and releases a side button: "stylus" (BTN_STYLUS, lower), "stylus2"
        (BTN_STYLUS2, upper) or a key code. Hovers in first if out of proximity."""
        code = {"stylus": e.BTN_STYLUS, "stylus2": e.BTN_STYLUS2}.get(button, button)
        if self.tool is None:
            self.hover_in(self.x, self.y, 0.3)
        self._serial()
        self.write(e.EV_KEY, code, 1)
        self.sync()
        self.pause(ms / 1000.0)
        self._serial()
        self.write(e.EV_KEY, code, 0)
        self.sync()


class Touch(Device):
    """A USB multitouch screen (MT protocol B, 10 slots, direct), e.g. the kiosk's panel."""

    NAME = "ILITEK ILITEK-TP"
    VENDOR = 0x222A
    PRODUCT = 0x0001
    VERSION = 0x0110
    PHYS = "usb-0000:00:14.0-2/input0"
    PROPS = (e.INPUT_PROP_DIRECT,)
    MAX = 4095
    SLOTS = 10

    def __init__(self, width_mm=344, height_mm=194, rate=120, create=True, wait=True):
        # Resolution in units/mm from the panel size (a 15.6" 16:9 panel by default).
        self.res_x = max(1, round(self.MAX / width_mm))
        self.res_y = max(1, round(self.MAX / height_mm))
        super().__init__(rate=rate, create=create, wait=wait)

    def capabilities(self):
        a = AbsInfo
        return {
            e.EV_KEY: [e.BTN_TOUCH],
            e.EV_ABS: [
                (e.ABS_X, a(0, 0, self.MAX, 0, 0, self.res_x)),
                (e.ABS_Y, a(0, 0, self.MAX, 0, 0, self.res_y)),
                (e.ABS_MT_SLOT, a(0, 0, self.SLOTS - 1, 0, 0, 0)),
                (e.ABS_MT_POSITION_X, a(0, 0, self.MAX, 0, 0, self.res_x)),
                (e.ABS_MT_POSITION_Y, a(0, 0, self.MAX, 0, 0, self.res_y)),
                (e.ABS_MT_TRACKING_ID, a(0, 0, 65535, 0, 0, 0)),
            ],
        }

    def _reset_state(self):
        self.contacts = {}      # slot -> (x, y) of active touches
        self.order = []         # slots in touch-down order (the oldest drives ABS_X/ABS_Y)
        self.slot = None
        self.next_id = 1

    def _u(self, v):
        return round(_clamp(v, 0.0, 1.0) * self.MAX)

    def _select(self, slot):
        if not 0 <= slot < self.SLOTS:
            raise ValueError(f"slot {slot} not in 0..{self.SLOTS - 1}")
        if slot != self.slot:
            self.write(e.EV_ABS, e.ABS_MT_SLOT, slot)
            self.slot = slot

    def _pointer(self):
        if self.order:
            x, y = self.contacts[self.order[0]]
            self.write(e.EV_ABS, e.ABS_X, self._u(x))
            self.write(e.EV_ABS, e.ABS_Y, self._u(y))

    def down(self, slot, x, y, sync=True):
        """A finger touches at (x, y) in the given slot (pass sync=False to put several
        contacts in one frame, then call sync())."""
        if slot in self.contacts:
            raise ValueError(f"slot {slot} is already down")
        self._select(slot)
        self.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, self.next_id)
        self.next_id = self.next_id % 65535 + 1
        self.write(e.EV_ABS, e.ABS_MT_POSITION_X, self._u(x))
        self.write(e.EV_ABS, e.ABS_MT_POSITION_Y, self._u(y))
        first = not self.contacts
        self.contacts[slot] = (x, y)
        self.order.append(slot)
        if first:
            self.write(e.EV_KEY, e.BTN_TOUCH, 1)
        self._pointer()
        if sync:
            self.sync()

    def move(self, slot, x, y, sync=True):
        if slot not in self.contacts:
            raise ValueError(f"slot {slot} is not down")
        self._select(slot)
        ox, oy = self.contacts[slot]
        if x != ox:
            self.write(e.EV_ABS, e.ABS_MT_POSITION_X, self._u(x))
        if y != oy:
            self.write(e.EV_ABS, e.ABS_MT_POSITION_Y, self._u(y))
        self.contacts[slot] = (x, y)
        if self.order and self.order[0] == slot:
            self._pointer()
        if sync:
            self.sync()

    def up(self, slot, sync=True):
        if slot not in self.contacts:
            raise ValueError(f"slot {slot} is not down")
        self._select(slot)
        self.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, -1)
        del self.contacts[slot]
        self.order.remove(slot)
        if not self.contacts:
            self.write(e.EV_KEY, e.BTN_TOUCH, 0)
        else:
            self._pointer()
        if sync:
            self.sync()

    def swipe(self, points, slot=0):
        """One finger through points [(x, y), ...]: down, one report per point, up."""
        points = list(points)
        self.down(slot, *points[0])
        for x, y in points[1:]:
            self.move(slot, x, y)
        self.up(slot)

    def tap(self, x, y, ms=80, slot=0):
        self.down(slot, x, y)
        self.pause(ms / 1000.0)
        self.up(slot)


class Pad(Device):
    """The ExpressKeys and touch ring of a Wacom Intuos5 touch M, as the wacom driver declares them."""

    NAME = "Wacom Intuos5 touch M Pad"
    VENDOR = WACOM
    PRODUCT = INTUOS5_TOUCH_M
    VERSION = 0x0110
    PHYS = "usb-0000:00:14.0-1/input0"
    BUTTONS = 9

    def capabilities(self):
        a = AbsInfo
        return {
            # BTN_STYLUS and ABS_X/ABS_Y carry nothing: the wacom driver sets them on pads so
            # that udev's input_id says ID_INPUT_TABLET + ID_INPUT_TABLET_PAD (BTN_0 together
            # with BTN_STYLUS and no BTN_TOOL_PEN); libinput then opens it as a tablet pad.
            e.EV_KEY: [e.BTN_0 + i for i in range(self.BUTTONS)] + [e.BTN_STYLUS],
            e.EV_ABS: [
                (e.ABS_X, a(0, 0, 1, 0, 0, 0)),
                (e.ABS_Y, a(0, 0, 1, 0, 0, 0)),
                (e.ABS_WHEEL, a(0, 0, 71, 0, 0, 0)),   # touch ring, 72 positions
                (e.ABS_MISC, a(0, 0, 0, 0, 0, 10)),
            ],
        }

    def press(self, n, pressed=True):
        if not 0 <= n < self.BUTTONS:
            raise ValueError(f"pad button {n} not in 0..{self.BUTTONS - 1}")
        self.write(e.EV_KEY, e.BTN_0 + n, 1 if pressed else 0)
        self.write(e.EV_ABS, e.ABS_MISC, PAD_DEVICE_ID if pressed else 0)
        self.sync()

    def click(self, n=0, ms=100):
        """Presses and releases ExpressKey n (0..8; libinput reports it as pad button n)."""
        self.press(n, True)
        self.pause(ms / 1000.0)
        self.press(n, False)

    def ring(self, positions):
        """A finger on the touch ring through positions (0..71), then off."""
        for i, p in enumerate(positions):
            self.write(e.EV_ABS, e.ABS_WHEEL, int(p) % 72)
            if i == 0:
                self.write(e.EV_ABS, e.ABS_MISC, PAD_DEVICE_ID)
            self.sync()
        self.write(e.EV_ABS, e.ABS_WHEEL, 0)
        self.write(e.EV_ABS, e.ABS_MISC, 0)
        self.sync()


# -- the --check command -------------------------------------------------------------------------

def _libinput_sections(text):
    """Splits `libinput list-devices` output into {device name: section text}."""
    out = {}
    for block in text.strip().split("\n\n"):
        for line in block.splitlines():
            if line.startswith("Device:"):
                out[line.split(":", 1)[1].strip()] = block
                break
    return out


def check(duration=2.0):
    import re
    import select
    import shutil

    ok = True

    def verdict(good, what):
        nonlocal ok
        print(f"check: {'ok  ' if good else 'FAIL'} {what}", flush=True)
        ok = ok and good

    if not os.access("/dev/uinput", os.W_OK):
        raise SystemExit("uinput_devices: /dev/uinput is missing or not writable "
                         "(run as root, with the uinput module loaded; in the VM it is)")
    pen, touch, pad = Pen(), Touch(), Pad()
    for d in (pen, touch, pad):
        props = d.udev_properties()
        tags = " ".join(k for k in sorted(props) if k.startswith("ID_INPUT"))
        print(f"check: {d.NAME}: {d.devnode}  udev: {tags}", flush=True)

    listing = subprocess.run(["libinput", "list-devices"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=60).stdout
    sections = _libinput_sections(listing)
    print("---- libinput list-devices (our devices) ----")
    for d in (pen, touch, pad):
        print(sections.get(d.NAME, f"Device: {d.NAME}  -- NOT LISTED"))
        print()
    print("---- end ----", flush=True)
    for d, cap in ((pen, "tablet"), (touch, "touch"), (pad, "tablet-pad")):
        m = re.search(r"^Capabilities:\s*(.*)$", sections.get(d.NAME, ""), re.M)
        caps = m.group(1).split() if m else []
        verdict(cap in caps, f"libinput lists {d.NAME!r} with capability {cap} ({' '.join(caps) or 'none'})")

    argv = ["libinput", "debug-events", "--show-keycodes"]
    if shutil.which("stdbuf"):
        argv = ["stdbuf", "-oL"] + argv
    dbg = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    # Wait until libinput has added our three devices before sending anything.
    names = {pen.NAME, touch.NAME, pad.NAME}
    end = time.monotonic() + 30
    while names and time.monotonic() < end:
        r, _, _ = select.select([dbg.stdout], [], [], 0.5)
        if r:
            line = dbg.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if "DEVICE_ADDED" in line:
                names = {n for n in names if n not in line}
    if names:
        print(f"check: libinput debug-events did not add {sorted(names)}", flush=True)

    t0 = time.monotonic()
    pen.hover_in(0.30, 0.40, distance=0.6, tilt=(0, 0))
    for i in range(1, 6):
        pen.move(0.30, 0.40, distance=0.6 - i * 0.1)
    pen.stroke([(0.30 + 0.4 * i / 30, 0.40 + 0.1 * math.sin(i / 5)) for i in range(31)],
               pressure=lambda t: 0.2 + 0.6 * math.sin(math.pi * t), tilt=lambda t: (30 * t, -20 * t))
    pen.click("stylus", 80)
    pen.out()
    pen.eraser_in(0.5, 0.5, distance=0.2)
    pen.out()
    touch.down(0, 0.5, 0.5)
    touch.down(1, 0.6, 0.5)
    for i in range(1, 6):
        touch.move(0, 0.5 - i * 0.02, 0.5, sync=False)
        touch.move(1, 0.6 + i * 0.02, 0.5, sync=False)
        touch.sync()
    touch.up(1)
    touch.up(0)
    pad.click(0, 80)
    pad.click(3, 80)
    spent = time.monotonic() - t0
    time.sleep(max(0.5, duration - spent))
    # Drain what is there, then stop debug-events (SIGINT: it flushes and exits cleanly).
    dbg.send_signal(2)
    try:
        rest, _ = dbg.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        dbg.kill()
        rest, _ = dbg.communicate()
    lines += rest.splitlines()
    print("---- libinput debug-events ----")
    print("\n".join(l for l in lines if l.strip()))
    print("---- end ----", flush=True)
    text = "\n".join(lines)
    axis_lines = [l for l in lines if "TABLET_TOOL_AXIS" in l]
    for what, good in (
        ("TABLET_TOOL_PROXIMITY in and out", "TABLET_TOOL_PROXIMITY" in text and "proximity-out" in text),
        ("TABLET_TOOL_TIP down and up", re.search(r"TABLET_TOOL_TIP.*\bdown\b", text) is not None
                                          and re.search(r"TABLET_TOOL_TIP.*\bup\b", text) is not None),
        ("TABLET_TOOL_AXIS with pressure", any("pressure:" in l for l in axis_lines)),
        ("TABLET_TOOL_AXIS with tilt", any("tilt:" in l for l in axis_lines)),
        ("TABLET_TOOL_BUTTON (BTN_STYLUS)", "TABLET_TOOL_BUTTON" in text),
        ("eraser tool", "eraser" in text),
        ("TOUCH_DOWN in two slots", len(re.findall(r"TOUCH_DOWN", text)) >= 2),
        ("TOUCH_UP", "TOUCH_UP" in text),
        ("TABLET_PAD_BUTTON", "TABLET_PAD_BUTTON" in text),
    ):
        verdict(good, f"libinput saw {what}")
    for d in (pen, touch, pad):
        d.destroy()
    print(f"check: {'PASSED' if ok else 'FAILED'}", flush=True)
    return 0 if ok else 1


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="Virtual Wacom pen, pad and touchscreen over uinput "
                                             "(for the inkkiosk test VM; needs root and /dev/uinput).")
    ap.add_argument("--check", action="store_true",
                    help="create the three devices, show what libinput lists and what it reports "
                         "for a short pen stroke, a two-finger touch and pad clicks")
    ap.add_argument("--duration", type=float, default=2.0,
                    help="--check: how long debug-events listens (seconds, default 2)")
    ap.add_argument("--hold", type=float, metavar="SECONDS",
                    help="create the three devices and keep them plugged in for SECONDS")
    opts = ap.parse_args(argv)
    if opts.check:
        return check(opts.duration)
    if opts.hold is not None:
        devs = [Pen(), Touch(), Pad()]
        for d in devs:
            print(f"{d.NAME}: {d.devnode}", flush=True)
        time.sleep(opts.hold)
        for d in devs:
            d.destroy()
        return 0
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
