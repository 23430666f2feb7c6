#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The arm64 appliance (out/appliance-arm64/, `scripts/appliance/build.sh --arch arm64`) on
QEMU's `virt` machine: qemu-system-aarch64 (TCG), virtio-gpu-pci as the screen (the guest's
virtio_gpu DRM driver: atomic, a cursor plane, dirty-FB), PL011 serial (console=ttyAMA0),
virtio disks, virtio-rng; QMP screendumps are what the screen shows.

    python3 scripts/appliance/boot-test-arm64.py [--out out/appliance-arm64] [--dir DIR] [--quiet]

Three boots, each waiting on conditions (serial lines, the screen's pixels, the data disk read on
the host), never on the clock; timeouts are generous bounds only:

  boot 1 (the image's own config, a fresh data disk):
    first frame   the first screendump that is >= 99 % white; 1 s later every pixel white
    (b) hover     the uinput pen (a test archive: scripts/appliance/test/ik-pen.c, cross-compiled
                  static) in proximity, tip up, near the tablet: the preview dot shows; then far
                  away: the dot is paler (alpha from the darkest pixel, #0d1759 over white); then
                  proximity out: the screen is white again
    (a) stroke    a straight stroke with the pressure ramping 0.05 -> 1.0 and the pen tilted
                  (30°, -20°): the ink's height across the stroke grows with the pressure
    (d) cut       once the stroke is on the data disk (the host copies the image, e2fsck -fy,
                  debugfs, parses the journal), SIGKILL of QEMU: a power cut
  boot 2 (the same data disk): the kiosk restores its journal and the screen shows the same ink
                  as just before the cut (pixels compared)
  boot 3 (config/signature.toml with the API on 0.0.0.0:7300 and a bearer token; virtio-net,
         QEMU user networking with hostfwd from 127.0.0.1:PORT; the test hook sets the address):
    (c) API       POST /signatures, the pen signs, a tap on Accept, GET ?wait= until accepted, the
                  four files fetched over the API and checked (PNG decoded with ink in it, SVG and
                  InkML parsed, the JSON's SHA-256 of each)

Writes DIR (default OUT/boot-test/): screendumps (PNG), boot-N.log (serial console with host
seconds), signature/ (the capture's files), figures.json. Prints one line per check and ends with
`arm64-vm: N passed, N failed`. Exit status 0 pass, 1 a check failed, 2 setup error.
Standard library only (and e2fsprogs for the data disk, aarch64-linux-gnu-gcc for the pen).
"""

import argparse
import glob
import hashlib
import importlib.util
import json
import os
import re
import selectors
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import datadisk  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))  # the harness's shared modules
import cache  # noqa: E402
import kiosk_lines  # noqa: E402

_spec = importlib.util.spec_from_file_location("ik_boot_test", os.path.join(HERE, "boot-test.py"))
boottest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(boottest)
vmrun = boottest.vmrun
read_ppm, write_png, non_white, white_fraction = boottest.read_ppm, boottest.write_png, boottest.non_white, boottest.white_fraction

API_PORT = 7300
TOKEN = "arm64-vm-test-token-7f3c9a"
INK = (0x0d, 0x17, 0x59)          # the pen's colour in config/inkkiosk.toml and signature.toml

KTIME_RE = re.compile(r"^\[\s*(\d+\.\d+)\]\s?(.*)$")
MARKER_RE = re.compile(r"@@IK-APPLIANCE-KIOSK uptime=([\d.]+) pid1=(\S+) procs=(\S*)@@")
PANIC_RE = re.compile(r"Kernel panic")
DRM_RE = re.compile(r"@@IK-DRM driver=(\S*)@@")
CAGE_RE = re.compile(r"@@IK-CAGE (\S+) (\d+) (.*?)@@")
# The test hook's probes of the PDF helper's cage, in its order (the first seven: the cage's first proof).
CAGE_PROBES = ["read-outside", "write-file", "socket", "exec", "signal-parent", "map-executable", "allocate",
               "fcntl-setsig", "fcntl-setown", "fcntl-async", "ioctl-async", "file-size", "grow-buffer", "shrink-buffer",
               "user", "no-landlock"]
CURSOR_RE = re.compile(r"@@IK-CURSOR (?:none|error|fb=0|fb=(\d+) x=(-?\d+) y=(-?\d+) w=(\d+) h=(\d+) maxa=(\d+) n=(\d+) hex=([0-9a-f]*))@@")

# The test hook (/ik-test/hook, run by /init's ik.appliance.test=1 loop once PID 1 is the kiosk):
# the network when the archive has its modules, then the pen once the host says "go".
TEST_HOOK = """#!/bin/sh
# TEST ONLY (scripts/appliance/boot-test-arm64.py): appended to the arm64 appliance's initramfs.
bb=/usr/bin/busybox
# card0's DRM driver (its device is virtio-gpu's virtio device under the PCI function).
drv=
for d in /sys/class/drm/card0/device/driver /sys/class/drm/card0/device/virtio*/driver; do
    [ -e "$d" ] && drv=$($bb basename "$($bb readlink "$d")")
done
echo "@@IK-DRM driver=$drv@@"
# The PDF helper's cage on this kernel: each probe tries one forbidden thing (159: killed by SIGSYS).
for p in read-outside write-file socket exec signal-parent map-executable allocate \
         fcntl-setsig fcntl-setown fcntl-async ioctl-async file-size grow-buffer shrink-buffer user no-landlock; do
    out=$(/usr/bin/inkkiosk pdf-helper --try $p 2>&1)
    st=$?
    echo "@@IK-CAGE $p $st $(echo "$out" | $bb tr '\n' ' ')@@"
done
if [ -e /ik-test/virtio_net.ko ]; then
    for m in failover net_failover virtio_net; do $bb insmod /ik-test/$m.ko || echo "ik-test: insmod $m failed"; done
    n=0
    while [ ! -e /sys/class/net/eth0 ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
    $bb ip link set lo up
    $bb ip link set eth0 up
    $bb ip addr add 10.0.2.15/24 dev eth0
    echo "@@IK-NET $($bb ip -4 addr show eth0 | $bb grep -o 'inet [0-9./]*')@@"
fi
read -r go </dev/ttyAMA0
$bb insmod /ik-test/uinput.ko || echo "ik-test: insmod uinput failed"
exec /ik-test/ik-pen </dev/ttyAMA0
"""


def say(msg):
    print(f"arm64-vm: {msg}", flush=True)


class SetupError(Exception):
    pass


class Failure(Exception):
    pass


# --- the image and its test archive ------------------------------------------------------------

def kernel_modules(vmlinuz):
    """The module tree of the kernel package out's vmlinuz came from (the arm64 kernel cache)."""
    mine = open(vmlinuz, "rb").read()
    for boot in glob.glob(cache.path("kernel-arm64", "boot", "vmlinuz-*")):
        if open(boot, "rb").read() == mine:
            kver = os.path.basename(boot)[len("vmlinuz-"):]
            for d in ("usr/lib/modules", "lib/modules"):
                p = cache.path("kernel-arm64", d, kver)
                if os.path.isdir(p):
                    return p
    raise SetupError(f"the kernel of {vmlinuz} is not in {cache.path('kernel-arm64')} (scripts/vm/fetch-kernel.sh --arch arm64)")


def unpack_module(moddir, name, dst):
    found = [p for p in glob.glob(os.path.join(moddir, "kernel", "**", "*.ko*"), recursive=True)
             if re.sub(r"\.ko(\.\w+)?$", "", os.path.basename(p)).replace("-", "_") == name]
    if not found:
        raise SetupError(f"no {name}.ko in {moddir}")
    ko = found[0]
    with open(dst, "wb") as f:
        if ko.endswith((".xz", ".zst", ".gz")):
            tool = {"xz": "xz", "zst": "zstd", "gz": "gzip"}[ko.rsplit(".", 1)[1]]
            subprocess.run([tool, "-dc", ko], stdout=f, check=True)
        else:
            f.write(open(ko, "rb").read())


def build_pen(rundir):
    cc = shutil.which("aarch64-linux-gnu-gcc")
    if not cc:
        raise SetupError("aarch64-linux-gnu-gcc is missing (apt-get install gcc-aarch64-linux-gnu)")
    out = os.path.join(rundir, "ik-pen")
    subprocess.run([cc, "-static", "-O2", "-o", out, os.path.join(HERE, "test", "ik-pen.c"), "-lm"], check=True)
    return out


def test_initrd(rundir, name, initrd, moddir, pen, net=False, extra=None):
    """initrd + a test-only archive: the hook, the pen, uinput.ko (and the network's modules),
    `extra` files ({image path: (bytes, mode)})."""
    stage = os.path.join(rundir, f"stage-{name}")
    os.makedirs(os.path.join(stage, "ik-test"))
    shutil.copy(pen, os.path.join(stage, "ik-test", "ik-pen"))
    for m in ["uinput"] + (["failover", "net_failover", "virtio_net"] if net else []):
        unpack_module(moddir, m, os.path.join(stage, "ik-test", f"{m}.ko"))
    hook = os.path.join(stage, "ik-test", "hook")
    with open(hook, "w") as f:
        f.write(TEST_HOOK)
    os.chmod(hook, 0o755)
    for path, (content, mode) in (extra or {}).items():
        dst = os.path.join(stage, path.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(content)
        os.chmod(dst, mode)
    archive = os.path.join(rundir, f"test-{name}.cpio.gz")
    subprocess.run(f"cd {shlex.quote(stage)} && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1 > {shlex.quote(archive)}",
                   shell=True, check=True)
    combined = os.path.join(rundir, f"initramfs+{name}.cpio")
    with open(combined, "wb") as out:
        for part in (initrd, archive):
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)
    return combined


def signature_config():
    """config/signature.toml with the API on for the host: every address (the guest's virtio-net;
    QEMU's hostfwd reaches it there), allow_remote and a token file, as docs/API.md asks.
    The captures plain (`store_plaintext = true`, written out as the profile asks): this test reads
    their PNG, SVG and InkML on the host, which has only the arm64 inkkiosk, so it could not
    decrypt them (the x86 VM proof and make powercut run sealed)."""
    text = open(os.path.join(ROOT, "config", "signature.toml")).read()
    text, n = re.subn(r"(?m)^\[signature\]\n", "[signature]\nstore_plaintext = true\n", text)
    if n != 1:
        raise SetupError("config/signature.toml has no [signature] table for store_plaintext")
    api = ('[api]\nenabled = true\nlisten = "0.0.0.0:%d"\nallow_remote = true\n'
           'token_file = "/etc/inkkiosk/api.token"\ndefault_timeout = 120\n' % API_PORT)
    text, n = re.subn(r"(?ms)^\[api\]\n.*?(?=^\[|\Z)", api, text)
    if n != 1:
        raise SetupError("config/signature.toml has no [api] table to replace")
    return text


# --- one boot ---------------------------------------------------------------------------------------

class VM:
    def __init__(self, argv, log_path, qmp_path, quiet):
        self.quiet = quiet
        self.qmp_path = qmp_path
        self.qmp = None
        self.log = open(log_path, "w", encoding="utf-8", errors="replace")
        self.log.write("# " + " ".join(shlex.quote(a) for a in argv) + "\n")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ, "serial")
        self.sel.register(self.proc.stderr, selectors.EVENT_READ, "stderr")
        self.bufs = {"serial": b"", "stderr": b""}
        self.lines = []          # (host s since QEMU start, kernel s or None, text)
        self.kernel0 = None      # host s of the kernel's t = 0 (best estimate: min over lines)

    def now(self):
        return time.monotonic() - self.t0

    def send(self, text):
        self.log.write(f"{self.now():8.3f} > {text}\n")
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def _take(self, kind, raw):
        now = self.now()
        text = raw.decode("utf-8", "replace").replace("\r", "")
        self.log.write(f"{now:8.3f} {'!' if kind == 'stderr' else '|'} {text}\n")
        self.log.flush()
        if not self.quiet:
            print(f"vm| {text}", flush=True)
        if kind != "serial":
            return
        m = KTIME_RE.match(text)
        kts = float(m.group(1)) if m else None
        if kts is not None:
            est = now - kts
            self.kernel0 = est if self.kernel0 is None else min(self.kernel0, est)
        body = m.group(2) if m else text
        self.lines.append((now, kts, body))
        if PANIC_RE.search(body):
            raise Failure(f"kernel panic: {body} (did the kiosk exit?)")

    def pump(self, timeout):
        """Reads what the serial port and QEMU's stderr have, waiting at most `timeout` s."""
        if not self.sel.get_map():
            time.sleep(timeout)
            return
        for key, _ in self.sel.select(timeout=max(0.0, timeout)):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                self.sel.unregister(key.fileobj)
                continue
            self.bufs[key.data] += chunk
            while b"\n" in self.bufs[key.data]:
                raw, self.bufs[key.data] = self.bufs[key.data].split(b"\n", 1)
                self._take(key.data, raw)

    def find(self, regex, start=0):
        for i, (host, kts, text) in enumerate(self.lines[start:], start):
            m = regex.search(text)
            if m:
                return m, host, kts
        return None, None, None

    def wait_line(self, regex, timeout, what, start=0):
        deadline = time.monotonic() + timeout
        while True:
            m, host, kts = self.find(regex, start)
            if m:
                return m, host, kts
            if self.proc.poll() is not None and not self.sel.get_map():
                raise Failure(f"QEMU ended (status {self.proc.returncode}) while waiting for {what}")
            if time.monotonic() > deadline:
                raise Failure(f"no {what} within {timeout:g} s")
            self.pump(0.1)

    def screen(self, path=None):
        """(w, h, RGB bytes) of the screen now (QMP screendump); also saved as PNG at `path`."""
        if self.qmp is None:
            self.qmp = vmrun.QMP(self.qmp_path, time.monotonic() + 10)
        ppm = self.qmp_path + ".ppm"
        self.qmp.execute("screendump", filename=ppm, format="ppm")
        w, h, px = read_ppm(ppm)
        if path:
            write_png(path, w, h, px)
        return w, h, px

    def wait_screen(self, cond, timeout, what, poll=0.25):
        """Screendumps until cond(w, h, px) is true (returns its value and the screen)."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            self.pump(0)
            try:
                shot = self.screen()
            except (OSError, RuntimeError, ValueError):
                shot = None
            if shot:
                last = shot
                v = cond(*shot)
                if v:
                    return v, shot
            if time.monotonic() > deadline:
                raise Failure(f"the screen did not show {what} within {timeout:g} s", last)
            self.pump(poll)

    def cut(self):
        """Power cut: SIGKILL to QEMU, nothing else."""
        self.log.write(f"{self.now():8.3f} # SIGKILL (power cut)\n")
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def finish(self):
        if self.proc.poll() is None:
            vmrun.quit_qemu(self.proc, self.qmp, timeout=5)
        for kind, f in (("serial", self.proc.stdout), ("stderr", self.proc.stderr)):
            try:
                rest = self.bufs[kind] + (f.read() or b"")
            except (OSError, ValueError):
                rest = self.bufs[kind]
            for raw in rest.split(b"\n"):
                if raw:
                    try:
                        self._take(kind, raw)
                    except Failure:
                        pass
        self.log.close()


# --- pixels ----------------------------------------------------------------------------------------

def darkest(px):
    return min(px) if px else 255


def alpha_of(px):
    """The strongest ink alpha on screen: the pen's colour over white, from its darkest channel."""
    return max(0.0, (255 - darkest(px)) / (255 - min(INK)))


def column_height(w, h, px, x, y0, y1, limit=200):
    """Rows in [y0, y1) whose pixel at column x is ink (a channel below `limit`)."""
    n = 0
    for y in range(max(0, y0), min(h, y1)):
        i = (y * w + x) * 3
        if min(px[i:i + 3]) < limit:
            n += 1
    return n


def differing_pixels(a, b):
    if len(a) != len(b):
        return max(len(a), len(b)) // 3
    x = (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")
    # a pixel differs when any of its three bytes does
    t = x.translate(bytes([0] + [1] * 255))
    r, g, bl = (int.from_bytes(t[i::3], "little") for i in range(3))
    return (r | g | bl).to_bytes(len(a) // 3, "little").count(1)


def decode_png(data):
    """(width, height, channels, rows of bytes) of an 8-bit non-interlaced PNG (gray, RGB, RGBA)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, idat, ihdr = 8, b"", None
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0]:
            raise ValueError(f"bad CRC in {kind}")
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    ch = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or ch is None or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b = prev[i]
            c = prev[i - ch] if i >= ch else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, ch, rows


# --- the test ----------------------------------------------------------------------------------------

class Run:
    def __init__(self, opts):
        self.opts = opts
        self.results = []        # (ok, text, evidence)
        self.figures = {"boots": {}}

    def check(self, ok, text, evidence=""):
        self.results.append((bool(ok), text, evidence))
        print(f"  {'PASS' if ok else 'FAIL'}  {text}" + (f"  [{evidence}]" if evidence and not ok else ""), flush=True)
        return ok

    def qemu_argv(self, initrd, append, drive, qmp, net_port=None):
        o = self.opts
        argv = [o.qemu, "-nodefaults", "-no-user-config", "-M", "virt", "-accel", o.accel, "-cpu", o.cpu,
                "-smp", str(o.smp), "-m", str(o.memory), "-display", "none", "-no-reboot",
                "-kernel", self.vmlinuz, "-initrd", initrd, "-append", append,
                "-device", "virtio-gpu-pci,xres=1280,yres=800",
                "-chardev", "stdio,id=ser0,signal=off", "-serial", "chardev:ser0",
                "-qmp", f"unix:{qmp},server=on,wait=off",
                "-drive", f"file={drive},if=virtio,format=raw,cache=directsync",
                "-device", "virtio-rng-pci"]
        if net_port:
            argv += ["-netdev", f"user,id=n0,hostfwd=tcp:127.0.0.1:{net_port}-:{API_PORT}",
                     "-device", "virtio-net-pci,netdev=n0,romfile="]
        return argv

    def boot(self, name, initrd, drive, net_port=None):
        append = " ".join(["console=tty1", "console=ttyAMA0", "loglevel=6", *self.cmdline_words, "ik.appliance.test=1"])
        qmp = os.path.join(self.rundir, f"qmp-{name}.sock")
        vm = VM(self.qemu_argv(initrd, append, drive, qmp, net_port), os.path.join(self.dir, f"{name}.log"), qmp, self.opts.quiet)
        return vm

    def first_frame(self, vm, name, timeout):
        """Waits for the kiosk's first frame (the first dump >= 99 % white); the boot's figures."""
        dumps = 0
        before = None
        deadline = vm.t0 + timeout
        while True:
            vm.pump(0)
            a = vm.now()
            try:
                w, h, px = vm.screen()
                dumps += 1
            except (OSError, RuntimeError, ValueError):
                px = None
            if px is not None:
                frac = white_fraction(px)
                # A screen with text on it (signature mode) may be under 99 % white: then the
                # kiosk's own line says the frame is there.
                if frac >= 0.99 or (frac >= 0.9 and vm.find(kiosk_lines.FIRST_FRAME)[0]):
                    write_png(os.path.join(self.dir, f"{name}-first-frame.png"), w, h, px)
                    break
                before = (w, h, px)
            if time.monotonic() > deadline:
                if before:
                    write_png(os.path.join(self.dir, f"{name}-timeout.png"), *before)
                raise Failure(f"{name}: no white first frame within {timeout:g} s")
            vm.pump(self.opts.poll)
        if before:
            write_png(os.path.join(self.dir, f"{name}-before-first-frame.png"), *before)
        _, _, exec_k = vm.find(re.compile(r"ik-init: exec inkkiosk"))
        _, _, init_k = vm.find(re.compile(r"ik-init: started"))
        # The kiosk's line may reach the serial port a moment after its frame reached the screen.
        try:
            m, _, _ = vm.wait_line(kiosk_lines.FIRST_FRAME, 10, "first-frame line from the kiosk")
        except Failure:
            m = None
        fig = {"qemu_to_first_frame_s": round(a, 2), "screendumps": dumps}
        if vm.kernel0 is not None:
            fig["qemu_to_kernel_s"] = round(vm.kernel0, 2)
            fig["kernel_to_first_frame_s"] = round(a - vm.kernel0, 2)
            if init_k is not None:
                fig["kernel_to_init_s"] = round(init_k, 2)
            if exec_k is not None:
                fig["kernel_to_exec_inkkiosk_s"] = round(exec_k, 2)
                fig["inkkiosk_to_first_frame_s"] = round(a - vm.kernel0 - exec_k, 2)
        if m and m["boot_s"]:   # the PID 1 form: "… ms after main (S s after boot)"
            fig["kiosk_says_first_frame_ms_after_main"] = int(m["ms"])
        self.figures["boots"][name] = fig
        return fig

    def pen_ready(self, vm, timeout=120):
        vm.wait_line(MARKER_RE, timeout, "the test hook's marker (PID 1 = inkkiosk)")
        vm.send("go")
        vm.wait_line(kiosk_lines.PEN_ADDED, 60, f"the kiosk's line for the test pen (input device N: {kiosk_lines.TEST_PEN} (tablet))")

    # -- boot 1: hover, the pressure stroke, the power cut --------------------------------------
    def boot1(self):
        say("boot 1: the image's own config; hover, a pressure + tilt stroke, then a power cut")
        vm = self.boot("boot-1", self.initrd_draw, self.disk)
        try:
            fig = self.first_frame(vm, "boot-1", self.opts.timeout)
            self.check(True, f"boot 1: the kiosk's first frame is on screen ({fig['qemu_to_first_frame_s']} s after QEMU start)")
            m, _, _ = vm.wait_line(MARKER_RE, 60, "the test hook's marker")
            self.check(m.group(2) == "inkkiosk", f"boot 1: PID 1 is {m.group(2)}")
            dri, _, _ = vm.wait_line(kiosk_lines.SCREEN, 30, "the kiosk's screen line")
            drv, _, _ = vm.wait_line(DRM_RE, 30, "the test hook's DRM driver line")
            self.check(drv.group(1) == "virtio_gpu",
                       f"boot 1: the kiosk drives {dri['card']} {dri['width']}x{dri['height']} ({dri['dpi']} dpi); "
                       f"its DRM driver: {drv.group(1)}")
            kms, _, _ = vm.wait_line(kiosk_lines.KMS, 30, "the kiosk's KMS line")
            planes = kiosk_lines.ATOMIC_PLANES.fullmatch(kms["detail"]) if kms["interface"] == "atomic" else None
            self.check(planes is not None and planes["cursor"] is not None,
                       f"boot 1: virtio-gpu takes atomic KMS with its cursor plane: {kms.group(0).split('inkkiosk: ')[-1]}")
            cage, deadline = {}, time.monotonic() + 180
            while len(cage) < len(CAGE_PROBES) and time.monotonic() < deadline:
                vm.pump(0.5)
                cage = {m.group(1): (int(m.group(2)), m.group(3)) for _, _, text in vm.lines for m in [CAGE_RE.search(text)] if m}
            self.figures["cage"] = {k: {"status": v[0], "output": v[1]} for k, v in cage.items()}
            killed = [p for p in ("socket", "exec", "signal-parent") if cage.get(p, (0, ""))[0] == 128 + 31]
            refused = [p for p in ("read-outside", "write-file", "map-executable", "allocate")
                       if cage.get(p, (1, ""))[0] == 0 and "refused" in cage[p][1]]
            caged = all("caged: seccomp on, Landlock ABI" in v[1] for k, v in cage.items() if k != "no-landlock")
            self.check(len(killed) == 3 and len(refused) == 4 and caged,
                       f"boot 1: on the arm64 kernel the PDF helper's cage (seccomp, Landlock) kills a socket, an exec and a "
                       f"signal to its parent ({killed}) and refuses reading outside the fonts, writing a file, executable "
                       f"memory and 4 GiB ({refused})", "figures.json")
            # Nothing that signals or starves the kiosk (PID 1, root): SIGIO on its socket, a file past its limit, a
            # resized page buffer; and it runs as nobody, not as root.
            quiet = [p for p in CAGE_PROBES[7:] if cage.get(p, (1, ""))[0] == 0 and f"{p}: refused" in cage[p][1]]
            nobody = all("running as uid 65534 gid 65534 (started as root)" in v[1] for v in cage.values())
            self.check(len(quiet) == len(CAGE_PROBES) - 7 and nobody and "(F_SETFL without O_ASYNC: allowed)" in cage["fcntl-async"][1]
                       and "(sealed: grow, shrink, seal)" in cage["shrink-buffer"][1] and "File too large" in cage["file-size"][1],
                       f"boot 1: …and refuses F_SETSIG, F_SETOWN, O_ASYNC, FIOASYNC, a file past 256 MiB and resizing the "
                       f"sealed page buffer, running as nobody with or without Landlock ({quiet})", "figures.json")
            # One second later the screen is still all white: no console text, no cursor.
            t = time.monotonic() + 1.0
            while time.monotonic() < t:
                vm.pump(t - time.monotonic())
            w, h, px = vm.screen(os.path.join(self.dir, "boot-1-final.png"))
            count, box = non_white(w, h, px)
            self.check(count == 0, f"boot 1: 1 s after the first frame every pixel is white ({count} others, box {box})",
                       "boot-1-final.png")
            self.pen_ready(vm)

            # (b) hover: near, then far, then out of proximity. A driver with a cursor plane
            # (virtio-gpu) gets the preview there, which QEMU's screendump leaves out: the pen's
            # `cursor` command reads the plane's framebuffer in the guest (DRM, as root), and the
            # PNGs are the screendump with that plane composed over it, as the monitor shows it.
            # First the pen leaves by itself once (in and out within a few reports): until libinput
            # has seen that, it fakes a proximity-out after 50 ms without events (tablets that
            # never send one), and a pen held still would lose its preview.
            mark = len(vm.lines)
            vm.send("hover 0.9 0.9 0.5\nout")
            vm.wait_line(re.compile(r"@@IK-PEN out [\d.]+@@"), 20, "the pen's first proximity out", mark)
            try:
                self.hover(vm)
            except Failure as e:
                self.check(False, f"(b) hover: {e.args[0]}")
                if len(e.args) > 1 and e.args[1]:
                    write_png(os.path.join(self.dir, "hover-failure.png"), *e.args[1])
            # (a) a stroke with a pressure ramp and tilt, then (d) the power cut.
            self.stroke_and_cut(vm)
        finally:
            vm.finish()

    def hover(self, vm):
            w, h = 1280, 800
            cx, cy = 0.5 * w, 0.3 * h

            def under_pen(hv):  # the preview shows where the pen is (not where it was before)
                b = hv["box"]
                return b is not None and b[0] - 3 <= cx <= b[2] + 3 and b[1] - 3 <= cy <= b[3] + 3
            vm.send("hover 0.5 0.3 0.05")
            near = self.wait_hover(vm, lambda hv: under_pen(hv) and hv["alpha"] >= 0.8, "the hover preview under the pen")
            vm.send("hover 0.5 0.3 0.6")
            far = self.wait_hover(vm, lambda hv: under_pen(hv) and 0 < hv["alpha"] < near["alpha"] - 0.15,
                                  "a paler preview for the pen farther away")
            vm.send("out")
            gone = self.wait_hover(vm, lambda hv: hv["alpha"] == 0, "the preview gone after proximity out")
            for name, hv in (("hover-near.png", near), ("hover-far.png", far), ("hover-out.png", gone)):
                write_png(os.path.join(self.dir, name), *hv.pop("shot"))
            self.figures["hover"] = {"near": dict(near, distance=0.05), "far": dict(far, distance=0.6), "out": gone}
            nbox = near["box"]
            placed = nbox is not None and nbox[0] - 3 <= cx <= nbox[2] + 3 and nbox[1] - 3 <= cy <= nbox[3] + 3
            self.check(near["where"] == "cursor plane",
                       f"(b) hover: the preview is on the cursor plane, committed with the frame (atomic KMS): on the {near['where']}")
            self.check(near["alpha"] >= 0.8 and placed,
                       f"(b) hover: the pen near the tablet (distance 0.05) shows the preview dot at its place, alpha "
                       f"{near['alpha']:.2f} ({near['pixels']} px in {nbox}, pen at {cx:.0f},{cy:.0f}; on the {near['where']})",
                       "hover-near.png")
            self.check(far["alpha"] < near["alpha"] - 0.15,
                       f"(b) hover: farther away (distance 0.6) the dot fades: alpha {far['alpha']:.2f} < {near['alpha']:.2f} "
                       f"(config: 1 up to 0.1, 0.44 at 0.6)", "hover-far.png")
            self.check(gone["alpha"] == 0, f"(b) hover: proximity out removes the preview (the {gone['where']} is empty)",
                       "hover-out.png")

    def stroke_and_cut(self, vm):
            vm.send("out")
            y = 0.5
            vm.send(f"stroke 0.15 {y} 0.85 {y} 0.05 1.0 30 -20 140")
            vm.wait_line(re.compile(r"@@IK-PEN stroke [\d.]+@@"), 60, "the pen's stroke")
            prev = [None]

            def settled(w, h, px):  # ink on screen, the same in two dumps in a row
                c = non_white(w, h, px)[0]
                ok = c > 300 and prev[0] == c
                prev[0] = c
                return ok
            _, shot = vm.wait_screen(settled, 30, "the stroke's ink")
            w, h, px = shot
            write_png(os.path.join(self.dir, "stroke.png"), w, h, px)
            self.ink_screen = px
            ys = int(y * h)
            x0, x1 = 0.15 * w, 0.85 * w
            heights = {f"{p:.0%}": column_height(w, h, px, int(x0 + (x1 - x0) * p), ys - 30, ys + 30) for p in (0.1, 0.3, 0.5, 0.7, 0.9)}
            count, box = non_white(w, h, px)
            self.figures["stroke"] = {"heights_px_along_stroke": heights, "pixels": count, "box": box,
                                      "pressure": "0.05 -> 1.0", "tilt_deg": [30, -20]}
            hs = list(heights.values())
            self.check(hs[-1] >= 5 and hs[-1] >= 2 * max(1, hs[0]) and all(b >= a - 1 for a, b in zip(hs, hs[1:])),
                       f"(a) the pen's stroke (pressure 0.05 -> 1.0, tilt 30°/-20°) is drawn with pressure width: "
                       f"ink height along it {heights} px", "stroke.png")

            # (d) the stroke on the data disk (read by the host), then the power cut.
            deadline = time.monotonic() + 30
            strokes = 0
            while time.monotonic() < deadline:
                vm.pump(0.2)
                try:
                    status, _, files = datadisk.snapshot(self.disk)
                    path = os.path.join(files, "journal.inkj")
                    if os.path.isfile(path):
                        ops, problem = datadisk.read_journal(path)
                        strokes = datadisk.strokes_in(ops)
                    shutil.rmtree(os.path.dirname(files), ignore_errors=True)
                except (OSError, RuntimeError, subprocess.SubprocessError):
                    pass
                if strokes >= 1:
                    break
            self.check(strokes >= 1, f"(d) the stroke is in the kiosk's journal on the data disk (read on the host: {strokes} strokes)")
            vm.screen(os.path.join(self.dir, "before-cut.png"))
            vm.cut()
            say("boot 1: power cut (SIGKILL of QEMU)")

    def hover_state(self, vm):
        """The hover preview now: the cursor plane's (when the driver has one and it shows a
        buffer), else the screen's. {alpha, pixels, box, where, shot (the screen as seen)}."""
        mark = len(vm.lines)
        vm.send("cursor")
        m, _, _ = vm.wait_line(CURSOR_RE, 20, "the pen's cursor plane report", mark)
        w, h, px = vm.screen()
        if m.group(1) and int(m.group(1)) != 0:
            fb, x, y, cw, ch, maxa = (int(m.group(i)) for i in range(1, 7))
            argb = bytes.fromhex(m.group(8))
            out = bytearray(px)
            xs, ys = [], []
            for r in range(ch):
                for c in range(cw):
                    i = (r * cw + c) * 4
                    a = argb[i + 3]
                    sx, sy = x + c, y + r
                    if not a or not (0 <= sx < w and 0 <= sy < h):
                        continue
                    xs.append(sx)
                    ys.append(sy)
                    j = (sy * w + sx) * 3
                    for k, src in enumerate((argb[i + 2], argb[i + 1], argb[i])):   # premultiplied B, G, R, A
                        out[j + k] = min(255, src + out[j + k] * (255 - a) // 255)
            box = (min(xs), min(ys), max(xs), max(ys)) if xs else None
            return {"alpha": round(maxa / 255, 3), "pixels": len(xs), "box": box, "where": "cursor plane",
                    "plane": {"fb": fb, "x": x, "y": y, "w": cw, "h": ch}, "shot": (w, h, bytes(out))}
        count, box = non_white(w, h, px)
        return {"alpha": round(alpha_of(px), 3), "pixels": count, "box": box, "where": "screen (no cursor plane in use)",
                "shot": (w, h, px)}

    def wait_hover(self, vm, cond, what, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            hv = self.hover_state(vm)
            if cond(hv):
                return hv
            if time.monotonic() > deadline:
                raise Failure(f"the screen did not show {what} within {timeout:g} s (last: alpha {hv['alpha']} on the {hv['where']})",
                              hv["shot"])
            vm.pump(0.2)

    # -- boot 2: the journal restored after the cut ----------------------------------------------
    def boot2(self):
        say("boot 2: the same data disk after the power cut")
        vm = self.boot("boot-2", self.initrd_draw, self.disk)
        try:
            fig = self.first_frame(vm, "boot-2", self.opts.timeout)
            m, _, _ = vm.wait_line(kiosk_lines.JOURNAL_RESTORED, 60, "the kiosk's journal line")
            fsck = vm.find(re.compile(r"ik-init: data: e2fsck -p \S+: exit (\d+)"))[0]
            self.check(fsck is not None and int(fsck.group(1)) < 4,
                       f"(d) after the cut /init's e2fsck -p of the data disk: exit {fsck.group(1) if fsck else '?'}")
            want = self.ink_screen
            best = [None]

            def same(w, h, px):
                d = differing_pixels(px, want)
                best[0] = d if best[0] is None else min(best[0], d)
                return d <= max(20, self.figures["stroke"]["pixels"] // 100) and (d,)
            try:
                (diff,), shot = vm.wait_screen(same, 60, "the ink of before the cut")
            except Failure:
                diff, shot = best[0], vm.screen()
            write_png(os.path.join(self.dir, "restored.png"), *shot)
            count, box = non_white(*shot)
            self.figures["restore"] = {"restored_strokes": int(m["strokes"]), "pixels": count, "differing_pixels": diff}
            self.check(int(m["strokes"]) >= 1 and diff is not None and diff <= max(20, self.figures["stroke"]["pixels"] // 100),
                       f"(d) power cut, then boot again: the kiosk restored {m['strokes']} strokes and the screen shows the ink of "
                       f"before the cut ({count} ink pixels, {diff} differ)", "restored.png")
            self.check(True, f"boot 2: first frame {fig['qemu_to_first_frame_s']} s after QEMU start")
        finally:
            vm.finish()

    # -- boot 3: signature mode over the API ----------------------------------------------------------
    def api(self, method, path, body=None, timeout=10):
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def boot3(self):
        say("boot 3: signature mode with the API (virtio-net, hostfwd 127.0.0.1:%d -> guest :%d)" % (self.port, API_PORT))
        vm = self.boot("boot-3", self.initrd_sig, self.disk3, net_port=self.port)
        sig_dir = os.path.join(self.dir, "signature")
        try:
            self.first_frame(vm, "boot-3", self.opts.timeout)
            dri, _, _ = vm.wait_line(kiosk_lines.SCREEN, 30, "the kiosk's screen line")
            vm.wait_line(re.compile(r"@@IK-NET inet 10\.0\.2\.15"), 60, "the guest's network (test hook)")
            # The API answers (slirp accepts before the guest does: ask until the kiosk answers).
            deadline = time.monotonic() + 60
            health = None
            while time.monotonic() < deadline:
                vm.pump(0.2)
                try:
                    st, _, body = self.api("GET", "/health", timeout=3)
                    health = (st, body)
                    if st == 200:
                        break
                except (OSError, urllib.error.URLError):
                    pass
            self.check(health and health[0] == 200, f"(c) the API answers GET /health over virtio-net: {health}")
            unauth = urllib.request.Request(f"http://127.0.0.1:{self.port}/health")
            try:
                urllib.request.urlopen(unauth, timeout=5)
                code = 200
            except urllib.error.HTTPError as e:
                code = e.code
            self.check(code == 401, f"(c) without the bearer token the API answers {code} (401 expected)")
            st, _, body = self.api("POST", "/signatures", {"prompt": "Sign for parcel arm64", "timeout": 300})
            cap = json.loads(body) if body else {}
            self.check(st == 201 and cap.get("state") == "waiting", f"(c) POST /signatures: {st} {cap.get('id')} {cap.get('state')}")
            sid = cap.get("id")
            self.pen_ready(vm)
            vm.screen(os.path.join(self.dir, "signature-waiting.png"))
            mark = len(vm.lines)
            vm.send("sign 4 7")
            for k in range(1, 5):
                vm.wait_line(re.compile(r"@@IK-PEN up %d [\d.]+@@" % k), 60, f"the pen's stroke {k} of the signature", mark)
            prev = [None]

            def settled(w, h, px):
                c = non_white(w, h, px)[0]
                ok = prev[0] == c
                prev[0] = c
                return ok
            _, shot = vm.wait_screen(settled, 30, "the signature settled on screen")
            write_png(os.path.join(self.dir, "signature-signed.png"), *shot)
            w, h, dpi = int(dri["width"]), int(dri["height"]), int(dri["dpi"])
            ppmm = dpi / 25.4
            button_mm = 14.0
            m = re.search(r"(?m)^button_mm\s*=\s*([\d.]+)", open(os.path.join(ROOT, "config", "signature.toml")).read())
            if m:
                button_mm = float(m.group(1))
            target, gap = round(button_mm * ppmm), round(2 * ppmm)
            x, y = w - 2 * gap - round(16 * ppmm), h - gap - target / 2   # Accept: the bar's rightmost button
            vm.send(f"tap {x / w:.4f} {y / h:.4f}")
            acc, _, _ = vm.wait_line(kiosk_lines.SIGNATURE_WRITTEN, 60, "the kiosk's line for the accepted signature")
            st, _, body = self.api("GET", f"/signatures/{sid}?wait=30", timeout=40)
            cap = json.loads(body) if body else {}
            self.check(st == 200 and cap.get("state") == "accepted",
                       f"(c) the pen signed (4 strokes), Accept tapped: GET /signatures/{sid} says {cap.get('state')} "
                       f"({(cap.get('files') or {}).get('samples')} samples)")
            _, shot = vm.wait_screen(lambda w, h, px: True, 5, "")
            write_png(os.path.join(self.dir, "signature-accepted.png"), *shot)
            os.makedirs(sig_dir, exist_ok=True)
            got = {}
            for ext in ("png", "svg", "inkml", "json"):
                st, hdr, data = self.api("GET", f"/signatures/{sid}/{ext}", timeout=20)
                got[ext] = (st, hdr.get("Content-Type") if hdr else None, data)
                with open(os.path.join(sig_dir, f"{sid}.{ext}"), "wb") as f:
                    f.write(data)
            self.check(all(v[0] == 200 for v in got.values()),
                       "(c) GET /signatures/{id}/png, svg, inkml, json: " + ", ".join(f"{k} {v[0]} {v[1]} {len(v[2])} B" for k, v in got.items()))
            meta = json.loads(got["json"][2]) if got["json"][0] == 200 else {}
            sums = meta.get("sha256", {})
            bad = [ext for ext in ("png", "svg", "inkml")
                   if sums.get(f"{sid}.{ext}") != hashlib.sha256(got[ext][2]).hexdigest()]
            self.check(sums and not bad, f"(c) the JSON's SHA-256 of the PNG, SVG and InkML match the files fetched"
                                         f"{'' if not bad else ' (not: ' + ', '.join(bad) + ')'}")
            try:
                pw, ph, ch, rows = decode_png(got["png"][2])
                inked = 0
                for r in rows:
                    for i in range(0, len(r), ch):
                        px = r[i:i + ch]
                        if (ch == 4 and px[3] > 128 and min(px[:3]) < 128) or (ch < 4 and min(px[:min(ch, 3)]) < 128):
                            inked += 1
                png_ok = inked > 100
                png_text = f"{pw}x{ph}, {ch} channels, {inked} ink pixels"
            except (ValueError, zlib.error, TypeError) as e:
                png_ok, png_text = False, f"undecodable: {e}"
            self.check(png_ok, f"(c) the PNG decodes and holds the signature ({png_text})", os.path.join(sig_dir, f"{sid}.png"))
            try:
                svg = ET.fromstring(got["svg"][2])
                paths = [e for e in svg.iter() if e.tag.rsplit("}", 1)[-1] in ("path", "polygon", "polyline")]
                svg_text = f"{len(paths)} path elements"
                svg_ok = len(paths) >= 4 or (len(paths) >= 1 and len(got["svg"][2]) > 1000)
            except ET.ParseError as e:
                svg_ok, svg_text = False, f"not XML: {e}"
            self.check(svg_ok, f"(c) the SVG parses: {svg_text}")
            try:
                ink = ET.fromstring(got["inkml"][2])
                traces = [e for e in ink.iter() if e.tag.rsplit("}", 1)[-1] == "trace"]
                channels = sorted({c.get("name") for c in ink.iter() if c.tag.rsplit("}", 1)[-1] == "channel"})
                inkml_ok = len(traces) >= 4
                inkml_text = f"{len(traces)} traces, channels {channels}"
            except ET.ParseError as e:
                inkml_ok, inkml_text = False, f"not XML: {e}"
            self.check(inkml_ok, f"(c) the InkML parses: {inkml_text}")
            self.figures["signature"] = {"id": sid, "accepted_line": acc.group(0), "png": png_text, "svg": svg_text,
                                         "inkml": inkml_text, "sizes": {k: len(v[2]) for k, v in got.items()}}
        finally:
            vm.finish()

    def main(self):
        o = self.opts
        out = os.path.realpath(o.out)
        self.vmlinuz = os.path.join(out, "vmlinuz")
        initrd = os.path.join(out, "initramfs.cpio.zst")
        for f in (self.vmlinuz, initrd):
            if not os.path.isfile(f):
                raise SetupError(f"{f} is missing; build it with scripts/appliance/build.sh --arch arm64")
        o.qemu = shutil.which("qemu-system-aarch64")
        if not o.qemu:
            raise SetupError("qemu-system-aarch64 is missing (apt-get install qemu-system-arm)")
        self.dir = os.path.realpath(o.dir or os.path.join(out, "boot-test"))
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        base = open(os.path.join(out, "cmdline.txt")).read().split("#")[0].split()
        self.cmdline_words = [w for w in base if w != "quiet" and not w.startswith(("console=", "loglevel="))]
        self.rundir = tempfile.mkdtemp(prefix="inkkiosk-arm64-")
        try:
            moddir = kernel_modules(self.vmlinuz)
            pen = build_pen(self.rundir)
            self.initrd_draw = test_initrd(self.rundir, "draw", initrd, moddir, pen)
            sig = signature_config()
            self.initrd_sig = test_initrd(self.rundir, "sig", initrd, moddir, pen, net=True, extra={
                "/etc/inkkiosk/inkkiosk.toml": (sig.encode(), 0o644),
                "/etc/inkkiosk/api.token": (TOKEN.encode() + b"\n", 0o600),
                "/etc/inkkiosk/appliance.env": (b"IK_JOURNAL=/var/lib/inkkiosk/signature.inkj\n", 0o644),
            })
            self.disk = os.path.join(self.rundir, "data.img")
            self.disk3 = os.path.join(self.rundir, "data-signature.img")
            datadisk.make_image(self.disk)
            datadisk.make_image(self.disk3)
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                self.port = s.getsockname()[1]
            t = time.monotonic()
            for step in (self.boot1, self.boot2, self.boot3):
                s0 = time.monotonic()
                try:
                    step()
                except Failure as e:
                    self.check(False, f"{step.__name__}: {e.args[0]}")
                    if len(e.args) > 1 and e.args[1]:
                        write_png(os.path.join(self.dir, f"{step.__name__}-failure.png"), *e.args[1])
                self.figures.setdefault("seconds", {})[step.__name__] = round(time.monotonic() - s0, 1)
            self.figures["seconds"]["all"] = round(time.monotonic() - t, 1)
        finally:
            shutil.rmtree(self.rundir, ignore_errors=True)
        return self.report()

    def report(self):
        print()
        for name, fig in self.figures["boots"].items():
            print(f"  {name}: QEMU start → kernel {fig.get('qemu_to_kernel_s')} s; kernel start → /init {fig.get('kernel_to_init_s')} s, "
                  f"→ exec inkkiosk {fig.get('kernel_to_exec_inkkiosk_s')} s, → first frame {fig.get('kernel_to_first_frame_s')} s; "
                  f"inkkiosk start → first frame {fig.get('inkkiosk_to_first_frame_s')} s "
                  f"(the kiosk's own count: {fig.get('kiosk_says_first_frame_ms_after_main')} ms after main)")
        print(f"  (qemu-system-aarch64 -M virt -cpu {self.opts.cpu} -smp {self.opts.smp}, {self.opts.accel}; "
              f"seconds per boot: {self.figures.get('seconds')})")
        failed = sum(1 for ok, _, _ in self.results if not ok)
        passed = len(self.results) - failed
        self.figures["checks"] = [{"ok": ok, "check": text, "evidence": ev} for ok, text, ev in self.results]
        self.figures["passed"], self.figures["failed"] = passed, failed
        with open(os.path.join(self.dir, "figures.json"), "w") as f:
            json.dump(self.figures, f, indent=2)
            f.write("\n")
        print(f"arm64-vm: {passed} passed, {failed} failed")
        return 1 if failed or not passed else 0


def main():
    ap = argparse.ArgumentParser(description="The arm64 appliance on qemu-system-aarch64 -M virt: pen, hover, signature API, power cut.")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "appliance-arm64"), help="the image (default out/appliance-arm64)")
    ap.add_argument("--dir", help="results (default OUT/boot-test)")
    ap.add_argument("--timeout", type=float, default=240, help="s from QEMU start to the first frame, per boot (default 240)")
    ap.add_argument("--poll", type=float, default=0.2, help="screendump interval while booting (default 0.2 s)")
    ap.add_argument("--cpu", default="cortex-a72", help="QEMU CPU (default cortex-a72; max is slower under TCG: pointer auth)")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--memory", type=int, default=768, help="guest MB (default 768)")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--quiet", action="store_true", help="do not stream the serial console")
    opts = ap.parse_args()
    try:
        return Run(opts).main()
    except SetupError as e:
        say(f"setup error: {e}")
        print("arm64-vm: 0 passed, 1 failed")
        return 2


if __name__ == "__main__":
    sys.exit(main())
