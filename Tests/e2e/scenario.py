#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The pen and finger sessions the VM proof plays on the real kernel (run inside the VM).

    scenario.py INKKIOSK_BINARY            the sessions; screenshots via vm-shot
    scenario.py --record-libinput OUT.yml  records a pen line with `libinput record`

Devices are uinput copies of real hardware (scripts/vm/uinput_devices.py). The kiosk is the
real binary on /dev/dri/card0, recording what it receives; the host checks the screenshots
afterwards (check.py). Every step waits a little so the (emulated, slow) guest can draw.
"""
import fcntl
import json
import math
import os
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "vm"))
from uinput_devices import Device, Pad, Pen, Touch  # noqa: E402
from evdev import AbsInfo, ecodes as e  # noqa: E402

WORK = os.environ.get("IK_WORK", "/tmp")
KDGETMODE = 0x4B3B
VT_ACTIVATE, VT_WAITACTIVE = 0x5606, 0x5607


def say(msg):
    print(f"scenario: {msg}", flush=True)


def shot(name, frames_above=None, accept=None, device=None):
    """A QMP screendump of the VM's screen, once the running kiosk shows all input sent so far
    (with frames_above, a frame after that count: a change a request caused; with accept, a
    status line it takes). device: another card's QEMU id (run.py --second-screen)."""
    if Kiosk.current is not None:
        Kiosk.current.wait_idle(frames_above=frames_above, accept=accept, what=f"before screenshot {name}")
    subprocess.run([os.path.join(ROOT, "scripts", "vm", "vm-shot"), name, *([device] if device else [])], check=True)


