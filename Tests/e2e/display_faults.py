# SPDX-License-Identifier: Apache-2.0
"""Display faults on a real kernel (run inside the VM by scenario.py; checked by check_display.py).

The kiosk runs on the VM's second card (virtio-gpu, /dev/dri/card1): its monitor can be
swapped at run time (`vm-monitor WxH`, QEMU's VNC resize: a new EDID, so a new preferred mode,
and a hotplug), which bochs on card0 cannot do (its modes come from an EDID read once at boot;
debugfs edid_override changes the EDID property, not its modes). The unplug is the kernel's own
switch (`off` into the connector's sysfs status: disconnected; this kernel sends no event for
it, so the card's change is announced through its uevent file). The session:

1. a finger draws; the screen is unplugged; the finger draws again (into RAM only);
2. a 1440x900 monitor is plugged in instead of the 1280x800 one: the 1280x800 canvas shows
   centred with black borders, both strokes there; a finger then draws where it touches, and
   the pen (a desk tablet: it stands for the canvas) draws on the canvas;
3. the monitor changes to 1024x640 while connected: the canvas is scaled down to fit;
4. DRM master is lost: the VT is switched away (the kiosk drops master), another process
   opens the card (and so becomes master), the VT comes back; every mode set of the kiosk
   fails with EACCES and is retried with backoff while the pen draws; the other process
   closes the card and the kiosk's next retry shows the whole picture.
"""
import json
import os
import re
import subprocess
import sys
import time

from scenario import ROOT, Kiosk, WORK, line, marker, say, shot, switch_vt
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))  # the harness's shared modules (the kit has them)
import kiosk_lines  # noqa: E402

CARD = "/dev/dri/card1"
SCREEN = "screen2"   # run.py's QEMU id of that card


STATUS = "/sys/class/drm/card1-Virtual-2/status"


def force(state):
    """The kernel's own switch for a connector: "off" reports it disconnected, "detect" probes
    it again. This kernel (6.1) sends no hotplug event for it: for "off" the card announces a
    change by hand (what the driver's hotplug does); "detect" is followed by a monitor swap,
    whose hotplug event is the driver's own."""
    with open(STATUS, "w") as f:
        f.write(state)
    if state == "off":
        with open("/sys/class/drm/card1/uevent", "w") as f:
            f.write("change")


def monitor(size):
    subprocess.run([os.path.join(ROOT, "scripts", "vm", "vm-monitor"), size], check=True)


def debugfs(name):
    if not os.path.exists("/sys/kernel/debug/dri"):
        subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"], check=True)
    return open(f"/sys/kernel/debug/dri/1/{name}").read()


def kiosk_framebuffers():
    """How many frame-sized framebuffers (XRGB8888) the kiosk holds on the card (debugfs): two,
    however often the mode changed, if the old ones were freed; and its cursor plane's (ARGB8888)."""
    blocks = debugfs("framebuffer").split("framebuffer[")[1:]
    ours = [b for b in blocks if "allocated by = inkkiosk" in b]
    return (sum("format=XR24" in b for b in ours), sum("format=AR24" in b for b in ours))


def plane_state(plane):
    """The atomic state of a plane (debugfs `state`): its framebuffer id and where it is on the CRTC."""
    text = debugfs("state")
    m = re.search(rf"plane\[{plane}\]:.*?(?=\n\S|\Z)", text, re.S)
    if not m:
        return None
    block = m.group(0)
    fb = re.search(r"\n\s*fb=(\d+)", block)
    pos = re.search(r"crtc-pos=(\d+)x(\d+)([+-]\d+)([+-]\d+)", block)
    return {"fb": int(fb.group(1)) if fb else None,
            "pos": [int(g) for g in pos.groups()] if pos else None}


def cursor_plane(log_path):
    """The cursor plane the kiosk said it took (its start-up line), or None."""
    for m in kiosk_lines.KMS.finditer(open(log_path).read()):
        planes = kiosk_lines.ATOMIC_PLANES.fullmatch(m["detail"]) if m["interface"] == "atomic" else None
        if planes and planes["cursor"]:
            return int(planes["cursor"])
    return None


