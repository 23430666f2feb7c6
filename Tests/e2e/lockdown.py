#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Kiosk lockdown on the real kernel (inside the VM; scenario.py runs `session_lockdown`).

A uinput USB keyboard presses what would leave a kiosk or reach a console:

  control, `--no-lockdown` (the VT is still in graphics mode, keyboard K_OFF, switching locked):
      Alt-SysRq-h with kernel.sysrq = 1   the kernel prints its SysRq help: K_OFF does not stop
                                          SysRq (an input handler of its own)
      Ctrl-Alt-Del, VT keyboard on        the kernel acts on it: SIGINT to kernel.cad_pid (here a
                                          stand-in); only the VT's keyboard mode was in the way
  locked down (the config's [lockdown], service keys ctrl+alt+shift+s):
      kernel.sysrq                        the kiosk set it to 0 (then set back to 1 here, so that
                                          only the grab stands between the keys and the kernel)
      Ctrl-Alt-F2                         the kiosk's VT stays active, the ink stays on screen
      Alt-SysRq-h                         nothing reaches the kernel
      Ctrl-Alt-Del, VT keyboard on        nothing reaches the kernel
      Ctrl-C                              the kiosk keeps running
      Ctrl-Alt-Shift-S                    the kiosk stops with status 10 (not restarted), the console in text mode

What happened goes to WORK/lockdown.json (check_lockdown.py judges it on the host).
Alone, without the other sessions:
    scripts/vm/run.py --work DIR -- Tests/e2e/lockdown.py BINARY; Tests/e2e/check_lockdown.py DIR
"""
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import time
from contextlib import contextmanager

import scenario as s
from evdev import ecodes as e
from uinput_devices import Device, Pad, Pen, Touch

VT_GETSTATE = 0x5603
KDGKBMODE, KDSKBMODE, K_XLATE = 0x4B44, 0x4B45, 0x01
SERVICE_KEYS = "ctrl+alt+shift+s"


class Keyboard(Device):
    """A plain USB keyboard (every key of a 105-key board, F13-F24 too)."""

    NAME = "Logitech USB Keyboard"
    VENDOR, PRODUCT = 0x046D, 0xC31C
    RATE = 100.0

    def capabilities(self):
        return {e.EV_KEY: list(range(e.KEY_ESC, e.KEY_COMPOSE + 1)) + list(range(e.KEY_F13, e.KEY_F24 + 1))}

    def chord(self, *keys, hold=0.1):
        """Presses the keys in order, holds them, lets go in reverse order, as a hand does."""
        for k in keys:
            self.write(e.EV_KEY, k, 1)
            self.sync()
        time.sleep(hold)
        for k in reversed(keys):
            self.write(e.EV_KEY, k, 0)
            self.sync()
        time.sleep(0.5)


def sysctl(name, value=None):
    path = f"/proc/sys/kernel/{name}"
    if value is not None:
        with open(path, "w") as f:
            f.write(f"{value}\n")
    with open(path) as f:
        return f.read().strip()


def active_vt():
    with open("/dev/tty0", "rb") as tty:
        buf = fcntl.ioctl(tty.fileno(), VT_GETSTATE, struct.pack("HHH", 0, 0, 0))
    return struct.unpack("HHH", buf)[0]


@contextmanager
def vt_keyboard_on():
    """Turns the active VT's keyboard back on (K_XLATE) behind the kiosk's back, as if it ran
    without a console; puts the kiosk's mode back afterwards."""
    with open("/dev/tty0", "rb") as tty:
        saved = struct.unpack("i", fcntl.ioctl(tty.fileno(), KDGKBMODE, struct.pack("i", 0)))[0]
        fcntl.ioctl(tty.fileno(), KDSKBMODE, K_XLATE)
        try:
            yield
        finally:
            fcntl.ioctl(tty.fileno(), KDSKBMODE, saved)


class KernelLog:
    """What the kernel logs from now on (a marker line in /dev/kmsg, then dmesg after it)."""

    def __init__(self, name):
        self.mark = f"inkkiosk-e2e: {name} {time.monotonic():.3f}"
        with open("/dev/kmsg", "w") as kmsg:
            kmsg.write(self.mark + "\n")

    def since(self):
        text = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
        return text[text.rfind(self.mark) + len(self.mark):].strip().splitlines() if self.mark in text else ["(marker lost)"]


class CtrlAltDelTarget:
    """Stands in for init as the kernel's Ctrl-Alt-Del target (kernel.cad_pid), with
    kernel.ctrl-alt-del = 0 so that the kernel sends SIGINT instead of rebooting at once."""

    def __enter__(self):
        self.proc = subprocess.Popen(["sleep", "600"])
        self.saved = sysctl("ctrl-alt-del"), sysctl("cad_pid")
        sysctl("ctrl-alt-del", 0)
        sysctl("cad_pid", self.proc.pid)
        return self

    def signalled(self, wait=1.0):
        """The signal the stand-in died of (e.g. 'SIGINT'), or None if it still runs."""
        try:
            status = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None
        return signal.Signals(-status).name if status < 0 else f"exit {status}"

    def __exit__(self, *exc):
        sysctl("cad_pid", self.saved[1])
        sysctl("ctrl-alt-del", self.saved[0])
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def sysrq_help(kbd):
    """Presses Alt-SysRq-h; returns the kernel's SysRq lines it caused."""
    log = KernelLog("alt-sysrq-h")
    kbd.chord(e.KEY_LEFTALT, e.KEY_SYSRQ, e.KEY_H)
    return [line for line in log.since() if "sysrq" in line.lower()]


def ctrl_alt_del(kbd):
    """Presses Ctrl-Alt-Del with the VT's keyboard on (in K_OFF the VT ignores it anyway);
    returns how the kernel's Ctrl-Alt-Del target ended (None: untouched)."""
    with CtrlAltDelTarget() as target, vt_keyboard_on():
        kbd.chord(e.KEY_LEFTCTRL, e.KEY_LEFTALT, e.KEY_DELETE)
        return target.signalled()


def session_lockdown(binary, pen):
    kbd = Keyboard()
    found = {"keyboard": kbd.devnode, "service_keys": SERVICE_KEYS}
    try:
        sysctl("sysrq", 1)   # every SysRq function on: only the grab can keep the keys away

        # Control: no lockdown. The VT is in graphics mode with the keyboard off and switching
        # locked, as always; the kernel's own handlers still get the keys.
        kiosk = s.Kiosk(binary, "lockdown-off", "--no-lockdown")
        found["off_sysrq_lines"] = sysrq_help(kbd)
        found["off_ctrl_alt_del"] = ctrl_alt_del(kbd)
        s.say(f"lockdown off: Alt-SysRq-h → {found['off_sysrq_lines'][:1]}; Ctrl-Alt-Del → {found['off_ctrl_alt_del']}")
        kiosk.stop()

        # Locked down, from a config file as a board has it.
        config = os.path.join(s.WORK, "lockdown.toml")
        with open(config, "w") as f:
            f.write(f'[lockdown]\nenabled = true\nservice_keys = "{SERVICE_KEYS}"\n')
        found["sysrq_before"] = sysctl("sysrq")
        kiosk = s.Kiosk(binary, "lockdown", "--config", config)
        found["sysrq_after_start"] = sysctl("sysrq")
        sysctl("sysrq", 1)
        pen.stroke(s.line(0.5, 0.2, 0.8, 30), pressure=0.6)
        pen.out()
        found["vt_before"] = active_vt()
        kbd.chord(e.KEY_LEFTCTRL, e.KEY_LEFTALT, e.KEY_F2)
        time.sleep(1.0)
        found["vt_after_ctrl_alt_f2"] = active_vt()
        s.shot("lockdown-ctrl-alt-f2")
        found["sysrq_lines"] = sysrq_help(kbd)
        found["ctrl_alt_del"] = ctrl_alt_del(kbd)
        kbd.chord(e.KEY_LEFTCTRL, e.KEY_C)
        time.sleep(0.5)
        found["running_after_ctrl_c"] = kiosk.proc.poll() is None
        s.shot("lockdown-keys-pressed")
        s.say(f"locked down: VT {found['vt_before']} → {found['vt_after_ctrl_alt_f2']}; Alt-SysRq-h → "
              f"{found['sysrq_lines']}; Ctrl-Alt-Del → {found['ctrl_alt_del']}; running after Ctrl-C: {found['running_after_ctrl_c']}")

        # The technicians' way out.
        t = time.monotonic()
        kbd.chord(e.KEY_RIGHTCTRL, e.KEY_LEFTALT, e.KEY_LEFTSHIFT, e.KEY_S)
        try:
            found["service_exit_status"] = kiosk.proc.wait(timeout=20)
            found["service_exit_seconds"] = round(time.monotonic() - t, 2)
        except subprocess.TimeoutExpired:
            found["service_exit_status"] = None
            kiosk.proc.kill()
            kiosk.proc.wait()
        kiosk.gone()
        found["console_mode_after"] = s.console_mode()
        s.shot("lockdown-service-exit")
        found["log"] = open(kiosk.log_path).read()
        s.say(f"service keys: kiosk exited with {found['service_exit_status']}; console mode {found['console_mode_after']}")
        print(found["log"], flush=True)
    finally:
        with open(os.path.join(s.WORK, "lockdown.json"), "w") as f:
            json.dump(found, f, indent=2)
        kbd.destroy()


def main():
    pen, touch, pad = Pen(), Touch(), Pad()   # the kiosk helper waits for these three
    try:
        session_lockdown(sys.argv[1], pen)
    finally:
        for d in (pen, touch, pad):
            d.destroy()


if __name__ == "__main__":
    main()