class Notifications:
    """The kiosk's messages on systemd's notify socket (READY=1, STATUS=…, WATCHDOG=1), received
    as a service manager receives them."""

    STATUS = re.compile(r"^(\w+): .*?(\d+) frames; input to ([0-9.]+) s on screen")

    def __init__(self, path):
        if os.path.exists(path):
            os.unlink(path)
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.messages = []
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._receive, daemon=True)
        self.thread.start()

    def _receive(self):
        while True:
            try:
                data = self.sock.recv(4096)
            except OSError:
                return
            fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
            with self.changed:
                self.messages.append(fields)
                self.changed.notify_all()

    def wait(self, accept, timeout, what):
        """The first message `accept` takes (a dict of its fields), waiting up to `timeout` s."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self.changed:
            while True:
                for m in self.messages[seen:]:
                    if accept(m):
                        return m
                seen = len(self.messages)
                left = deadline - time.monotonic()
                if left <= 0:
                    last = self.messages[-3:]
                    raise SystemExit(f"scenario: {what}: no such message from the kiosk in {timeout} s (last: {last})")
                self.changed.wait(left)

    def close(self):
        self.sock.close()
        os.unlink(self.path)


def console_mode():
    with open("/dev/tty0", "rb") as tty:
        buf = fcntl.ioctl(tty.fileno(), KDGETMODE, struct.pack("i", 0))
    return struct.unpack("i", buf)[0]


@contextmanager
def hovering(pen, x, y, distance):
    """The pen hovers still above (x, y) while the body runs. libinput fakes a proximity-out
    after 50 ms of silence only until it has seen the pen leave by itself, which marker(pen)
    shows it at the start of a session."""
    pen.hover_in(x, y, distance=distance)
    yield


def switch_vt(n, wait=True):
    """What Ctrl-Alt-Fn does: asks the kernel to switch to VT n. Returns None or the error."""
    with open("/dev/tty0", "wb") as tty:
        try:
            fcntl.ioctl(tty.fileno(), VT_ACTIVATE, n)
        except OSError as e:
            return e
        if wait:
            done = threading.Event()
            threading.Thread(target=lambda: (fcntl.ioctl(tty.fileno(), VT_WAITACTIVE, n), done.set()), daemon=True).start()
            if not done.wait(10):
                return TimeoutError(f"VT {n} did not become active")
    return None


class Kiosk:
    """`inkkiosk record` as a child process, ready once it has seen the devices and shown its
    first frame. It gets a notify socket of its own, as under systemd."""

    current = None

    def __init__(self, binary, session, *args, devices=3, nofile=None):
        """nofile: the kiosk's soft limit of open files (as systemd's LimitNOFILE= sets it)."""
        self.session = session
        self.log_path = os.path.join(WORK, f"{session}.log")
        self.log = open(self.log_path, "w")
        self.notifications = Notifications(os.path.join("/run", f"inkkiosk-notify-{session}"))
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [binary, "record", os.path.join(WORK, f"{session}.inklog"),
             "--latency-stats", os.path.join(WORK, f"{session}-latency.json"), *args],
            stdout=self.log, stderr=self.log, env=dict(os.environ, NOTIFY_SOCKET=self.notifications.path),
            preexec_fn=None if nofile is None else lambda: resource.setrlimit(
                resource.RLIMIT_NOFILE, (nofile, max(nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))))
        Kiosk.current = self
        self.wait_log(lambda text: text.count("input device") >= devices, f"{devices} input devices")
        self.ready = self.notifications.wait(lambda m: m.get("READY") == "1", 60, f"{session}: READY=1")
        say(f"{session}: kiosk running (pid {self.proc.pid}): {self.ready.get('STATUS')}")

    def wait_log(self, accept, what, timeout=60):
        """Waits until the kiosk's log says what `accept` looks for."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = open(self.log_path).read()
            if accept(text):
                return text
            if self.proc.poll() is not None:
                raise SystemExit(f"scenario: {self.session}: the kiosk exited while waiting for {what}:\n{text}")
            time.sleep(0.05)
        raise SystemExit(f"scenario: {self.session}: no {what} in the kiosk's log after {timeout} s:\n{open(self.log_path).read()}")

    def wait_idle(self, frames_above=None, accept=None, what="idle", timeout=90):
        """Waits until the screen shows every report the uinput devices sent (if any was sent
        while this kiosk ran), with frames_above more frames than that, and with accept a status
        line it takes; returns the frames."""
        through = Device.last_report if Device.last_report > self.started else 0.0

        def caught_up(m):
            found = Notifications.STATUS.match(m.get("STATUS", ""))
            return (found is not None and found.group(1) == "Idle" and float(found.group(3)) >= through
                    and (frames_above is None or int(found.group(2)) > frames_above)
                    and (accept is None or accept(m["STATUS"])))
        if self.proc.poll() is not None:
            raise SystemExit(f"scenario: {self.session}: the kiosk is gone ({what}):\n{open(self.log_path).read()}")
        m = self.notifications.wait(caught_up, timeout, f"{self.session}: {what}")
        return int(Notifications.STATUS.match(m["STATUS"]).group(2))

    def killed(self):
        """kill -9: no clean-up at all."""
        self.proc.kill()
        self.proc.wait(timeout=10)
        self.gone()

    def gone(self):
        """The process has ended: no more waiting on it."""
        self.log.close()
        self.notifications.close()
        if Kiosk.current is self:
            Kiosk.current = None

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        status = self.proc.wait(timeout=30)
        self.gone()
        mode = console_mode()
        with open(os.path.join(WORK, f"{self.session}-kdmode.txt"), "w") as f:
            f.write(f"{mode}\n")
        say(f"{self.session}: kiosk exited with {status}; console mode {mode} (0 = text)")
        print(open(self.log_path).read(), flush=True)
        if status != 0:
            raise SystemExit(f"scenario: the kiosk exited with status {status}")


def marker(pen):
    """A neutral report after input this script did not send itself (libinput replay): the pen
    comes near a corner and leaves; once the kiosk shows it, it shows everything before it."""
    pen.hover_in(0.98, 0.02, distance=0.9)
    pen.out()


class ResistiveTouch(Device):
    """A resistive kiosk touch controller as an eGalax/EETI reports itself: BTN_TOOL_PEN and
    BTN_TOUCH with x/y, no resolution, no INPUT_PROP_DIRECT (udev calls it a tablet)."""

    NAME = "eGalax Inc. USB TouchController"
    VENDOR, PRODUCT = 0x0EEF, 0x0001
    RATE = 100.0

    def capabilities(self):
        return {e.EV_KEY: [e.BTN_TOOL_PEN, e.BTN_TOUCH],
                e.EV_ABS: [(e.ABS_X, AbsInfo(0, 0, 2047, 0, 0, 0)), (e.ABS_Y, AbsInfo(0, 0, 2047, 0, 0, 0))]}

    def swipe(self, points):
        for i, (x, y) in enumerate(points):
            self.write(e.EV_ABS, e.ABS_X, round(x * 2047))
            self.write(e.EV_ABS, e.ABS_Y, round(y * 2047))
            if i == 0:
                self.write(e.EV_KEY, e.BTN_TOOL_PEN, 1)
                self.write(e.EV_KEY, e.BTN_TOUCH, 1)
            self.sync()
        self.write(e.EV_KEY, e.BTN_TOUCH, 0)
        self.write(e.EV_KEY, e.BTN_TOOL_PEN, 0)
        self.sync()


