#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Power cuts while a customer signs: boots the appliance (out/appliance/, `make appliance`) in
QEMU again and again on one data disk, has a pen sign and accept signatures, and SIGKILLs QEMU
at a random moment (no shutdown, no sync: the guest's RAM, page cache and the disk requests in
flight are gone, as at a power cut). After every cut it checks that no finished stroke and no
accepted signature was lost, and that the outbox holds no half capture.

    python3 scripts/appliance/powercut-test.py [--cuts 12] [--seed 1] [--iops 20]   (make powercut)

The disk: a 32 MB ext4 image labelled inkdata (what `mkfs.ext4 -L inkdata` makes on a board),
a second virtio disk with cache=directsync (every write the guest is told is done is in the
image file; the guest's flushes are real) and throttled to --iops writes a second (20: a cheap
SD card, as the VM proof's durability test). /init checks it with e2fsck and mounts it on
/var/lib/inkkiosk; the kiosk keeps its journal and its outbox there.

The kiosk: the appliance image as built, plus a test-only archive appended to its initramfs
(the kernel unpacks both; the test's files win): the uinput pen (test/ik-pen.c), and
config/signature.toml as the kiosk's configuration, with `encrypt_to` naming a public key made
for the run by the host's `inkkiosk keygen` (--binary): the profile names none as shipped, and
the captures are stored encrypted (the checks read their SHA-256 sums, not their ink). That
profile has no host API, on purpose:
with a host, a restarted kiosk drops the half-drawn signature of the request that died with it
(the host asks again), so nothing could show whether the journal kept it. Without a host, the
kiosk keeps every finished stroke of the signature being drawn in its journal, and on Accept
writes the capture to the outbox, shows "Thank you" only once the files are synced, and then
empties the journal.

The signer (the host drives the guest's pen through the serial port, and waits on the kiosk's
log lines, never on the clock): 2–5 strokes ("sign"), a tap on Accept, then waits for the
kiosk's `signature NAME: 4 files` (the thank-you) before the next signature. The pen prints
each tip-up with the guest's CLOCK_MONOTONIC. The cut comes at a random moment, --min-delay to
--max-delay seconds after the pen starts (that sleep is the test's purpose; everything else
waits for lines).

After each cut, from the host (the VM gone): a copy of the image is checked with e2fsck -fy
(it replays the file system's journal, as the next boot will) and its files are copied out
with debugfs; the kiosk's journal is parsed here (records, CRC-32) and the outbox checked (each
NAME/NAME.json's SHA-256 of the other three files in NAME/). Then the next boot on the same image: /init's
e2fsck must be clean or repair (exit < 4), and the kiosk's `restored N edits, M strokes` must
agree with the host's count. A cut passes when:
  - every stroke finished more than DURABLE_MS (250 ms) before the cut is back: in the journal,
    or in a complete capture when the cut came during an Accept;
  - every signature the kiosk thanked for is in the outbox, whole;
  - the outbox has no capture with a missing or changed file; files of an unfinished capture
    (the cut came while it was written) are gone after the next start;
  - the journal holds no stroke that was never drawn.
A stroke's time is the guest's tip-up time brought onto the host's clock with the smallest
serial delay seen (so it is never earlier than it really was: the 250 ms are never shortened).

Writes --dir (default OUT/powercut/): boot-NN.log (serial console, host seconds in front),
results.json, and the data disk's files after the last boot (files/). Exit status 0 when every
cut passes, 1 when one does not, 2 on a setup error.
"""

import argparse
import importlib.util
import json
import os
import random
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib

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

DURABLE_MS = 250          # docs/ARCHITECTURE.md: a finished stroke is on disk within this
CONFIG = os.path.join(ROOT, "config", "signature.toml")

FSCK_RE = re.compile(r"ik-init: data: e2fsck -p \S+: exit (\d+)")
FSCK_Y_RE = re.compile(r"ik-init: data: e2fsck -y \S+: exit (\d+)")
FSCK_LINE_RE = re.compile(r"ik-init: data: e2fsck -p \S+: (.*)")
MOUNTED_RE = re.compile(r"ik-init: data: \S+ \(LABEL=inkdata\) mounted on /var/lib/inkkiosk")
IN_RAM_RE = re.compile(r"ik-init: data: .*kept in RAM only")
PEN_UP_RE = re.compile(r"@@IK-PEN up (\d+) ([\d.]+)@@")
PEN_TAP_RE = re.compile(r"@@IK-PEN tap ([\d.]+)@@")
PANIC_RE = re.compile(r"Kernel panic|end Kernel panic")
KTIME_RE = re.compile(r"^\[\s*\d+\.\d+\]\s?")


def note(msg):
    print(f"powercut: {msg}", flush=True)


class Failure(Exception):
    pass


class VM:
    """One boot of the appliance: QEMU with its serial console on our pipes."""

    def __init__(self, argv, log_path):
        self.log = open(log_path, "w", encoding="utf-8", errors="replace")
        self.log.write("# " + " ".join(shlex.quote(a) for a in argv) + "\n")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ, "serial")
        self.sel.register(self.proc.stderr, selectors.EVENT_READ, "stderr")
        self.bufs = {"serial": b"", "stderr": b""}
        self.lines = []   # (host monotonic, text) of every serial line
        self.killed_at = None

    def send(self, text):
        self.log.write(f"{time.monotonic() - self.t0:8.3f} > {text}\n")
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def _take(self, kind, raw, now):
        text = raw.decode("utf-8", "replace").replace("\r", "")
        self.log.write(f"{now - self.t0:8.3f} {'!' if kind == 'stderr' else '|'} {text}\n")
        if kind == "serial":
            text = KTIME_RE.sub("", text) if text.startswith("[") and "ik-init:" in text else text
            self.lines.append((now, text))
            return text
        return None

    def read(self, until):
        """Serial lines that arrive before the host time `until` (none when it passes)."""
        out = []
        while not out:
            now = time.monotonic()
            if now >= until or not self.sel.get_map():
                return out
            for key, _ in self.sel.select(timeout=until - now):
                chunk = os.read(key.fileobj.fileno(), 65536)
                now = time.monotonic()
                if not chunk:
                    self.sel.unregister(key.fileobj)
                    continue
                self.bufs[key.data] += chunk
                while b"\n" in self.bufs[key.data]:
                    raw, self.bufs[key.data] = self.bufs[key.data].split(b"\n", 1)
                    text = self._take(key.data, raw, now)
                    if text is not None:
                        out.append((now, text))
        return out

    def cut(self):
        """The power cut: SIGKILL to QEMU, nothing else. Returns the host time just before it."""
        t = time.monotonic()
        self.killed_at = t
        os.kill(self.proc.pid, signal.SIGKILL)
        self.log.write(f"{t - self.t0:8.3f} # SIGKILL (power cut)\n")
        return t

    def finish(self):
        """Waits for QEMU to be gone and reads what was still in the pipes (written before it)."""
        if self.proc.poll() is None and self.killed_at is None:
            self.cut()
        self.proc.wait()
        now = time.monotonic()
        late = []
        for kind, f in (("serial", self.proc.stdout), ("stderr", self.proc.stderr)):
            rest = self.bufs[kind] + (f.read() or b"")
            for raw in rest.split(b"\n"):
                if raw:
                    text = self._take(kind, raw, now)
                    if text is not None:
                        late.append((now, text))
        self.log.close()
        return late


def main():
    ap = argparse.ArgumentParser(description="Power cuts (SIGKILL of QEMU) at random moments of signing on the appliance.")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "appliance"), help="the appliance (default out/appliance)")
    ap.add_argument("--dir", help="where logs and results go (default OUT/powercut)")
    ap.add_argument("--cuts", type=int, default=12, help="power cuts (default 12)")
    ap.add_argument("--seed", type=int, default=1, help="random seed: cut moments, strokes (default 1)")
    ap.add_argument("--min-delay", type=float, default=0.5, help="earliest cut, s after the pen starts (default 0.5)")
    ap.add_argument("--max-delay", type=float, default=8.0, help="latest cut, s after the pen starts (default 8)")
    ap.add_argument("--iops", type=int, default=20, help="write requests a second the data disk allows (default 20; 0: no limit)")
    ap.add_argument("--cpu", default="max",
                    help="QEMU CPU model (default max: RDRAND, as x86 boards have; the kiosk's start does not wait for entropy)")
    ap.add_argument("--no-damage", action="store_true",
                    help="start on a sound disk (default: the first boot meets a damaged one, which e2fsck -p may not repair)")
    ap.add_argument("--no-fallback", action="store_true", help="skip the last boot without a data disk (the RAM fallback)")
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "inkkiosk"),
                    help="the host's inkkiosk, which makes the captures' key pair (default .build/release/inkkiosk)")
    ap.add_argument("--accel", default="tcg", help="QEMU accelerator (default tcg)")
    ap.add_argument("--boot-timeout", type=float, default=90, help="s from QEMU start to the pen being ready (default 90)")
    opts = ap.parse_args()
    if opts.cuts < 1 or opts.min_delay < 0 or opts.max_delay < opts.min_delay:
        ap.error("need --cuts ≥ 1 and 0 ≤ --min-delay ≤ --max-delay")

    out = os.path.realpath(opts.out)
    for f in ("vmlinuz", "initramfs.cpio.zst", "cmdline.txt"):
        if not os.path.isfile(os.path.join(out, f)):
            note(f"error: {os.path.join(out, f)} is missing; build it with `make appliance`")
            return 2
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        note("error: qemu-system-x86_64 is missing (apt-get install qemu-system-x86)")
        return 2
    result_dir = os.path.realpath(opts.dir or os.path.join(out, "powercut"))
    if os.path.isdir(result_dir):
        shutil.rmtree(result_dir)
    os.makedirs(result_dir)

    # The kiosk's configuration: the signature profile, its journal on the data partition.
    config = tomllib.load(open(CONFIG, "rb"))
    if config.get("api", {}).get("enabled", False):
        note(f"error: {CONFIG} enables the host API; the test needs the kiosk that keeps a half-drawn signature")
        return 2
    journal = config.get("storage", {}).get("journal", "")
    if not journal.startswith(datadisk.MOUNT + "/"):
        note(f"error: {CONFIG}'s journal ({journal!r}) is not on the data partition ({datadisk.MOUNT})")
        return 2
    outbox = config.get("signature", {}).get("outbox", "/var/lib/inkkiosk/outbox")
    button_mm = float(config.get("ui", {}).get("button_mm", 12))

    # The kernel: the PVH entry of the appliance's vmlinuz (saves the bzImage decompression).
    kernel = os.path.join(out, "vmlinuz")
    boot = cache.path("kernel", "boot")
    if os.path.isdir(boot):
        mine = open(kernel, "rb").read()
        same = [os.path.join(boot, f) for f in os.listdir(boot)
                if f.startswith("vmlinuz-") and open(os.path.join(boot, f), "rb").read() == mine]
        if same:
            kernel = vmrun.pvh_kernel(same[0])

    rundir = tempfile.mkdtemp(prefix="inkkiosk-powercut-")
    try:
        # Sealed by default: the profile as shipped names no key; the kiosk gets one, as from a host.
        key = os.path.join(rundir, "signature.key")
        made = subprocess.run([opts.binary, "keygen", key], capture_output=True, text=True)
        if made.returncode != 0:
            note(f"error: {opts.binary} keygen: {made.stderr.strip() or made.returncode} (make release builds it)")
            return 2
        text = open(CONFIG).read()
        if "[signature]\n" not in text:
            note(f"error: {CONFIG} has no [signature] table for encrypt_to")
            return 2
        text = text.replace("[signature]\n", '[signature]\nencrypt_to = "/etc/inkkiosk/signature.pub"\n', 1)
        initrd = boottest.build_test_archive(rundir, os.path.join(out, "initramfs.cpio.zst"), extra={
            "/etc/inkkiosk/inkkiosk.toml": text.encode(),
            "/etc/inkkiosk/signature.pub": open(os.path.join(rundir, "signature.pub"), "rb").read(),
            "/etc/inkkiosk/appliance.env": f"IK_JOURNAL={journal}\n".encode(),
        })
        image = os.path.join(rundir, "data.img")
        datadisk.make_image(image)
        damaged = [] if opts.no_damage else datadisk.damage(image)
        base = open(os.path.join(out, "cmdline.txt")).read().split("#")[0].split()
        words = [w for w in base if w != "quiet" and not w.startswith(("console=", "loglevel="))]
        # loglevel 6: /init's notices reach the serial port, the kernel's chatter does not.
        append = " ".join(["console=ttyS0", "loglevel=6", *words, "ik.appliance.test=1"])
        drive = f"file={image},if=virtio,format=raw,cache=directsync"
        if opts.iops:
            drive += f",throttling.iops-write={opts.iops}"
        machine = [qemu, "-nodefaults", "-no-user-config", "-machine", "pc", "-accel", opts.accel, "-cpu", opts.cpu,
                   "-m", "512", "-smp", "2", "-display", "none", "-no-reboot", "-kernel", kernel, "-initrd", initrd,
                   "-device", "VGA,xres=1280,yres=800,vgamem_mb=64",
                   # the board's hardware RNG (the image's virtio_rng), as in boot-test.py
                   "-device", "virtio-rng-pci",
                   "-chardev", "stdio,id=ser0,signal=off", "-serial", "chardev:ser0"]
        argv = machine + ["-append", append, "-drive", drive]
        note(f"{opts.cuts} power cuts, seed {opts.seed}; data disk {os.path.basename(image)} (32 MB ext4, LABEL=inkdata, "
             f"cache=directsync{f', {opts.iops} writes/s' if opts.iops else ''}); kiosk: {os.path.relpath(CONFIG, ROOT)} "
             f"(journal {journal}, outbox {outbox})")
        t = time.monotonic()
        status = run(opts, argv, image, result_dir, journal, outbox, button_mm, damaged)
        if not opts.no_fallback:
            # No data partition at all: the kiosk starts all the same, and /init says why ink will not last.
            ok = fallback_boot(machine + ["-append", append + " ik.data.wait=1"], os.path.join(result_dir, "boot-no-disk.log"), opts)
            status = status or (0 if ok else 1)
        note(f"{'PASS' if status == 0 else 'FAIL'} ({time.monotonic() - t:.0f} s in all)")
        return status
    finally:
        shutil.rmtree(rundir, ignore_errors=True)


def fallback_boot(argv, log_path, opts):
    """Boots without the data disk: passes when /init says that ink is kept in RAM only and the
    kiosk's first frame comes all the same."""
    vm = VM(argv, log_path)
    deadline = vm.t0 + opts.boot_timeout
    said = frame = None
    try:
        while time.monotonic() < deadline and not (said and frame):
            for _, text in vm.read(deadline):
                if IN_RAM_RE.search(text):
                    said = text
                if kiosk_lines.FIRST_FRAME.search(text):
                    frame = time.monotonic() - vm.t0
    finally:
        vm.finish()
    if said and frame:
        note(f"without a data disk: {said.split('ik-init: ')[-1]}; the kiosk's first frame {frame:.1f} s after QEMU start")
        return True
    note(f"FAIL: without a data disk: {'/init said nothing about RAM' if not said else 'no first frame'} within "
         f"{opts.boot_timeout:g} s (console: {log_path})")
    return False


def run(opts, argv, image, result_dir, journal, outbox, button_mm, damaged):
    rng = random.Random(opts.seed)
    started = time.monotonic()
    cuts = []                 # one dict per cut
    thanked = []              # capture names the kiosk said were saved, over all boots
    previous = None           # the cut before this boot, to be completed with what this boot says
    failures = []

    for boot in range(opts.cuts + 1):
        last = boot == opts.cuts
        vm = VM(argv, os.path.join(result_dir, f"boot-{boot:02d}.log"))
        seen = {"fsck": None, "fsck_y": None, "fsck_lines": [], "mounted": False, "restored": None, "sweep": [], "storage": False}
        cut = None
        try:
            # --- boot: /init's check, the kiosk's restore, its first frame; then sign until the cut --
            deadline = vm.t0 + opts.boot_timeout
            screen = None
            state = "boot"
            first_frame = marker = False
            sig = {"restored": 0, "new": []}      # the signature on screen: restored strokes, new ones (guest t, host t)
            pending = None                        # strokes of the signature whose Accept was pressed, not yet thanked
            last_accepted = None                  # strokes of the last thanked signature (its journal reset may not be on disk)
            accepted_here = []
            offset = None                         # min(host − guest time) over the pen's lines
            delay = None if last else rng.uniform(opts.min_delay, opts.max_delay)
            cut_at = None
            want_ups = 0
            while cut_at is None or time.monotonic() < cut_at:
                if time.monotonic() > deadline:
                    raise Failure(f"boot {boot}: timed out waiting in state '{state}' (console: {vm.log.name})")
                for t, text in vm.read(min(deadline, cut_at or deadline)):
                    if PANIC_RE.search(text):
                        raise Failure(f"boot {boot}: kernel panic (did the kiosk die?): {text}")
                    if IN_RAM_RE.search(text):
                        raise Failure(f"boot {boot}: /init did not mount the data disk: {text}")
                    if kiosk_lines.SIGNATURE_NOT_WRITTEN.search(text):
                        raise Failure(f"boot {boot}: the kiosk could not save a signature: {text}")
                    if m := FSCK_RE.search(text):
                        seen["fsck"] = int(m.group(1))
                    elif m := FSCK_Y_RE.search(text):
                        seen["fsck_y"] = int(m.group(1))
                    elif m := FSCK_LINE_RE.search(text):
                        seen["fsck_lines"].append(m.group(1))
                    seen["mounted"] |= bool(MOUNTED_RE.search(text))
                    seen["storage"] |= bool(kiosk_lines.CANNOT_SAVE_INK.search(text))
                    first_frame |= bool(kiosk_lines.FIRST_FRAME.search(text))
                    marker |= text.startswith("@@IK-APPLIANCE-KIOSK")
                    if m := kiosk_lines.JOURNAL_RESTORED.search(text):
                        if m["path"] != journal:
                            raise Failure(f"boot {boot}: the kiosk's journal is {m['path']}, not {journal}")
                        seen["restored"] = sig["restored"] = int(m["strokes"])
                    if m := kiosk_lines.OUTBOX_SWEPT.search(text):
                        seen["sweep"] = m["names"].split(", ")
                    if m := kiosk_lines.SCREEN.search(text):
                        screen = (int(m["width"]), int(m["height"]), int(m["dpi"]))
                    if m := PEN_UP_RE.search(text):
                        g = float(m.group(2))
                        offset = t - g if offset is None else min(offset, t - g)
                        sig["new"].append((g, t))
                        want_ups -= 1
                    if m := PEN_TAP_RE.search(text):
                        g = float(m.group(1))
                        offset = t - g if offset is None else min(offset, t - g)
                    if state == "plugging" and kiosk_lines.PEN_ADDED.search(text):
                        # The pen is there: the signer starts, and the power fails at a random moment.
                        cut_at = time.monotonic() + delay
                        deadline = cut_at + 60
                        state = "ready"
                    if m := kiosk_lines.SIGNATURE_WRITTEN.search(text):
                        if pending is None:
                            raise Failure(f"boot {boot}: a signature was saved that nobody accepted: {text}")
                        thanked.append(m["id"])
                        accepted_here.append(m["id"])
                        last_accepted, pending = pending, None
                        sig = {"restored": 0, "new": []}
                        state = "ready"   # the thank-you: the next signer may start
                if state == "boot" and first_frame and marker and seen["restored"] is not None:
                    if last:
                        break   # the check boot: the kiosk restored and tidied the outbox; nothing to draw
                    if screen is None:
                        raise Failure(f"boot {boot}: the kiosk did not log its screen size and dpi")
                    vm.send("go")
                    state = "plugging"
                    deadline = time.monotonic() + 30
                elif state == "ready":
                    want_ups = rng.randint(2, 5)
                    vm.send(f"sign {want_ups} {rng.randrange(1 << 30)}")
                    state = "signing"
                elif state == "signing" and want_ups <= 0:
                    w, h, dpi = screen
                    ppmm = dpi / 25.4
                    target, gap = round(button_mm * ppmm), round(2 * ppmm)
                    # Accept: the rightmost button of the bar along the bottom, at least 32 mm wide.
                    x, y = w - 2 * gap - round(16 * ppmm), h - gap - target / 2
                    pending = sig["restored"] + len(sig["new"])
                    vm.send(f"tap {x / w:.4f} {y / h:.4f}")
                    state = "accepting"
                    accept_by = time.monotonic() + 20
                elif state == "accepting" and time.monotonic() > accept_by:
                    raise Failure(f"boot {boot}: no thank-you within 20 s of the tap on Accept (did it miss the button?)")
            if not last:
                cut = {"boot": boot, "delay_s": round(delay, 3)}
                t_cut = vm.cut()
                cut["qemu_s"] = round(t_cut - vm.t0, 2)
        finally:
            late = vm.finish()
        # Lines the guest wrote before the cut and the host had not read yet count too.
        for t, text in late:
            if m := PEN_UP_RE.search(text):
                sig["new"].append((float(m.group(2)), t))
            if m := kiosk_lines.SIGNATURE_WRITTEN.search(text):
                thanked.append(m["id"])
                accepted_here.append(m["id"])
                last_accepted, pending, sig = pending, None, {"restored": 0, "new": []}

        # --- what this boot says about the cut before it ------------------------------------------
        if previous is not None:
            previous["fsck_guest"] = seen["fsck"]
            previous["fsck_guest_lines"] = seen["fsck_lines"]
            previous["restored"] = seen["restored"]
            previous["swept"] = seen["sweep"]
            judge(previous, failures)
        if seen["fsck"] is None or not seen["mounted"]:
            raise Failure(f"boot {boot}: /init did not check and mount the data disk (console: {vm.log.name})")
        if boot == 0 and damaged:
            # The damaged disk: preen refuses, -y repairs, the kiosk starts on it and signs.
            fixed = seen["fsck"] >= 4 and seen["fsck_y"] is not None and seen["fsck_y"] < 4
            note(f"damaged disk ({' and '.join(damaged)} claim one block): e2fsck -p exit {seen['fsck']}, "
                 f"e2fsck -y exit {seen['fsck_y']}, mounted, the kiosk signed on it")
            if not fixed:
                failures.append(f"the damaged disk at the first boot: e2fsck -p exit {seen['fsck']}, -y exit {seen['fsck_y']} "
                                "(want ≥ 4, then < 4)")

        # --- the disk as the cut left it, read on the host ----------------------------------------
        status, output, files = datadisk.snapshot(image, keep_dir=os.path.join(result_dir, "files") if last else None)
        ops, problem = [], None
        jpath = os.path.join(files, journal[len(datadisk.MOUNT) + 1:])
        if os.path.isfile(jpath):
            ops, problem = datadisk.read_journal(jpath)
        complete, bad, leftovers = datadisk.check_outbox(os.path.join(files, outbox[len(datadisk.MOUNT) + 1:]))
        captures = {}
        for name in complete:
            meta = json.load(open(os.path.join(files, outbox[len(datadisk.MOUNT) + 1:], name, f"{name}.json")))
            captures[name] = meta.get("strokes")
        if not last:
            shutil.rmtree(os.path.dirname(files), ignore_errors=True)

        if last:
            # The check boot: after the last cut's restart, the outbox is clean.
            final = {"fsck_host": status, "captures": len(complete), "bad": bad, "leftovers": leftovers,
                     "journal_strokes": datadisk.strokes_in(ops)}
            missing = [n for n in thanked if n not in complete]
            if bad or leftovers or missing:
                failures.append(f"after the last restart: damaged captures {bad}, leftovers {leftovers}, thanked but missing {missing}")
            break

        off = offset if offset is not None else 0.0
        at_cut = t_cut
        ages = [at_cut - (g + off) for g, _ in sig["new"]]       # s between each new stroke's tip-up and the cut
        required = sig["restored"] + sum(1 for a in ages if a > DURABLE_MS / 1000)
        cut.update({
            "restored_at_boot": sig["restored"], "new_strokes": len(ages), "ages_ms": [round(a * 1000) for a in ages],
            "required": required, "all": sig["restored"] + len(ages),
            "accepted_here": accepted_here, "pending": pending, "last_accepted": last_accepted,
            "thanked_all": list(thanked),
            "fsck_host": status, "fsck_host_output": output.splitlines(),
            "journal_strokes": datadisk.strokes_in(ops), "journal_problem": problem,
            "captures": captures, "bad": bad, "leftovers": leftovers, "storage_warning": seen["storage"],
            "serial_offset_ms": round(off * 1000, 1),
        })
        cuts.append(cut)
        previous = cut
        note(f"cut {boot + 1}/{opts.cuts}: {delay:.2f} s after the pen started; {cut['all']} strokes in the signature "
             f"({cut['required']} finished > {DURABLE_MS} ms before), {len(accepted_here)} thanked, "
             f"Accept pending: {'no' if pending is None else 'yes'}; on the disk: {cut['journal_strokes']} strokes in the journal, "
             f"{len(complete)} captures, {len(leftovers)} leftovers; e2fsck -fy exit {status}")

    elapsed = time.monotonic() - started
    if not thanked:
        failures.append("no signature was ever accepted: the cuts never met an Accept (longer --max-delay?)")
    report(cuts, final, failures, elapsed, opts)
    with open(os.path.join(result_dir, "results.json"), "w") as f:
        json.dump({"cuts": cuts, "final": final, "failures": failures, "seconds": round(elapsed, 1),
                   "seed": opts.seed, "iops": opts.iops}, f, indent=1)
    note(f"results {os.path.join(result_dir, 'results.json')}; consoles {result_dir}/boot-NN.log")
    if failures:
        for f in failures:
            note(f"FAIL: {f}")
        return 1
    note("PASS")
    return 0


# Captures an Accept finished before a cut came, its thank-you not yet shown: accepted all the
# same (the signer pressed Accept, the files are whole), so later cuts must not count them as strays.
ACCEPTED_AT_A_CUT = set()


def judge(c, failures):
    """The verdict on one cut, once the next boot has said what it restored."""
    problems = []
    j, r = c["journal_strokes"], c["restored"]
    complete = c["captures"]
    thanked_before = c["thanked_all"] + sorted(ACCEPTED_AT_A_CUT - set(c["thanked_all"]))
    # Thanked signatures are whole in the outbox (the thank-you came only once they were synced).
    missing = [n for n in thanked_before if n not in complete]
    if missing:
        problems.append(f"thanked for but not in the outbox: {missing}")
    if c["bad"]:
        problems.append(f"damaged captures: {c['bad']}")
    # An Accept the cut interrupted may have finished its files (not yet thanked): its capture counts.
    unthanked = {n: s for n, s in complete.items() if n not in thanked_before}
    if len(unthanked) > (1 if c["pending"] is not None else 0):
        problems.append(f"captures nobody accepted: {sorted(unthanked)}")
    elif c["pending"] is not None:
        ACCEPTED_AT_A_CUT.update(unthanked)
    in_capture = max(unthanked.values(), default=0)
    if c["leftovers"] and c["pending"] is None:
        problems.append(f"files of no capture though no Accept was running: {c['leftovers']}")
    # No finished stroke lost: in the journal, or in the capture of the Accept that was running.
    c["kept"] = max(j, in_capture)
    if c["kept"] < c["required"]:
        problems.append(f"LOST: {c['required']} strokes finished more than {DURABLE_MS} ms before the cut, "
                        f"{j} in the journal{f', {in_capture} in the capture being written' if unthanked else ''}")
    # Nothing that was never drawn; a signature thanked for must not come back either (its ink
    # would be signed over by the next customer).
    c["duplicate"] = bool(c["last_accepted"]) and j == c["last_accepted"] and j > c["all"]
    if j > c["all"] and not c["duplicate"]:
        problems.append(f"the journal holds {j} strokes, only {c['all']} were drawn")
    if c["duplicate"]:
        # The thank-you comes only once the journal's emptying is on disk.
        problems.append("a signature thanked for before the cut came back from the journal")
    if r is None:
        problems.append("the next boot's kiosk did not say what it restored")
    elif r != j:
        problems.append(f"the kiosk restored {r} strokes, the journal on the disk holds {j}")
    if c["journal_problem"]:
        c["torn_tail"] = c["journal_problem"]   # cut off by the kiosk with a warning: allowed
    if c["fsck_host"] >= 4:
        problems.append(f"e2fsck -fy on the host: exit {c['fsck_host']}")
    if c.get("fsck_guest") is None or c["fsck_guest"] >= 4:
        problems.append(f"/init's e2fsck -p at the next boot: exit {c.get('fsck_guest')}")
    if c["leftovers"] and sorted(c["leftovers"]) != sorted(c.get("swept") or []):
        problems.append(f"the next start did not remove the half capture: left {c['leftovers']}, removed {c.get('swept')}")
    if c["storage_warning"]:
        problems.append("the kiosk warned that it could not save ink")
    # Of the strokes younger than DURABLE_MS, how many were kept anyway, and the youngest kept.
    ages = c["ages_ms"]
    # (An accepted signature back from the journal is not this signature's strokes.)
    kept_new = 0 if c["duplicate"] else min(len(ages), max(0, c["kept"] - c["restored_at_boot"]))
    c["young"] = sum(1 for a in ages if a <= DURABLE_MS)
    c["young_kept"] = max(0, kept_new - sum(1 for a in ages if a > DURABLE_MS))
    c["youngest_kept_ms"] = ages[kept_new - 1] if 0 < kept_new <= len(ages) else None
    c["oldest_lost_ms"] = ages[kept_new] if kept_new < len(ages) else None
    c["problems"] = problems
    for p in problems:
        failures.append(f"cut {c['boot'] + 1}: {p}")


def report(cuts, final, failures, elapsed, opts):
    print()
    hdr = (f"{'cut':>3} {'at s':>6} {'drawn':>5} {'risk':>4} {'kept':>4} {'jrnl':>4} {'rest':>4} {'youngest kept':>13} "
           f"{'oldest lost':>11} {'thanked':>7} {'accept@cut':>10} {'captures':>8} {'half':>4} {'fsck host/boot':>14}  verdict")
    print(hdr)
    for c in cuts:
        acc = "-" if c["pending"] is None else ("saved" if any(n not in c["thanked_all"] for n in c["captures"]) else "unsaved")
        yk = "-" if c.get("youngest_kept_ms") is None else f"{c['youngest_kept_ms']} ms"
        ol = "-" if c.get("oldest_lost_ms") is None else f"{c['oldest_lost_ms']} ms"
        fs = f"{c['fsck_host']}/{c.get('fsck_guest')}"
        verdict = "ok" if not c.get("problems") else "FAIL"
        if c.get("duplicate"):
            verdict += " (accepted ink back)"
        print(f"{c['boot'] + 1:>3} {c['delay_s']:>6.2f} {c['all']:>5} {c['required']:>4} {c.get('kept', 0):>4} "
              f"{c['journal_strokes']:>4} {'' if c.get('restored') is None else c['restored']:>4} {yk:>13} {ol:>11} "
              f"{len(c['accepted_here']):>7} {acc:>10} {len(c['captures']):>8} {len(c['leftovers']):>4} {fs:>14}  {verdict}")
    print("(at s: cut after the pen started; drawn: strokes of the signature on screen at the cut (restored + new); risk: those")
    print(f" finished more than {DURABLE_MS} ms before it; kept: in the journal or in the capture being written; jrnl: strokes in")
    print(" the journal read on the host; rest: what the next boot's kiosk restored; youngest kept / oldest lost: tip-up → cut;")
    print(" accept@cut: an Accept was being written (saved: its capture is complete on the disk; unsaved: not, its ink must be")
    print(" in the journal); half: files of an unfinished capture after the cut, removed by the next start; fsck: e2fsck -fy of a copy")
    print(" on the host / /init's e2fsck -p at the next boot)")
    risk = sum(c["required"] for c in cuts)
    kept = sum(min(c.get("kept", 0), c["required"]) for c in cuts)
    young = sum(c.get("young", 0) for c in cuts)
    young_kept = sum(c.get("young_kept", 0) for c in cuts)
    youngest = [c["youngest_kept_ms"] for c in cuts if c.get("youngest_kept_ms") is not None]
    oldest_lost = [c["oldest_lost_ms"] for c in cuts if c.get("oldest_lost_ms") is not None]
    fsck_guest = sorted({c.get("fsck_guest") for c in cuts}, key=str)
    fsck_host = sorted({c["fsck_host"] for c in cuts})
    replays = sum(1 for c in cuts if any("recovering journal" in l for l in c.get("fsck_guest_lines", [])))
    print()
    print(f"summary: {len(cuts)} cuts in {elapsed:.0f} s (seed {opts.seed}, data disk {opts.iops or 'unlimited'} writes/s)")
    print(f"  strokes finished > {DURABLE_MS} ms before a cut: {risk}, kept {kept}")
    print(f"  strokes finished ≤ {DURABLE_MS} ms before a cut: {young}, kept anyway {young_kept}"
          + (f"; youngest kept {min(youngest)} ms" if youngest else "")
          + (f"; oldest not kept {max(oldest_lost)} ms" if oldest_lost else ""))
    print(f"  signatures thanked for: {sum(len(c['accepted_here']) for c in cuts)}, all whole in the outbox: "
          f"{'yes' if not any('thanked for but not' in f for f in failures) else 'NO'}; cuts during an Accept: "
          f"{sum(1 for c in cuts if c['pending'] is not None)} (its capture complete after the cut: "
          f"{sum(1 for c in cuts if c['pending'] is not None and any(n not in c['thanked_all'] for n in c['captures']))}); "
          f"half captures left by a cut: {sum(1 for c in cuts if c['leftovers'])}, all removed at the next start: "
          f"{'yes' if not any('did not remove' in f for f in failures) else 'NO'}")
    print(f"  accepted signatures back on screen after a cut (journal not yet emptied): {sum(1 for c in cuts if c.get('duplicate'))}")
    print(f"  e2fsck -p at boot: exit {fsck_guest} ({replays} replayed the file system's journal); e2fsck -fy of a copy on the host: exit {fsck_host}")
    print(f"  after the last restart: {final['captures']} complete captures, {len(final['leftovers'])} leftovers, "
          f"{len(final['bad'])} damaged; e2fsck -fy exit {final['fsck_host']}")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        note(f"FAIL: {e}")
        sys.exit(1)
