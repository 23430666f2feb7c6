#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Boots the inkkiosk appliance (out/appliance/, from `make appliance`) in QEMU and measures how
long it takes until the kiosk's first frame is on the screen.

    python3 scripts/appliance/boot-test.py [--out out/appliance] [--timeout 60] [--pvh] ...

QEMU: software emulation (TCG) unless --accel kvm, std VGA (the guest's bochs DRM driver), the
serial port on this script's pipe, a QMP socket. The kernel command line is the appliance's
cmdline.txt with `quiet` replaced by `console=tty1 console=ttyS0 loglevel=6`: the kernel's
notice lines and the /init milestones, with the kernel's timestamps, reach the serial console
(and tty1, so that the screen has console text for the kiosk to cover); the kiosk's stderr goes
to the serial port too, through /dev/console (the last console=). Plus `ik.appliance.test=1`, the
documented test hook of scripts/appliance/init.sh (one marker line once PID 1 is the kiosk).

The screen is polled with QMP screendump every --poll seconds (default 0.02 once /init has
exec'd the kiosk, 0.1 before). The first frame on screen is the first dump that is at least 99 %
white (share of 0xff bytes; the kiosk's empty paper). The kiosk start → first frame figure is
read on the guest's own clock (CLOCK_BOOTTIME), not from the polling: /init's `exec inkkiosk
(uptime S s)` line and the kiosk's `first frame on screen N ms after main (M s after boot)`
line. The white screendump confirms it: printed beside it, on the host's clock from the exec
line's arrival to that dump (the guest's clock runs slow against the host's when TCG is starved
of CPU, so kernel timestamps are not converted to host time for it). Without the kiosk's line the
screendump's figure is the figure. Passes when that happens within --timeout seconds, when
a dump 1 s later is white in EVERY pixel (no console text, cursor or boot logo shows through),
and when PID 1 is inkkiosk (the test hook's marker: /init exec'd the kiosk, no shell is left).

Then (unless --no-pen) a pen: the initramfs QEMU boots is the appliance's with a test-only
archive appended (/ik-test/hook, a static uinput copy of the Wacom Intuos5 pen built from
scripts/appliance/test/ik-pen.c, uinput.ko); the hook waits for "go" on the serial port, which
this script sends after the checks above, and draws one stroke. Passes when the kiosk reports
the pen as a tablet and ink shows: the appliance's udev rules, hwdb, libwacom data and libinput
quirks are enough for libinput to take a pen.

The data partition: a second virtio disk, a fresh ext4 image labelled inkdata (as a board's
`mkfs.ext4 -L inkdata`), cache=directsync so the guest's syncs reach the image. Passes when
/init checked it (e2fsck) and mounted it on /var/lib/inkkiosk, and, read on the host after the
VM is gone (e2fsck -fy on a copy, then debugfs), the kiosk's journal is on it with the pen's
stroke. --no-data-disk boots without one: /init must say that ink is kept in RAM only, and the
kiosk must start all the same.

Writes BOOT_DIR (default OUT/boot-test/): before-first-frame.png (the last screen before it:
the kernel's console text), first-frame.png, final.png, ink.png, console.log (host seconds
since QEMU start in front of each serial line), figures.json.
Exit status 0 pass, 1 fail, 2 setup error. Standard library only.
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

sys.path.insert(0, HERE)
import datadisk  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))  # the harness's shared modules
import cache  # noqa: E402
import kiosk_lines  # noqa: E402

# QMP client and the PVH kernel extraction of the test VM's runner (scripts/vm/run.py).
_spec = importlib.util.spec_from_file_location("ik_vm_run", os.path.join(ROOT, "scripts", "vm", "run.py"))
vmrun = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vmrun)

KTIME_RE = re.compile(r"^\[\s*(\d+\.\d+)\]\s?(.*)$")
EXEC_UPTIME_RE = re.compile(r"ik-init: exec inkkiosk \(uptime (\d+\.\d+) s\)")
MARKER_RE = re.compile(r"@@IK-APPLIANCE-KIOSK uptime=([\d.]+) pid1=(\S+) procs=(\S*)@@")
PEN_RE = re.compile(r"@@IK-APPLIANCE-PEN drew (\d+) reports@@")