def devices_listing(binary, name):
    listing = subprocess.run([binary, "devices"], capture_output=True, text=True, timeout=60)
    with open(os.path.join(WORK, name), "w") as f:
        f.write(listing.stdout + listing.stderr)
    print(listing.stdout, flush=True)


def session_three(binary):
    """The resistive controller: ignored by libinput as udev tags it, a touchscreen once the
    project's udev rule (deploy/udev) is installed; then it draws like a finger."""
    egalax = ResistiveTouch()
    subprocess.run(["udevadm", "settle"], check=True)
    devices_listing(binary, "devices-resistive-untagged.txt")
    rules = "/run/udev/rules.d"
    os.makedirs(rules, exist_ok=True)
    subprocess.run(["cp", os.path.join(ROOT, "deploy", "udev", "70-inkkiosk-resistive-touch.rules"), rules], check=True)
    subprocess.run(["udevadm", "control", "--reload"], check=True)
    egalax.destroy()
    egalax.create()
    subprocess.run(["udevadm", "settle"], check=True)
    devices_listing(binary, "devices-resistive-tagged.txt")
    kiosk = Kiosk(binary, "session3", "--tool", "pen", devices=4)
    egalax.swipe(line(0.9, 0.2, 0.8, 40))
    shot("resistive")
    kiosk.stop()
    egalax.destroy()


QUIRKS = "/etc/libinput/local-overrides.quirks"


def signature_path():
    """A signature-like pen path at 100 Hz: a fast zig-zag with sharp turns, then small loops
    (normalised positions; two strokes)."""
    zigzag, x, y = [], 0.08, 0.25
    for arm in range(12):
        for _ in range(6):
            x += 0.004
            y += 0.02 if arm % 2 == 0 else -0.02
            zigzag.append((x, y))
    loops, r, advance = [], 0.032, 0.03
    for i in range(8 * 14 + 1):
        t = 2 * math.pi * i / 14
        loops.append((0.1 + advance * t / (2 * math.pi) + r * 0.625 * math.sin(t), 0.65 - r * (1 - math.cos(t))))
    return [zigzag, loops]


def session_smoothing(binary, pen):
    """libinput averages a tablet tool's last positions unless a quirk turns it off. The same
    signature-like session without and with deploy/libinput's quirk; check.py measures how many
    of the pen's own positions have ink within 2.5 px on each screen."""
    if os.path.exists(QUIRKS):
        os.remove(QUIRKS)
    strokes = signature_path()
    for label in ("default", "quirk"):
        if label == "quirk":
            os.makedirs(os.path.dirname(QUIRKS), exist_ok=True)
            shutil.copy(os.path.join(ROOT, "deploy", "libinput", "local-overrides.quirks"), QUIRKS)
        devices_listing(binary, f"devices-smoothing-{label}.txt")
        kiosk = Kiosk(binary, f"smoothing-{label}", "--tool", "pen")
        rate, pen.rate = pen.rate, 100.0
        for points in strokes:
            pen.stroke(points, pressure=0.3)
            pen.out()
        pen.rate = rate
        shot(f"smoothing-{label}")
        kiosk.stop()
    raw = [[(pen._ux(x), pen._uy(y)) for x, y in points] for points in strokes]
    with open(os.path.join(WORK, "smoothing-path.json"), "w") as f:
        json.dump({"max": [pen.MAX_X, pen.MAX_Y], "strokes": raw}, f)


def session_four(binary, pen):
    """Never lose ink: kill -9 the kiosk in the middle of a stroke; the restarted kiosk shows
    every finished stroke from its journal, and not the unfinished one."""
    journal = os.path.join(WORK, "journal.inkj")
    kiosk = Kiosk(binary, "session4", "--journal", journal)
    for y in (0.2, 0.35, 0.5):
        pen.stroke(line(y, 0.2, 0.8, 30), pressure=0.6)
        pen.out()
    # Shown is not saved: the journal's sync on the shared directory can end after the screen's frame.
    kiosk.wait_idle(accept=lambda status: "; 0 edits to save" in status, what="the finished strokes shown and saved")
    pen.hover_in(0.2, 0.65, distance=0.1)
    pen.down(0.6)
    for x, y in line(0.65, 0.2, 0.5, 20)[1:]:
        pen.move(x, y, pressure=0.6)
    kiosk.killed()   # SIGKILL mid-stroke: no clean-up at all
    pen.up()
    pen.out()
    say("session4: killed mid-stroke; restarting on the same journal")
    kiosk = Kiosk(binary, "session4-restart", "--journal", journal)
    shot("journal-restored")
    kiosk.stop()