def session_display_faults(binary, pen, touch):
    figures = {}
    kiosk = Kiosk(binary, "display", "--card", CARD, "--tool", "pen", "--allow-vt-switch")
    touch.swipe(line(0.25, 0.2, 0.8, 30))
    shot("display-1280", device=SCREEN)

    force("off")
    kiosk.wait_log(lambda text: "unplugged: drawing continues off screen" in text, "the unplug")
    touch.swipe(line(0.4, 0.2, 0.8, 30))            # drawn while no screen is there
    frames = kiosk.wait_idle(what="the stroke drawn off screen")

    start = time.monotonic()
    force("detect")
    monitor("1440x900")   # another monitor, plugged in instead: the driver's hotplug event
    kiosk.wait_log(lambda text: "a screen is back, setting 1440x900" in text, "the replug with 1440x900")
    kiosk.wait_idle(frames_above=frames, what="the first frame on the new screen")
    figures["replugToIdleMs"] = (time.monotonic() - start) * 1000
    shot("display-1440", device=SCREEN)
    # A finger where the screen shows it (the screen's own positions, 0.3…0.7 at 0.7), then the pen.
    touch.swipe(line(0.7, 0.3, 0.7, 30))
    pen.stroke(line(0.55, 0.2, 0.8, 40), pressure=0.6)
    pen.out()
    shot("display-1440-drawn", device=SCREEN)
    # The hover preview on virtio-gpu's cursor plane, committed with the frame (atomic KMS): the
    # plane's state in the kernel says where it is (QEMU's screendump leaves the cursor out). On
    # the 1440x900 screen (canvas 1:1 at 80,50), after the fingers: a pen keeps fingers from
    # drawing for a while (palm rejection).
    plane = cursor_plane(kiosk.log_path)
    figures["cursorPlane"] = plane
    if plane is not None:
        marker(pen)   # libinput then knows this pen leaves by itself: a still pen stays in proximity
        frames = kiosk.wait_idle(what="before the hover")
        pen.hover_in(0.5, 0.5, distance=0.05)
        kiosk.wait_idle(frames_above=frames, what="the hover's frame")
        figures["cursorHovering"] = plane_state(plane)
        frames = kiosk.wait_idle(what="the hover")
        pen.out()
        kiosk.wait_idle(frames_above=frames, what="the frame after proximity out")
        figures["cursorAfterOut"] = plane_state(plane)

    frames = kiosk.wait_idle(what="before the mode change")
    start = time.monotonic()
    monitor("1024x640")
    kiosk.wait_log(lambda text: "mode changed from 1440x900@75, setting 1024x640" in text, "the change to 1024x640")
    kiosk.wait_idle(frames_above=frames, what="the first frame in 1024x640")
    figures["modeChangeToIdleMs"] = (time.monotonic() - start) * 1000
    shot("display-1024", device=SCREEN)

    # DRM master taken by another program while the kiosk is away from its VT (VT 2 is active
    # only once the kiosk has let go).
    say(f"display: to VT 2: {switch_vt(2)}")
    other = os.open(CARD, os.O_RDWR)           # the first opener while nobody is master becomes master
    say(f"display: back to VT 1: {switch_vt(1)}")
    kiosk.wait_log(lambda text: "on Virtual-2 failed: Permission denied (EACCES)" in text, "a mode set refused with EACCES")
    pen.stroke(line(0.85, 0.2, 0.8, 40), pressure=0.6)   # drawn while the screen is refused
    pen.out()
    kiosk.wait_idle(what="the stroke drawn while the screen is refused")
    freed = time.monotonic()
    os.close(other)
    kiosk.wait_log(lambda t: "works again after" in t and "the whole picture is back" in t, "the mode set working again")
    figures["masterFreedToModeSetMs"] = (time.monotonic() - freed) * 1000
    shot("display-master-back", device=SCREEN)
    figures["kioskFramebuffers"], figures["kioskCursorFramebuffers"] = kiosk_framebuffers()
    kiosk.stop()
    log = open(kiosk.log_path).read()
    with open(os.path.join(WORK, "display-figures.json"), "w") as f:
        json.dump(figures, f)
    say(f"display: figures {figures}")
    return log
