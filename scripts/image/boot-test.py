#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Boots the appliance's disk image (out/image/, from `make image`) under UEFI in QEMU, twice: the
first boot must take slot A; the second, since nothing confirmed A's boot, must fall back to B.

    python3 scripts/image/boot-test.py [--image out/image/inkkiosk-amd64.img] [--timeout 180]

QEMU: the pc machine with its i6300esb watchdog (-action watchdog=reset), OVMF (Debian's `ovmf`) as its firmware, software emulation (TCG) unless
--accel kvm, std VGA (the guest's bochs DRM driver, as scripts/appliance/boot-test.py), the
image as a virtio disk (a sparse copy: the image itself is not changed), a virtio NIC on QEMU's
user network, serial port on a pipe, a QMP socket. The copy's grubenv gets ik_cmdline_extra="console=tty1 console=ttyS0 loglevel=6
ik.appliance.test=1 ik.update.confirm_after=never": the kernel's lines and /init's milestones
reach the serial port, the appliance's test hook prints one line once PID 1 is the kiosk, and no
boot is confirmed.

Each boot passes when, within --timeout seconds of QEMU's start:
- the kernel's command line (its "Command line:" line) says rauc.slot=<the expected slot>;
- a QMP screendump is at least 99 % white (the kiosk's empty paper: the firmware's and GRUB's
  screens and the kernel's console are black) and 1 s later every pixel is white;
- the kiosk's status line (inkkiosk: /dev/dri/…) reached the serial port, the test hook says
  PID 1 is inkkiosk, and /init mounted the data partition (LABEL=inkdata, partition 4);
- within 60 s of the first frame the update engine has the network: eth0's DHCP lease from
  QEMU (ik-net: eth0: 10.0.2.15/24 via 10.0.2.2, DNS 10.0.2.3);
and, read on the host from the copy once QEMU is gone, GRUB's environment block records the try
(<slot>_TRY=1). Boot 1 expects A (the image's ORDER="A B", both OK); boot 2 expects B, because
A was tried and never confirmed (ik.update.confirm_after=never: the image's own confirmation,
boot.d/updates.sh, is off, as if the kiosk never got through its stable period): the rollback.

The screen is polled every 0.25 s until the kernel's first line, 0.1 s until /init execs the
kiosk, then every 0.02 s. Writes BOOT_DIR (default out/image/boot-test/): bootN-grub.png (the
last screen before the kernel: firmware and GRUB), bootN-first-frame.png, bootN-console.log (host
seconds since QEMU start before each serial line), figures.json. Prints the figures: image size,
QEMU start → firmware handing over (OVMF's "starting Boot"), → the kernel's first line, → the
kiosk's first frame. Exit status 0 pass, 1 fail, 2 setup error. Standard library only.
"""

import argparse
import importlib.util
import json
import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))  # the harness's shared modules
import kiosk_lines  # noqa: E402


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


vmrun = _load("ik_vm_run", os.path.join(ROOT, "scripts", "vm", "run.py"))
appl = _load("ik_appliance_boot_test", os.path.join(ROOT, "scripts", "appliance", "boot-test.py"))

# The board each architecture's image is proven on: QEMU's machine, its UEFI firmware (code and a
# copy of the variables per boot, as pflash), its screen (the kiosk's DRM driver: bochs on x86,
# virtio-gpu on arm64) and its serial console.
MACHINES = {
    "amd64": {"qemu": "qemu-system-x86_64", "qemu_pkg": "qemu-system-x86", "machine": "pc", "cpu": "qemu64",
              "firmware": ("/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd"), "firmware_pkg": "ovmf",
              "screen": "VGA,xres=1280,yres=800,vgamem_mb=64", "console": "ttyS0", "memory": 512},
    "arm64": {"qemu": "qemu-system-aarch64", "qemu_pkg": "qemu-system-arm", "machine": "virt", "cpu": "cortex-a72",
              "firmware": ("/usr/share/AAVMF/AAVMF_CODE.fd", "/usr/share/AAVMF/AAVMF_VARS.fd"), "firmware_pkg": "qemu-efi-aarch64",
              "screen": "virtio-gpu-pci,xres=1280,yres=800", "console": "ttyAMA0", "memory": 768},
}
ESP_OFFSET = 1024 * 1024           # partition 1 starts at 1 MiB (scripts/image/build.sh)
GRUBENV = "::/EFI/BOOT/grubenv"


def test_cmdline(opts):
    """What a proof adds to the kernel's command line (grubenv's ik_cmdline_extra): the kernel's lines
    and /init's milestones on the serial port, the appliance's test hook."""
    early = " earlycon" if opts.arch == "arm64" else ""   # the PL011 from ACPI's SPCR at once: a kernel that stops early still says where
    return f"console=tty1 console={MACHINES[opts.arch]['console']}{early} loglevel=6 ik.appliance.test=1"
WHITE_ENOUGH = 0.99

CMDLINE_RE = re.compile(r"[Cc]ommand line: (.*)$")
SLOT_RE = re.compile(r"(?:^|\s)rauc\.slot=(\S+)")
KTIME_RE = re.compile(r"^\[\s*(\d+\.\d+)\]\s?(.*)$")


def note(msg):
    print(f"image-boot-test: {msg}", flush=True)




def arguments(description, proof):
    """The options every image proof takes (its own come after); `proof` names its default directory."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--arch", choices=sorted(MACHINES), default="amd64", help="the image's architecture (default amd64)")
    ap.add_argument("--image", help="default out/image/inkkiosk-amd64.img, out/image-arm64/inkkiosk-arm64.img")
    ap.add_argument("--boot-dir", help=f"screendumps, console logs, figures (default: the image's directory/{proof})")
    ap.add_argument("--timeout", type=float, default=180, help="seconds from QEMU start to the first frame, each boot (default 180)")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--cpu", help="QEMU's CPU (default qemu64, cortex-a72 on arm64)")
    ap.add_argument("--memory", type=int, help="guest MB (default 512, 768 on arm64)")
    ap.add_argument("--quiet", action="store_true", help="do not stream the serial console")
    return ap

def settle(opts):
    """The options' defaults that depend on the architecture; the options."""
    m = MACHINES[opts.arch]
    opts.image = opts.image or os.path.join(ROOT, "out", "image" if opts.arch == "amd64" else f"image-{opts.arch}",
                                            f"inkkiosk-{opts.arch}.img")
    opts.cpu = opts.cpu or m["cpu"]
    opts.memory = opts.memory or m["memory"]
    return opts


def missing_tools(opts):
    """What this machine lacks to boot the architecture's image, said as what to install; None."""
    m = MACHINES[opts.arch]
    for tool, pkg in ((m["qemu"], m["qemu_pkg"]), ("mcopy", "mtools"), ("grub-editenv", "grub-common")):
        if not shutil.which(tool):
            return f"{tool} is missing (apt-get install {pkg})"
    for f in m["firmware"]:
        if not os.path.isfile(f):
            return f"{f} is missing (apt-get install {m['firmware_pkg']})"
    return None


def image_and_slot(opts, tag):
    """The image the options name and the slot file system beside it (both from `make image`);
    None, said, when one is missing."""
    settle(opts)
    problem = missing_tools(opts)
    if problem:
        print(f"{tag}: error: {problem}", flush=True)
        return None
    image = os.path.realpath(opts.image)
    slot = os.path.join(os.path.dirname(image), "slot.ext4")
    for f in (image, slot):
        if not os.path.isfile(f):
            print(f"{tag}: error: {f} is missing; build it with `make image`", flush=True)
            return None
    return image, slot


# The image's update engine has the network (QEMU's user network: the lease, the route to the host).
NET_UP_RE = r"ik-net: eth0: 10\.0\.2\.15/24 via 10\.0\.2\.2, DNS 10\.0\.2\.3 \(bound\)"


def finish(tag, results, figures, boot_dir, problems):
    """The end every image proof shares: each boot's environment block, figures.json (`figures`
    plus the boots and the problems), the problems, the verdict; returns the exit status."""
    for r in results:
        env = r["grubenv_after"]
        print(f"grubenv after boot {r['boot']}: " + " ".join(f"{k}={env.get(k)}" for k in ("ORDER", "A_OK", "A_TRY", "B_OK", "B_TRY")))
    with open(os.path.join(boot_dir, "figures.json"), "w") as f:
        json.dump({**figures, "boots": results, "problems": problems}, f, indent=2)
        f.write("\n")
    say = lambda msg: print(f"{tag}: {msg}", flush=True)
    say(f"console logs and screendumps in {boot_dir}")
    for p in problems:
        say(f"FAIL: {p}")
    if problems:
        return 1
    say("PASS")
    return 0

def grubenv_read(disk):
    """The environment block on the disk's ESP, as a dict."""
    out = subprocess.run(["mtype", "-i", f"{disk}@@{ESP_OFFSET}", GRUBENV], check=True,
                         capture_output=True).stdout.decode("utf-8", "replace")
    env = {}
    for line in out.splitlines():
        if line.startswith("#") or "=" not in line:
            continue
        k, v = line.split("=", 1)
        env[k] = v
    return env


def grubenv_set(disk, rundir, **values):
    """Sets variables in the disk's environment block (grub-editenv on a copy, mcopy back)."""
    local = os.path.join(rundir, "grubenv")
    subprocess.run(["mcopy", "-o", "-i", f"{disk}@@{ESP_OFFSET}", GRUBENV, local], check=True)
    subprocess.run(["grub-editenv", local, "set", *[f"{k}={v}" for k, v in values.items()]], check=True)
    subprocess.run(["mcopy", "-o", "-i", f"{disk}@@{ESP_OFFSET}", local, GRUBENV], check=True)


class EventQMP(vmrun.QMP):
    """QMP that keeps the events it reads past (WATCHDOG, SHUTDOWN, …), with the host's time."""

    def __init__(self, *args, **kwargs):
        self.events = []
        super().__init__(*args, **kwargs)

    def _read(self):
        msg = super()._read()
        if "event" in msg:
            self.events.append((time.monotonic(), msg))
        return msg


def boot(n, disk, expect, opts, rundir, boot_dir, until=None, until_timeout=0.0, drives=(), expect_version=None,
         kill_on=None, kill_after=None, qemu_args=(), expect_exit=False, net="", on_line=(), expect_panic=False):
    """One boot of `disk`; returns (figures, problems). `until`: a regex that must also come on the
    serial port (a test hook's line) within until_timeout s after the first frame; `drives`: more
    raw disk images (virtio, in order: vdb, …); `expect_version`: the ik.version= the kernel's
    command line must have; `kill_on`: a regex whose line makes this SIGKILL QEMU at once (a power
    cut: nothing in the guest's caches reaches the disk) in place of `until`, once a line matching
    `kill_after` (if given) has come. `qemu_args`: more QEMU options (a watchdog device);
    `expect_exit`: the boot ends when QEMU ends on its own (a reset, with -no-reboot) within
    until_timeout s after the first frame; QMP is asked every 0.5 s meanwhile, so its events
    (figures["qmp_events"]) are read. `net`: more options of QEMU's user network (a guestfwd);
    `on_line`: (regex, function) pairs, each function called once with the match of the first
    serial line its regex finds (an operator's step on the fleet server, in time with the guest);
    `expect_panic`: the boot ends in a kernel panic before any frame (a kiosk that dies at start,
    PID 1 gone): QEMU's end is expected, the kiosk's checks are not made."""
    qmp_path = os.path.join(rundir, f"qmp{n}.sock")
    machine = MACHINES[opts.arch]
    firmware_code, firmware_vars = machine["firmware"]
    vars_copy = os.path.join(rundir, f"vars{n}.fd")
    shutil.copy(firmware_vars, vars_copy)
    ppm = os.path.join(rundir, "screen.ppm")
    argv = [
        shutil.which(machine["qemu"]), "-nodefaults", "-no-user-config",
        "-machine", machine["machine"], "-accel", opts.accel, "-cpu", opts.cpu, "-m", str(opts.memory), "-smp", "2",
        "-display", "none", "-no-reboot",
        "-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={firmware_code}",
        "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}",
        "-drive", f"file={disk},if=virtio,format=raw",
        *[a for d in drives for a in ("-drive", f"file={d},if=virtio,format=raw")],
        "-device", machine["screen"],
        "-device", "virtio-rng-pci",
        # The board's network: QEMU's user network (its DHCP hands out 10.0.2.15, the host is
        # 10.0.2.2); no option ROM, so the firmware has nothing to boot from it.
        "-netdev", "user,id=net0" + (f",{net}" if net else ""), "-device", "virtio-net-pci,netdev=net0,romfile=",
        "-chardev", "stdio,id=ser0,signal=off", "-serial", "chardev:ser0",
        "-qmp", f"unix:{qmp_path},server=on,wait=off",
        # The board's watchdog (the image loads its driver; the kiosk feeds it): a hung kiosk resets
        # the machine, which -no-reboot turns into QEMU's end.
        "-device", "i6300esb", "-action", "watchdog=reset",
        *qemu_args,
    ]
    log_path = os.path.join(boot_dir, f"boot{n}-console.log")
    logf = open(log_path, "w", encoding="utf-8", errors="replace", buffering=1)  # line by line: readable while it runs
    logf.write("# " + " ".join(shlex.quote(a) for a in argv) + "\n")
    note(f"boot {n}: expecting slot {expect}")
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "serial")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    bufs = {"serial": b"", "stderr": b""}
    ev = {}               # event name → host s since QEMU start
    state = {"cmdline": None, "marker": None, "status": False, "mounted": False, "until": None, "killed": None,
             "armed": kill_after is None, "panic": None}
    pending_calls = list(on_line)
    qmp = None
    first_frame = None
    final = None
    final_at = None
    last_dark = None      # (host s, w, h, pixels) of the last screen before the kernel's first line
    failure = None

    def handle(kind, raw):
        now = time.monotonic() - t0
        text = raw.decode("utf-8", "replace").replace("\r", "")
        # OVMF and GRUB draw with escape sequences; keep the log readable.
        text = re.sub(r"\x1b\[[0-9;?=]*[A-Za-z]", "", text)
        logf.write(f"{now:8.3f} {'!' if kind == 'stderr' else '|'} {text}\n")
        if kind == "stderr":
            print(f"qemu! {text}", flush=True)
            return
        if not opts.quiet:
            print(f"vm{n}| {text}", flush=True)
        m = KTIME_RE.match(text)
        body = m.group(2) if m else text
        if "firmware" not in ev and re.search(r"BdsDxe: (starting|loading) Boot", body):
            ev["firmware"] = now
        if "kernel" not in ev and m:
            ev["kernel"] = now
        cm = CMDLINE_RE.search(body)
        if cm and state["cmdline"] is None:
            state["cmdline"] = cm.group(1)
        if "ik-init: exec inkkiosk" in body and "exec" not in ev:
            ev["exec"] = now
        if kiosk_lines.SCREEN.search(body):
            state["status"] = True
        if re.search(r"ik-init: data: \S+ \(LABEL=inkdata\) mounted on /var/lib/inkkiosk", body):
            state["mounted"] = True
        if kill_after and not state["armed"] and re.search(kill_after, body):
            state["armed"] = True
        elif kill_on and state["armed"] and state["killed"] is None and kind == "serial" and re.search(kill_on, body):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            state["killed"] = (now, body)
        if until and state["until"] is None:
            um = re.search(until, body)
            if um:
                state["until"] = (now, um)
        if state["panic"] is None and "Kernel panic - not syncing" in body:
            state["panic"] = (now, body)
        for call in list(pending_calls):
            cm_ = re.search(call[0], body)
            if cm_:
                pending_calls.remove(call)
                call[1](cm_)
        mm = appl.MARKER_RE.search(body)
        if mm and state["marker"] is None:
            state["marker"] = mm.group(2)

    events = []

    def connect():
        nonlocal qmp
        if qmp is None:
            qmp = EventQMP(qmp_path, time.monotonic() + 10)
            events.append(qmp.events)

    def dump(path, fmt):
        connect()
        qmp.execute("screendump", filename=path, format=fmt)

    next_poll = t0 + 0.5
    next_event_poll = 0.0
    try:
        while True:
            now = time.monotonic()
            if proc.poll() is not None and "exit" not in ev:
                ev["exit"] = now - t0
                if expect_exit and qmp is not None:
                    try:  # the events QEMU sent before it went (WATCHDOG comes just before the reset)
                        qmp.sock.settimeout(1)
                        while True:
                            qmp._read()
                    except Exception:  # noqa: BLE001 - closed: all read
                        pass
            if proc.poll() is not None and not sel.get_map():
                if expect_panic:
                    pass
                elif expect_exit and first_frame is None:
                    failure = f"QEMU ended (status {proc.returncode}) before the first frame"
                elif state["killed"] is None and not expect_exit:
                    failure = f"QEMU ended (status {proc.returncode}) before the boot was done"
                break
            if expect_exit and first_frame is not None and now - t0 > first_frame + until_timeout:
                failure = f"QEMU did not end (reset) within {until_timeout:g} s after the first frame"
                break
            if expect_exit and final is not None and now >= next_event_poll:
                next_event_poll = now + 0.5
                try:
                    qmp.execute("query-status")   # reads the events that came meanwhile
                except Exception:  # noqa: BLE001 - QEMU is going
                    pass
            if kill_on and state["killed"] is None and first_frame is not None and now - t0 > first_frame + until_timeout:
                failure = f"no line matching {kill_on!r} within {until_timeout:g} s after the first frame"
                break
            if first_frame is None and now - t0 > opts.timeout:
                failure = f"no white first frame within {opts.timeout:g} s"
                try:
                    dump(os.path.join(boot_dir, f"boot{n}-timeout.png"), "png")
                except Exception as e:  # noqa: BLE001
                    note(f"screendump at timeout failed: {e}")
                break
            if final is not None and not kill_on and not expect_exit and (state["marker"] is not None or now - t0 > opts.timeout + 15):
                if not until or state["until"] is not None:
                    break
                if now - t0 > first_frame + until_timeout:
                    failure = f"no line matching {until!r} within {until_timeout:g} s after the first frame"
                    break
            for key, _ in sel.select(timeout=max(0.0, min(0.05, next_poll - now))):
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                bufs[key.data] += chunk
                while b"\n" in bufs[key.data]:
                    raw, bufs[key.data] = bufs[key.data].split(b"\n", 1)
                    handle(key.data, raw)
            now = time.monotonic()
            if now < next_poll or proc.poll() is not None:
                continue
            next_poll = now + (0.02 if "exec" in ev else 0.1 if "kernel" in ev else 0.25)
            if first_frame is None:
                try:
                    a = time.monotonic()
                    dump(ppm, "ppm")
                    w, h, px = appl.read_ppm(ppm)
                except Exception:  # noqa: BLE001 - QMP not up yet, or a dump mid-mode-set
                    continue
                if "kernel" not in ev:
                    last_dark = (a - t0, w, h, px)
                if appl.white_fraction(px) >= WHITE_ENOUGH:
                    first_frame = a - t0
                    dump(os.path.join(boot_dir, f"boot{n}-first-frame.png"), "png")
                    final_at = time.monotonic() + 1.0
                    note(f"boot {n}: first frame {first_frame:.2f} s after QEMU start")
            elif final is None and now >= final_at:
                dump(ppm, "ppm")
                w, h, px = appl.read_ppm(ppm)
                count, box = appl.non_white(w, h, px)
                final = {"non_white_pixels": count, "box": box}
    except KeyboardInterrupt:
        failure = "interrupted"
    if state["killed"] is not None or (expect_exit and proc.poll() is not None):
        qmp = None  # gone with QEMU
        proc.wait()
    vmrun.quit_qemu(proc, qmp, timeout=10)
    for kind, f in (("serial", proc.stdout), ("stderr", proc.stderr)):
        rest = bufs[kind] + (f.read() or b"")
        for raw in rest.split(b"\n"):
            if raw:
                handle(kind, raw)
    logf.close()
    if last_dark is not None:
        appl.write_png(os.path.join(boot_dir, f"boot{n}-grub.png"), *last_dark[1:])

    env = grubenv_read(disk)
    problems = []
    if failure:
        problems.append(failure)
    slot = None
    if state["cmdline"] is None:
        problems.append("the kernel's command line (Command line: …) never reached the serial port")
    else:
        sm = SLOT_RE.search(state["cmdline"])
        slot = sm.group(1) if sm else None
        if slot != expect:
            problems.append(f"booted rauc.slot={slot}, expected {expect} (command line: {state['cmdline']})")
    if expect_panic:
        if state["panic"] is None:
            problems.append("no kernel panic (the boot was to end in one)")
        if first_frame is not None:
            problems.append(f"a first frame at {first_frame:.2f} s (the kiosk was to die at start)")
    if first_frame is not None and (final is None or final["non_white_pixels"]):
        problems.append(f"the screen 1 s after the first frame is not all white: {final}")
    if not state["status"] and not expect_panic:  # a kiosk that dies at start says nothing of its screen
        problems.append("the kiosk's status line (inkkiosk: /dev/dri/…) did not reach the serial port")
    if state["marker"] != "inkkiosk" and not expect_panic:
        problems.append(f"PID 1 is {state['marker'] or 'unknown (no @@IK-APPLIANCE-KIOSK …@@ line)'}, not inkkiosk")
    if not state["mounted"]:
        problems.append("/init did not mount the data partition (LABEL=inkdata) on /var/lib/inkkiosk")
    if expect_version is not None and state["cmdline"] is not None and f"ik.version={expect_version}" not in state["cmdline"].split():
        problems.append(f"the slot's version is not {expect_version} (command line: {state['cmdline']})")
    figures = {
        "boot": n, "expected_slot": expect, "slot": slot, "cmdline": state["cmdline"],
        "firmware_s": ev.get("firmware"), "kernel_first_line_s": ev.get("kernel"), "exec_inkkiosk_s": ev.get("exec"),
        "first_frame_s": first_frame, "grubenv_after": env, "problems": problems,
        "until_s": state["until"][0] if state["until"] else None,
        "killed_s": state["killed"][0] if state["killed"] else None,
        "exit_s": ev.get("exit"), "panic_s": state["panic"][0] if state["panic"] else None,
        "qmp_events": [{"s": round(at - t0, 3), "event": m.get("event"), "data": m.get("data")} for es in events for at, m in es],
    }
    if state["until"]:
        figures["until_line"] = state["until"][1].string
    return figures, problems


def main():
    ap = arguments("Boot the disk image under OVMF: slot A, then (A unconfirmed) slot B.", "boot-test")
    ap.add_argument("--boots", type=int, default=2, choices=(1, 2), help="1: slot A only; 2 (default): then the fallback to B")
    opts = settle(ap.parse_args())

    image = os.path.realpath(opts.image)
    if not os.path.isfile(image):
        note(f"error: {image} is missing; build it with `make image` (scripts/image/build.sh)")
        return 2
    problem = missing_tools(opts)
    if problem:
        note(f"error: {problem}")
        return 2
    boot_dir = os.path.realpath(opts.boot_dir or os.path.join(os.path.dirname(image), "boot-test"))
    os.makedirs(boot_dir, exist_ok=True)
    for f in os.listdir(boot_dir):
        if f.startswith("boot") or f == "figures.json":
            os.unlink(os.path.join(boot_dir, f))

    rundir = tempfile.mkdtemp(prefix="inkkiosk-image-")
    try:
        disk = os.path.join(rundir, "disk.img")
        subprocess.run(["cp", "--sparse=always", image, disk], check=True)
        before = grubenv_read(disk)
        note(f"image {image}: {os.path.getsize(image)} bytes ({os.stat(image).st_blocks * 512} on disk); grubenv {before}")
        # never: no boot is confirmed, as if the kiosk never got through its stable period.
        grubenv_set(disk, rundir, ik_cmdline_extra=f"{test_cmdline(opts)} ik.update.confirm_after=never")
        results = []
        problems = []
        for n, expect in list(enumerate(("A", "B"), 1))[:opts.boots]:
            # The image's network comes up by DHCP (boot.d/updates.sh, udhcpc.script).
            fig, probs = boot(n, disk, expect, opts, rundir, boot_dir, until=NET_UP_RE, until_timeout=60)
            if fig["grubenv_after"].get(f"{expect}_TRY") != "1":
                probs.append(f"GRUB did not record the try: {expect}_TRY={fig['grubenv_after'].get(expect + '_TRY')} in the environment block")
            results.append(fig)
            problems += [f"boot {n}: {p}" for p in probs]
            if probs:
                break
    finally:
        shutil.rmtree(rundir, ignore_errors=True)

    print()
    print(f"image: {os.path.getsize(image) / 2**20:.0f} MiB ({os.stat(image).st_blocks * 512 / 2**20:.0f} MiB allocated, sparse)")
    print(f"{'boot':<6}{'slot':<6}{'firmware → Boot':>17}{'kernel 1st line':>17}{'exec inkkiosk':>15}{'first frame':>13}")
    for r in results:
        cells = [f"{r[k]:.2f} s" if r[k] is not None else "-" for k in ("firmware_s", "kernel_first_line_s", "exec_inkkiosk_s", "first_frame_s")]
        print(f"{r['boot']:<6}{str(r['slot']):<6}{cells[0]:>17}{cells[1]:>17}{cells[2]:>15}{cells[3]:>13}")
    print("(seconds from QEMU start, on the host's clock; TCG)")
    for name in sorted(os.listdir(boot_dir)):
        if name.endswith(".png"):
            note(f"screendump {os.path.join(boot_dir, name)}")
    return finish("image-boot-test", results, {"image_bytes": os.path.getsize(image)}, boot_dir, problems)


if __name__ == "__main__":
    sys.exit(main())