def line(y, x0, x1, steps=50):
    return [(x0 + (x1 - x0) * i / steps, y) for i in range(steps + 1)]


def session_one(binary, pen, touch):
    kiosk = Kiosk(binary, "session1", "--config", os.path.join(ROOT, "config", "inkkiosk.toml"))
    marker(pen)
    # Hover: close, farther, gone.
    with hovering(pen, 0.25, 0.15, 0.05):
        shot("hover-near")
    with hovering(pen, 0.25, 0.15, 0.7):
        shot("hover-far")
    pen.out()
    shot("hover-gone")
    # Light and firm strokes on one line; then the pen only hovers across y = 0.5.
    pen.stroke(line(0.3, 0.15, 0.45), pressure=0.1)
    pen.out()
    pen.stroke(line(0.3, 0.55, 0.85), pressure=0.9)
    for x, y in line(0.5, 0.1, 0.9, 40):
        pen.move(x, y, distance=0.08)
    pen.out()
    shot("pressure")
    # A side-button click: the previous tool (the eraser) crosses the light stroke.
    pen.hover_in(0.3, 0.22, distance=0.1)
    pen.click("stylus", 80)
    pen.stroke([(0.3, 0.22 + 0.16 * i / 30) for i in range(31)], pressure=0.5)
    pen.out()
    shot("erased")
    pen.hover_in(0.15, 0.45, distance=0.1)
    pen.click("stylus", 80)
    pen.stroke(line(0.45, 0.15, 0.85), pressure=0.5)
    pen.out()
    shot("switched-back")
    touch.swipe(line(0.6, 0.2, 0.8, 30))
    shot("finger")
    # VT switching is locked in kiosk mode: Ctrl-Alt-F2 must not leave the kiosk.
    say(f"session1: switching to VT 2 while locked: {switch_vt(2, wait=False)}")
    time.sleep(1.0)   # nothing may happen: a wait for a change that must not come
    shot("vt-locked")
    shot("final1")
    kiosk.stop()
    shot("after-exit1")