TEST_HOOK = """#!/bin/sh
# TEST ONLY: appended to the appliance's initramfs by scripts/appliance/boot-test.py; run by
# /init's ik.appliance.test=1 hook once PID 1 is the kiosk. Waits for the host's "go" on the
# serial port, plugs a uinput pen in, and draws one stroke with it once the host says "draw".
read -r go </dev/ttyS0
insmod /ik-test/uinput.ko || echo "ik-test: insmod uinput failed"
exec /ik-test/ik-pen </dev/ttyS0
"""


def build_test_archive(rundir, initrd, extra=None):
    """initrd + a test-only cpio archive with /ik-test/{hook,ik-pen,uinput.ko} and the `extra`
    files ({path in the image: bytes}; they replace the image's own); returns its path."""
    import glob
    found = glob.glob(cache.path("kernel", "lib", "modules", "*", "kernel", "drivers", "input", "misc", "uinput.ko*"))
    if not found:
        raise SystemExit("boot-test: no uinput.ko in the kernel cache (scripts/vm/fetch-kernel.sh)")
    cc = shutil.which("gcc") or shutil.which("cc")
    if not cc:
        raise SystemExit("boot-test: gcc is needed for the test pen (apt-get install gcc libc6-dev), or pass --no-pen")
    stage = os.path.join(rundir, "test-archive")
    os.makedirs(os.path.join(stage, "ik-test"))
    subprocess.run([cc, "-static", "-O2", "-o", os.path.join(stage, "ik-test", "ik-pen"),
                    os.path.join(HERE, "test", "ik-pen.c"), "-lm"], check=True)
    ko = found[0]
    dst = os.path.join(stage, "ik-test", "uinput.ko")
    if ko.endswith((".xz", ".zst", ".gz")):
        tool = {"xz": "xz", "zst": "zstd", "gz": "gzip"}[ko.rsplit(".", 1)[1]]
        with open(dst, "wb") as f:
            subprocess.run([tool, "-dc", ko], stdout=f, check=True)
    else:
        shutil.copy(ko, dst)
    for path, content in (extra or {}).items():
        dst = os.path.join(stage, path.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(content)
    hook = os.path.join(stage, "ik-test", "hook")
    with open(hook, "w") as f:
        f.write(TEST_HOOK)
    os.chmod(hook, 0o755)
    archive = os.path.join(rundir, "test.cpio.gz")
    subprocess.run(f"cd {shlex.quote(stage)} && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1 > {shlex.quote(archive)}",
                   shell=True, check=True)
    combined = os.path.join(rundir, "initramfs+test.cpio.gz")
    with open(combined, "wb") as out:
        for part in (initrd, archive):
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)
    return combined
WHITE_ENOUGH = 0.99
# The lean appliance's targets: the image compressed, and in the emulated guest the kiosk's
# start → first frame and the kernel's start → first frame (printed against these). What fails
# the test is the size guard: an image over 20 MB has Foundation/ICU (39 MB) or the like back.
INITRAMFS_LIMIT_MB = 15
INITRAMFS_GUARD_MB = 20
KIOSK_LIMIT_S = 0.3
KERNEL_LIMIT_S = 3.0


def note(msg):
    print(f"boot-test: {msg}", flush=True)


def read_ppm(path):
    """(width, height, RGB bytes) of a binary PPM as QEMU's screendump writes it."""
    data = open(path, "rb").read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    if not m:
        raise ValueError(f"{path}: not a binary PPM")
    w, h = int(m.group(1)), int(m.group(2))
    pixels = data[m.end():m.end() + w * h * 3]
    if len(pixels) != w * h * 3:
        raise ValueError(f"{path}: short pixel data")
    return w, h, pixels