def session_two(binary, pen, touch):
    # Legacy KMS on bochs (the other sessions take atomic KMS there): the escape hatch stays proven.
    kiosk = Kiosk(binary, "session2", "--tool", "calligraphy", "--allow-vt-switch", "--kms", "legacy")
    pen.stroke(line(0.2, 0.2, 0.8), pressure=0.6, tilt=(50, 0))
    pen.out()
    pen.stroke(line(0.35, 0.2, 0.8), pressure=0.6, tilt=(0, 50))
    pen.out()
    shot("calligraphy")
    # A technician's VT switch: the kiosk lets go of the screen, then takes it back and redraws.
    say(f"session2: to VT 2: {switch_vt(2)}")
    shot("vt-away")
    say(f"session2: back to VT 1: {switch_vt(1)}")
    shot("vt-back")
    # Unplug the tablet mid-stroke, plug it back, draw again.
    pen.hover_in(0.2, 0.5, distance=0.1, tilt=(50, 0))
    pen.down(0.6)
    for x, y in line(0.5, 0.2, 0.3, 15)[1:]:
        pen.move(x, y, pressure=0.6)
    pen.destroy()
    kiosk.wait_log(lambda text: "input device 1 removed" in text, "the pen's removal")
    added = open(kiosk.log_path).read().count("input device")
    pen.create()
    kiosk.wait_log(lambda text: text.count("input device") > added, "the pen plugged back")
    pen.stroke(line(0.65, 0.2, 0.8), pressure=0.6, tilt=(50, 0))
    pen.out()
    shot("replug")
    # The ecosystem's own player: a recorded pen line at y = 0.8.
    recording = os.path.join(HERE, "pen-line.libinput.yml")
    player = subprocess.Popen(["/usr/bin/python3", "/usr/libexec/libinput/libinput-replay", recording],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    added = open(kiosk.log_path).read().count("input device")
    kiosk.wait_log(lambda text: text.count("input device") > added, "the replayed device")
    player.stdin.write("\n")
    player.stdin.flush()
    player.stdin.close()   # after the one replay, the player's next prompt reads EOF and it exits
    out = player.stdout.read()
    player.wait(timeout=30)
    say(f"libinput replay: {out.strip()[-300:]}")
    marker(pen)
    shot("libinput-replay")
    shot("final2")
    kiosk.stop()


def record_libinput(out):
    """Records a pen line with libinput's own recorder, for check runs with libinput replay."""
    pen = Pen()
    rec = subprocess.Popen(["libinput", "record", "--output-file", out, pen.devnode])
    time.sleep(1.5)
    pen.stroke(line(0.8, 0.3, 0.7, 60), pressure=0.6, tilt=(50, 0))
    pen.out()
    time.sleep(0.5)
    rec.send_signal(signal.SIGINT)
    rec.wait(timeout=10)
    pen.destroy()
    say(f"recorded {out}")


def main():
    if sys.argv[1:2] == ["--record-libinput"]:
        record_libinput(sys.argv[2])
        return
    binary = sys.argv[1]
    # IK_E2E_ONLY=api: only the signature API's probes (api_probes.py), a run of a few minutes;
    # api:kill,flood only those of them.
    only = os.environ.get("IK_E2E_ONLY", "")
    if only.split(":")[0] not in ("", "api", "worksheets", "documents", "cloud", "logging", "display"):
        raise SystemExit(f"scenario: IK_E2E_ONLY={only!r}: the parts that run alone are 'api' (or 'api:PROBE,…'), "
                         "'worksheets', 'documents', 'cloud', 'logging' and 'display'")
    with open(os.path.join(WORK, "e2e-only.txt"), "w") as f:
        f.write(f"{only}\n")   # check.py judges only that part
    pen, touch, pad = Pen(), Touch(), Pad()
    try:
        if only:
            # As the full run leaves the guest by then: deploy/libinput's quirk installed.
            os.makedirs(os.path.dirname(QUIRKS), exist_ok=True)
            shutil.copy(os.path.join(ROOT, "deploy", "libinput", "local-overrides.quirks"), QUIRKS)
            if only == "worksheets":
                import modes
                modes.worksheet_session(binary, pen, touch)
                return
            if only == "documents":
                import documents
                documents.document_session(binary, pen, touch)
                return
            if only == "cloud":
                from cloud_session import session_cloud
                session_cloud(binary, pen, touch)
                return
            if only == "logging":
                from logging_session import session_logging
                session_logging(binary)
                return
            if only == "display":   # both KMS interfaces: sessions 1 and 2 on bochs, the faults on virtio-gpu
                session_one(binary, pen, touch)
                session_two(binary, pen, touch)
                from display_faults import session_display_faults
                session_display_faults(binary, pen, touch)
                return
            import api_probes
            _, _, names = only.partition(":")
            api_probes.session_api_probes(binary, pen, touch, *([names.split(",")] if names else []))
            return
        # libinput's smoothing measured without the project's quirk, then with it; the quirk
        # stays installed for every later session, as on a board.
        session_smoothing(binary, pen)
        # What a technician sees when installing: `inkkiosk devices`.
        devices_listing(binary, "devices.txt")
        session_one(binary, pen, touch)
        session_two(binary, pen, touch)
        session_three(binary)
        session_four(binary, pen)
        import modes
        modes.signature_session(binary, pen, touch)
        import documents   # a contract posted, read, signed in its field, signed again; kill -9 meanwhile
        documents.document_session(binary, pen, touch)
        import api_probes   # the API flooded, fed malformed requests, under load, killed during Accept
        api_probes.session_api_probes(binary, pen, touch)
        modes.classroom_session(binary, pen, touch)
        modes.worksheet_session(binary, pen, touch)
        from cloud_session import session_cloud   # hand-out and hand-in over the school's cloud (WebDAV, TLS)
        session_cloud(binary, pen, touch)
        import durability
        durability.session_durability(binary, pen)
        modes.disk_full_session(binary, pen)
        from lockdown import session_lockdown   # Tests/e2e/lockdown.py
        session_lockdown(binary, pen)
        from logging_session import session_logging   # [log] level, journald's priorities
        session_logging(binary)
        from display_faults import session_display_faults   # the second card: unplug, other modes, master lost
        session_display_faults(binary, pen, touch)
    finally:
        for d in (pen, touch, pad):
            d.destroy()


if __name__ == "__main__":
    main()