def write_png(path, w, h, pixels):
    """RGB bytes as an 8-bit RGB PNG (to keep the last screen before the kiosk's first frame)."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + pixels[y * w * 3:(y + 1) * w * 3] for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def white_fraction(pixels):
    """Share of bytes that are 0xff: 1.0 exactly when every pixel is white."""
    return pixels.count(b"\xff") / len(pixels) if pixels else 0.0


def non_white(w, h, pixels):
    """Number of pixels that are not pure white, and their bounding box (x0, y0, x1, y1)."""
    if pixels.count(b"\xff") == len(pixels):
        return 0, None
    table = bytes([0 if i == 0xFF else 1 for i in range(256)])
    t = pixels.translate(table)
    r, g, b = (int.from_bytes(t[i::3], "little") for i in range(3))
    mask = (r | g | b).to_bytes(w * h, "little")
    count = mask.count(1)
    rows = [y for y in range(h) if mask.find(1, y * w, (y + 1) * w) >= 0]
    cols = set()
    for y in rows[:: max(1, len(rows) // 50)]:
        row = mask[y * w:(y + 1) * w]
        cols.add(row.find(1))
        cols.add(row.rfind(1))
    return count, (min(cols), rows[0], max(cols), rows[-1])


def main():
    ap = argparse.ArgumentParser(description="Boot the inkkiosk appliance in QEMU; time kernel → udev → kiosk → first frame.")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "appliance"),
                    help="directory with vmlinuz, initramfs.cpio.zst, cmdline.txt (default out/appliance)")
    ap.add_argument("--boot-dir", help="where screendumps, console log and figures go (default OUT/boot-test)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds from QEMU start allowed until the first frame (default 60)")
    ap.add_argument("--poll", type=float, default=0.02,
                    help="screendump interval in seconds once /init has exec'd the kiosk (default 0.02; 0.1 before, "
                         "so that the dumps do not slow the boot)")
    ap.add_argument("--accel", default="tcg", help="QEMU accelerator: tcg (default) or kvm")
    ap.add_argument("--memory", type=int, default=512, help="guest memory in MB (default 512)")
    ap.add_argument("--smp", type=int, default=2, help="guest CPUs (default 2)")
    ap.add_argument("--resolution", default="1280x800", help="preferred mode of the virtual monitor (default 1280x800)")
    ap.add_argument("--pvh", action="store_true",
                    help="boot the uncompressed ELF kernel inside vmlinuz (PVH entry), skipping the bzImage "
                         "self-decompression that takes seconds under TCG; default: vmlinuz as a board boots it")
    ap.add_argument("--cpu", default="qemu64",
                    help="QEMU CPU model (default qemu64, as the test VM; `max` adds RDRAND, which seeds the "
                         "kernel's random generator at once, as on real x86 boards)")
    ap.add_argument("--loglevel", type=int, default=6,
                    help="kernel console log level (default 6: notices, the /init milestones; 7 adds the "
                         "kernel's info lines, e.g. the initramfs unpacking and DRM)")
    ap.add_argument("--append", default="", help="extra kernel command line parameters")
    ap.add_argument("--qemu", action="append", default=[], metavar="ARG", help="extra QEMU argument (repeatable)")
    ap.add_argument("--no-pen", action="store_true", help="boot the appliance image alone: no test archive, no pen stroke")
    ap.add_argument("--quiet", action="store_true", help="do not stream the serial console")
    ap.add_argument("--no-hwrng", action="store_true",
                    help="no virtio-rng (the stand-in for a board's hardware RNG): the kernel's CRNG is then "
                         "initialised only by its own jitter entropy, which the kiosk's start waits for")
    ap.add_argument("--no-data-disk", action="store_true",
                    help="no data partition: /init must fall back to RAM (and say so), the kiosk must start")
    opts = ap.parse_args()

    out = os.path.realpath(opts.out)
    vmlinuz = os.path.join(out, "vmlinuz")
    initrd = os.path.join(out, "initramfs.cpio.zst")
    for f in (vmlinuz, initrd):
        if not os.path.isfile(f):
            note(f"error: {f} is missing; build it with `make appliance` (scripts/appliance/build.sh)")
            return 2
    m = re.fullmatch(r"(\d+)x(\d+)", opts.resolution)
    if not m:
        ap.error("--resolution wants WIDTHxHEIGHT")
    xres, yres = int(m.group(1)), int(m.group(2))
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        note("error: qemu-system-x86_64 is missing (apt-get install qemu-system-x86)")
        return 2

    kernel = vmlinuz
    if opts.pvh:
        # pvh_kernel() caches vmlinux-<version> next to a vmlinuz-<version> with its config-<version>;
        # use the copy in the kernel cache the appliance was built from.
        boot = cache.path("kernel", "boot")
        cands = [os.path.join(boot, f) for f in os.listdir(boot) if f.startswith("vmlinuz-")] if os.path.isdir(boot) else []
        same = [c for c in cands if open(c, "rb").read() == open(vmlinuz, "rb").read()]
        kernel = vmrun.pvh_kernel(same[0]) if same else vmlinuz
        if not os.path.basename(kernel).startswith("vmlinux-"):
            note("warning: no PVH kernel available; booting vmlinuz")
            kernel = vmlinuz

    boot_dir = os.path.realpath(opts.boot_dir or os.path.join(out, "boot-test"))
    os.makedirs(boot_dir, exist_ok=True)
    for f in ("before-first-frame.png", "first-frame.png", "final.png", "ink.png", "timeout.png", "figures.json"):
        try:
            os.unlink(os.path.join(boot_dir, f))
        except FileNotFoundError:
            pass

    base = "quiet panic=5"
    try:
        base = open(os.path.join(out, "cmdline.txt")).read().split("#")[0].strip() or base
    except OSError:
        pass
    words = [w for w in base.split() if w != "quiet" and not w.startswith(("console=", "loglevel="))]
    # The kernel log goes to tty1 as well, so there IS console text for the kiosk to cover; the
    # last console= (ttyS0) is /dev/console, where /init sends the kiosk's stderr.
    append = " ".join(["console=tty1", "console=ttyS0", f"loglevel={opts.loglevel}", *words, "ik.appliance.test=1", opts.append]).strip()

    rundir = tempfile.mkdtemp(prefix="inkkiosk-appliance-")
    qmp_path = os.path.join(rundir, "qmp.sock")
    boot_initrd = initrd if opts.no_pen else build_test_archive(rundir, initrd)
    ppm = os.path.join(rundir, "screen.ppm")
    data_img = None
    data_args = []
    if not opts.no_data_disk:
        data_img = os.path.join(rundir, "data.img")
        datadisk.make_image(data_img)
        data_args = ["-drive", f"file={data_img},if=virtio,format=raw,cache=directsync"]
    argv = [
        qemu, "-nodefaults", "-no-user-config",
        "-machine", "pc", "-accel", opts.accel, "-cpu", opts.cpu,
        "-m", str(opts.memory), "-smp", str(opts.smp),
        "-display", "none", "-no-reboot",
        "-kernel", kernel, "-initrd", boot_initrd, "-append", append,
        "-device", f"VGA,xres={xres},yres={yres},vgamem_mb=64",
        "-chardev", "stdio,id=ser0,signal=off", "-serial", "chardev:ser0",
        "-qmp", f"unix:{qmp_path},server=on,wait=off",
        *data_args,
        # The board's hardware RNG (a SoC's hwrng; here virtio-rng, the appliance's virtio_rng
        # module): the kernel credits it at once, so getrandom() at the kiosk's start does not wait.
        *([] if opts.no_hwrng else ["-device", "virtio-rng-pci"]),
        *opts.qemu,
    ]
    log_path = os.path.join(boot_dir, "console.log")
    logf = open(log_path, "w", encoding="utf-8", errors="replace")
    logf.write("# " + " ".join(shlex.quote(a) for a in argv) + "\n")

    note(f"booting {os.path.relpath(kernel, ROOT) if kernel.startswith(ROOT) else kernel} + "
         f"{os.path.relpath(initrd, ROOT)}{'' if opts.no_pen else ' + test archive (pen)'} ({opts.accel}, cpu {opts.cpu}, {opts.memory} MB, {opts.smp} CPUs)")
    note(f"kernel command line: {append}")
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "serial")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    bufs = {"serial": b"", "stderr": b""}

    lines = []            # (host s since QEMU start, kernel timestamp or None, text)
    kernel0 = None        # host time (s since QEMU start) of the kernel's t = 0, best estimate
    first_serial = None
    marker = None
    qmp = None
    first_frame = None    # host s since QEMU start
    first_frame_white = None
    dumps = 0
    dump_cost = []
    failure = None
    final_check_at = None
    final = None
    before = None         # the last screen before the first frame: (host s, white share, w, h, pixels)
    pen_go = None         # host s when "go" was sent to the test hook
    pen_done = None       # host s of the pen's marker
    pen_added = False     # the kiosk logged the test pen as added
    pen_draw = None       # host s when "draw" was sent
    ink = None
    exec_seen = False     # /init's exec line came: from then on the screen is polled every --poll s

    def handle(kind, raw):
        nonlocal kernel0, first_serial, marker, pen_done, pen_added, exec_seen
        now = time.monotonic() - t0
        text = raw.decode("utf-8", "replace").replace("\r", "")
        if kind == "stderr":
            logf.write(f"{now:8.3f} ! {text}\n")
            if not opts.quiet:
                print(f"qemu! {text}", flush=True)
            return
        logf.write(f"{now:8.3f} | {text}\n")
        logf.flush()
        if not opts.quiet:
            print(f"vm| {text}", flush=True)
        if first_serial is None and text.strip():
            first_serial = now
        m = KTIME_RE.match(text)
        kts = float(m.group(1)) if m else None
        if kts is not None:
            est = now - kts  # the line left the guest after it was logged: an upper bound of t = 0
            kernel0 = est if kernel0 is None else min(kernel0, est)
        lines.append((now, kts, m.group(2) if m else text))
        mm = MARKER_RE.search(text)
        if mm and marker is None:
            marker = {"uptime": float(mm.group(1)), "pid1": mm.group(2), "procs": mm.group(3).split(","), "host": now}
        if PEN_RE.search(text) and pen_done is None:
            pen_done = now
        if kiosk_lines.PEN_ADDED.search(text):
            pen_added = True
        if "ik-init: exec inkkiosk" in text:
            exec_seen = True

    def dump(path, fmt):
        nonlocal qmp
        if qmp is None:
            qmp = vmrun.QMP(qmp_path, time.monotonic() + 10)
        qmp.execute("screendump", filename=path, format=fmt)

    next_poll = t0 + 0.2
    next_ink_look = 0.0
    try:
        while True:
            now = time.monotonic()
            if proc.poll() is not None and not sel.get_map():
                failure = failure or f"QEMU ended (status {proc.returncode}) before the test was done"
                break
            if first_frame is None and now - t0 > opts.timeout:
                failure = f"no white first frame within {opts.timeout:g} s"
                try:
                    dump(os.path.join(boot_dir, "timeout.png"), "png")
                    note(f"screen at timeout: {os.path.join(boot_dir, 'timeout.png')}")
                except Exception as e:  # noqa: BLE001
                    note(f"screendump at timeout failed: {e}")
                break
            if final is not None and (marker is not None or now - t0 > opts.timeout + 10):
                if opts.no_pen or ink is not None:
                    break
                if pen_go is None:
                    proc.stdin.write(b"go\n")
                    proc.stdin.flush()
                    pen_go = now - t0
                elif pen_draw is None and pen_added:
                    # The kiosk has logged the pen as added: only now may it draw.
                    proc.stdin.write(b"draw\n")
                    proc.stdin.flush()
                    pen_draw = now - t0
                elif pen_done is not None and now >= next_ink_look:
                    # The screen state is the condition: look until the ink shows (15 s at most).
                    dump(ppm, "ppm")
                    w, h, px = read_ppm(ppm)
                    count, box = non_white(w, h, px)
                    next_ink_look = now + 0.25
                    if count >= 300 or now - t0 - pen_done > 15:
                        ink = {"non_white_pixels": count, "box": box, "seconds_after_pen": round(now - t0 - pen_done, 2)}
                        dump(os.path.join(boot_dir, "ink.png"), "png")
                elif now - t0 > pen_go + 30:
                    failure = "the test pen never reported (no @@IK-APPLIANCE-PEN …@@ within 30 s)"
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
            next_poll = now + (opts.poll if exec_seen or first_frame is not None else max(opts.poll, 0.1))
            if first_frame is None:
                try:
                    a = time.monotonic()
                    dump(ppm, "ppm")
                    dump_cost.append(time.monotonic() - a)
                    dumps += 1
                    w, h, px = read_ppm(ppm)
                except Exception as e:  # noqa: BLE001 - QMP not up yet, or a dump mid-mode-set
                    if time.monotonic() - t0 > 15 and dumps == 0:
                        note(f"screendump failing: {e}")
                    continue
                frac = white_fraction(px)
                if frac < WHITE_ENOUGH:
                    before = (time.monotonic() - t0, frac, w, h, px)
                if frac >= WHITE_ENOUGH:
                    first_frame = a - t0  # the dump was requested then: the frame was there already
                    first_frame_white = frac
                    shutil.copy(ppm, os.path.join(rundir, "first.ppm"))
                    dump(os.path.join(boot_dir, "first-frame.png"), "png")
                    final_check_at = time.monotonic() + 1.0
                    note(f"first frame: {first_frame:.2f} s after QEMU start ({frac * 100:.2f} % white)")
            elif final is None and now >= final_check_at:
                dump(ppm, "ppm")
                w, h, px = read_ppm(ppm)
                count, box = non_white(w, h, px)
                final = {"width": w, "height": h, "non_white_pixels": count, "box": box}
                dump(os.path.join(boot_dir, "final.png"), "png")
    except KeyboardInterrupt:
        failure = "interrupted"

    vmrun.quit_qemu(proc, qmp, timeout=5)
    # drain what is left on the pipes
    for kind, f in (("serial", proc.stdout), ("stderr", proc.stderr)):
        rest = bufs[kind] + (f.read() or b"")
        for raw in rest.split(b"\n"):
            if raw:
                handle(kind, raw)
    logf.close()

    # The data partition, read on the host now that the VM is gone.
    data = None
    if data_img is not None:
        data = {}
        try:
            status, output, files = datadisk.snapshot(data_img, keep_dir=os.path.join(boot_dir, "data"))
            data["fsck_status"], data["fsck"] = status, output.splitlines()
            jm = None
            for _, _, text in lines:
                jm = jm or kiosk_lines.JOURNAL_RESTORED.search(text)
            if jm and jm["path"].startswith(datadisk.MOUNT + "/"):
                data["journal"] = jm["path"]
                path = os.path.join(files, jm["path"][len(datadisk.MOUNT) + 1:])
                if os.path.isfile(path):
                    ops, problem = datadisk.read_journal(path)
                    data["journal_strokes"], data["journal_problem"] = datadisk.strokes_in(ops), problem
        except Exception as e:  # noqa: BLE001 - reported as a failure below
            data["error"] = str(e)
    shutil.rmtree(rundir, ignore_errors=True)

    if before is not None:
        write_png(os.path.join(boot_dir, "before-first-frame.png"), *before[2:])

    # --- figures ------------------------------------------------------------------------------
    def find(pattern):
        for host, kts, text in lines:
            if re.search(pattern, text):
                return host, kts
        return None, None

    def guest(host, kts):  # kernel time of a line: its own timestamp, else host time - kernel0
        if kts is not None:
            return kts
        if host is not None and kernel0 is not None:
            return host - kernel0
        return None

    events = [("QEMU started", 0.0, None)]
    if kernel0 is not None:
        events.append(("kernel started (t = 0 of its clock)", kernel0, 0.0))
    for label, pattern in [("first kernel line on the serial console", r"Linux version"),
                           ("/init started", r"ik-init: started"),
                           ("modules loaded", r"ik-init: modules loaded"),
                           ("udev started (coldplug triggered)", r"ik-init: udev started"),
                           ("udev settled", r"ik-init: udev settled"),
                           ("data partition checked and mounted", r"ik-init: data: .*mounted on"),
                           ("inkkiosk exec'd (process start)", r"ik-init: exec inkkiosk"),
                           ("inkkiosk took the screen (its log line)", kiosk_lines.SCREEN)]:
        host, kts = find(pattern)
        if host is not None:
            events.append((label, host, guest(host, kts)))
    if marker:
        events.append(("test hook saw PID 1 = " + marker["pid1"], marker["host"], marker["uptime"]))
    if first_frame is not None:
        events.append(("first frame on screen (white paper)", first_frame, guest(first_frame, None)))

    print()
    print(f"{'event':<44} {'host s':>8} {'kernel s':>9}")
    for label, host, g in sorted(events, key=lambda e: e[1]):
        print(f"{label:<44} {host:8.2f} {'' if g is None else f'{g:9.2f}'}")
    ex_host, ex_k = find(r"ik-init: exec inkkiosk")
    # kiosk start → first frame on the guest's CLOCK_BOOTTIME: /proc/uptime at /init's exec, and
    # the kiosk's main (its first-frame line says when, after boot) plus the milliseconds it counts.
    said = None
    exec_up = [float(m.group(1)) for m in (EXEC_UPTIME_RE.search(t) for _, _, t in lines) if m]
    # Only the PID 1 form says when main ran ("… ms after main (S s after boot)").
    kiosk_first = [m for m in (kiosk_lines.FIRST_FRAME.search(t) for _, _, t in lines) if m and m["boot_s"]]
    if exec_up and kiosk_first:
        said = float(kiosk_first[0]["boot_s"]) + int(kiosk_first[0]["ms"]) / 1000 - exec_up[0]
    figures = {
        "kernel": os.path.basename(kernel), "accel": opts.accel, "cpu": opts.cpu, "cmdline": append,
        "events": [{"event": l, "host_s": round(h, 3), "kernel_s": None if g is None else round(g, 3)} for l, h, g in events],
        "screendumps": dumps, "screendump_ms_median": round(sorted(dump_cost)[len(dump_cost) // 2] * 1000, 1) if dump_cost else None,
        "final": final, "marker": marker,
        "before_first_frame": None if before is None else {"host_s": round(before[0], 3), "white_share": round(before[1], 4)},
    }
    print()
    if first_frame is not None:
        print(f"QEMU start      → first frame: {first_frame:6.2f} s")
        if kernel0 is not None:
            print(f"kernel start    → first frame: {first_frame - kernel0:6.2f} s   (QEMU start → kernel start {kernel0:.2f} s: "
                  "firmware, kernel load" + (", bzImage decompression" if kernel == vmlinuz else "") + ")")
        # The screendump's figure on the host's clock: from the exec line's arrival (the guest's
        # clock can run slow against the host's under a loaded TCG, so kernel timestamps do not
        # convert to host time).
        dumped = None
        if ex_host is not None:
            dumped = first_frame - ex_host
            figures["inkkiosk_to_first_frame_screendump_s"] = round(dumped, 3)
        if said is not None:
            # The guest's own clock; the screendump (polled) confirms that the frame was on screen.
            print(f"inkkiosk start  → first frame: {said:6.3f} s   (the guest's clock: /init's exec line → the kiosk's "
                  f"first-frame line; on the host's clock, the exec line's arrival → the first white screendump: {'-' if dumped is None else f'{dumped:.3f} s'})")
            figures["inkkiosk_to_first_frame_s"] = round(said, 3)
        elif dumped is not None:
            print(f"inkkiosk start  → first frame: {dumped:6.3f} s   (the exec line's arrival → the first white screendump; "
                  "the kiosk's first-frame line is missing)")
            figures["inkkiosk_to_first_frame_s"] = round(dumped, 3)
        figures["qemu_to_first_frame_s"] = round(first_frame, 3)
        if kernel0 is not None:
            figures["kernel_to_first_frame_s"] = round(first_frame - kernel0, 3)
        print(f"(first frame on screen = first of {dumps} screendumps, one every {opts.poll:g} s after the exec, that was "
              f"≥ {WHITE_ENOUGH * 100:g} % white; a dump takes {figures['screendump_ms_median']} ms)")
        if kiosk_first:
            print(f"the kiosk's own line: {kiosk_first[0].string[kiosk_first[0].start():]}")

    # --- targets (the lean appliance's issue) -------------------------------------------------------
    # Printed against their limits; only the size guard fails the test. Times are never asserted
    # (DESIGN: speed is measured, not asserted with a timer): an emulated guest on a shared
    # machine can be several times slower than on a quiet one. The 15 MB target is met by xz
    # (scripts/appliance/README.md) at the cost of slower unpacking, so the image is zstd.
    initrd_bytes = os.path.getsize(initrd)
    figures["initramfs_bytes"] = initrd_bytes
    figures["targets"] = {}
    print()
    print(f"{'target':<44} {'value':>9} {'limit':>9}")
    for name, value, limit, unit in [
            ("initramfs (compressed)", initrd_bytes / 1e6, INITRAMFS_LIMIT_MB, "MB"),
            ("inkkiosk start → first frame", figures.get("inkkiosk_to_first_frame_s"), KIOSK_LIMIT_S, "s"),
            ("kernel start → first frame", figures.get("kernel_to_first_frame_s"), KERNEL_LIMIT_S, "s")]:
        ok = value is not None and value <= limit
        figures["targets"][name] = {"value": None if value is None else round(value, 3), "limit": limit, "unit": unit, "met": ok}
        shown = "-" if value is None else f"{value:.2f}"
        print(f"{name:<44} {shown:>7} {unit:<2}{f'≤ {limit:g} {unit}':>9}  {'met' if ok else 'OVER'}")

    # --- verdict ------------------------------------------------------------------------------
    problems = []
    if initrd_bytes > INITRAMFS_GUARD_MB * 1e6:
        problems.append(f"{initrd} is {initrd_bytes} bytes, over the {INITRAMFS_GUARD_MB:g} MB guard: did Foundation/ICU "
                        "come back? (manifest.txt lists every file)")
    if failure:
        problems.append(failure)
    if first_frame is not None:
        if final is None:
            problems.append("no second screendump after the first frame")
        elif final["non_white_pixels"]:
            problems.append(f"{final['non_white_pixels']} pixels are not white 1 s after the first frame "
                            f"(box {final['box']}): console text or cursor shows through")
    if marker is None:
        problems.append("the test hook's marker (@@IK-APPLIANCE-KIOSK …@@) never came: did /init exec inkkiosk?")
    elif marker["pid1"] != "inkkiosk":
        problems.append(f"PID 1 is {marker['pid1']}, not inkkiosk")
    if not opts.no_pen and not failure:
        if ink is None:
            problems.append("no screendump after the pen stroke")
        elif ink["non_white_pixels"] < 300:
            problems.append(f"only {ink['non_white_pixels']} non-white pixels after the pen stroke: no ink")
        if find(kiosk_lines.PEN_ADDED)[0] is None:
            problems.append("the kiosk did not report the test pen as a tablet (inkkiosk: input device N: … Pen (tablet))")
    figures["pen"] = None if opts.no_pen else {"go_host_s": pen_go, "done_host_s": pen_done, "ink": ink}
    if find(kiosk_lines.SCREEN)[0] is None:
        problems.append("inkkiosk's status line (inkkiosk: /dev/dri/…) did not reach the serial console")
    mounted = find(r"ik-init: data: \S+ \(LABEL=inkdata\) mounted on /var/lib/inkkiosk")[0] is not None
    in_ram = find(r"ik-init: data: .*kept in RAM only")[0] is not None
    checked = [t for _, _, t in lines if re.search(r"ik-init: data: e2fsck -p \S+: exit \d+", t)]
    figures["data"] = {"mounted": mounted, "in_ram": in_ram, "check": checked[-1:] or None, "host": data}
    if data_img is None:
        if not in_ram or mounted:
            problems.append("booted without a data disk, /init did not say that ink is kept in RAM only (ik-init: data: …)")
    else:
        if not checked:
            problems.append("/init did not check the data partition (no ik-init: data: e2fsck -p … line)")
        elif not re.search(r"exit [01]$", checked[-1]):
            problems.append(f"the data partition's check at boot was not clean: {checked[-1]}")
        if not mounted:
            problems.append("/init did not mount LABEL=inkdata on /var/lib/inkkiosk (no ik-init: data: … mounted line)")
        if data.get("error"):
            problems.append(f"reading the data image on the host: {data['error']}")
        elif data.get("fsck_status", 8) >= 4:
            problems.append(f"e2fsck -fy of the data image after the VM: exit {data['fsck_status']} ({data.get('fsck')})")
        elif "journal" not in data:
            problems.append("the kiosk's journal is not on the data partition (its log names none under /var/lib/inkkiosk)")
        elif "journal_strokes" not in data:
            problems.append(f"{data['journal']} is not on the data image (read on the host after the VM)")
        elif data.get("journal_problem"):
            problems.append(f"{data['journal']} on the data image: {data['journal_problem']}")
        elif not opts.no_pen and data["journal_strokes"] < 1:
            problems.append(f"{data['journal']} on the data image holds no stroke, though the pen drew one")
    figures["pass"] = not problems
    figures["problems"] = problems
    with open(os.path.join(boot_dir, "figures.json"), "w") as f:
        json.dump(figures, f, indent=2)
        f.write("\n")
    print()
    if marker:
        note(f"processes when PID 1 became the kiosk: {', '.join(marker['procs'])}")
    if final:
        note(f"screen {final['width']}x{final['height']} 1 s after the first frame: {final['non_white_pixels']} non-white pixels")
    if ink:
        note(f"after the test pen's stroke: {ink['non_white_pixels']} non-white pixels in {ink['box']}")
    if figures["data"]["check"]:
        note(f"data partition: {figures['data']['check'][0]}; mounted: {mounted}")
    if data and "journal_strokes" in data:
        note(f"on the data image after the VM (e2fsck -fy exit {data['fsck_status']}): {data['journal']} "
             f"with {data['journal_strokes']} strokes")
    if before is not None:
        note(f"the last screen before it ({before[0]:.2f} s, {before[1] * 100:.1f} % white bytes): "
             f"{os.path.join(boot_dir, 'before-first-frame.png')}")
    for name in ("first-frame.png", "final.png", "ink.png", "timeout.png"):
        p = os.path.join(boot_dir, name)
        if os.path.exists(p):
            note(f"screendump {p}")
    note(f"console log {log_path}")
    if problems:
        for p in problems:
            note(f"FAIL: {p}")
        return 1
    note("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
