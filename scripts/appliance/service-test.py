#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Proves deploy/install.sh and deploy/systemd/inkkiosk.service on a real systemd boot.

    python3 scripts/appliance/service-test.py [--binary .build/release/inkkiosk] [--timeout 300]

QEMU (TCG) boots Debian's kernel (scripts/vm's) with the test VM's initramfs plus a second
archive appended to it whose /init (written below) makes a writable copy of the HOST's root
file system (9p, read-only, under a tmpfs overlay), runs `deploy/install.sh BINARY` in it as an
administrator would on a board (chroot, no --root), adds a test-only reporter unit, and
switch_roots into systemd (multi-user.target). Then, on that real systemd:

  up         inkkiosk.service runs as user inkkiosk on tty1; the screen is white paper
             (every pixel); getty@tty1 is disabled and not running; the process has no
             capabilities, NoNewPrivs, a seccomp filter; /usr and /etc are read-only for it
             and /var/lib/inkkiosk writable
  stroke     a uinput pen (scripts/vm/uinput_devices.py) draws one stroke: ink on the screen
             (libinput as a non-root user in the input group, DeviceAllow=char-input), and
             the stroke journal written to /var/lib/inkkiosk
  switched   root asks for VT 2 (VT_ACTIVATE): tty1 stays active, the screen unchanged
  restarted  `systemctl kill -s SIGKILL`: Restart= brings the kiosk back with a new PID, and
             the journal brings the stroke back (same pixels as before the kill)
  hung       SIGSTOP: the kiosk's loop stops pinging the watchdog; systemd kills it and
             starts a new one within WatchdogSec + TimeoutAbortSec + RestartSec, the ink back
  service    the service keys (a uinput keyboard): the kiosk exits with status 10, systemd does
             not restart it, and getty@tty1 runs again
  stopped    `systemctl stop`: the kiosk gives tty1 back in text mode (the screen is no longer
             white)

The reporter (test-only, /etc/systemd/system/ik-report.service in the VM's throw-away overlay)
prints its findings on the serial console with @@IK-REPORT-…@@ markers; this script takes a
QMP screendump at each step. Screendumps, the console log and the findings go to --work
(default out/appliance/service-test/). Exit status 0 pass, 1 fail, 2 setup error.
Standard library only (python3-evdev inside the VM, from the host root).
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
_spec = importlib.util.spec_from_file_location("ik_vm_run", os.path.join(ROOT, "scripts", "vm", "run.py"))
vmrun = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vmrun)
_spec = importlib.util.spec_from_file_location("ik_boot_test", os.path.join(HERE, "boot-test.py"))
boottest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(boottest)

# Units of the host image that have nothing to do in the VM (and slow its boot); masked on the
# kernel command line, so nothing of the host's configuration is edited for the test.
MASK = ["postgresql.service", "systemd-timesyncd.service", "apt-daily.timer", "apt-daily-upgrade.timer",
        "dpkg-db-backup.timer", "e2scrub_all.timer", "e2scrub_reap.service", "fstrim.timer", "man-db.timer",
        "systemd-pstore.service", "systemd-networkd-wait-online.service"]

INIT = r"""#!/bin/sh
# /init of scripts/appliance/service-test.py (appended to the test VM's initramfs).
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
say() { echo "ik-service-test: $*"; }
fail() { say "FAILED: $*"; echo "@@IK-REPORT-DONE fail@@"; sleep 1; poweroff -f; }
for arg in $(cat /proc/cmdline); do
    case $arg in
        ik.repo=*) REPO=${arg#ik.repo=} ;;
        ik.bin=*) BIN=${arg#ik.bin=} ;;
    esac
done
while read -r m; do insmod "/lib/modules/$m.ko" 2>/dev/null; done </etc/modules.order
grep -q "^overlay " /proc/modules || insmod /lib/modules/overlay.ko || fail "insmod overlay"
mkdir -p /lower /rw /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro hostroot /lower || fail "9p host root"
mount -t tmpfs -o mode=755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot || fail "overlay"
N=/newroot
for d in proc sys dev run tmp; do mkdir -p $N/$d; done
mount -t proc proc $N/proc
mount -t sysfs sysfs $N/sys
mount -t devtmpfs devtmpfs $N/dev
mount -t tmpfs tmpfs $N/run
say "deploy/install.sh $BIN (in the VM's copy of the host root, as root, no --root)"
chroot $N /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    "$REPO/deploy/install.sh" "$BIN" || fail "deploy/install.sh failed"
# test-only: the reporter
cp /ik/ik-report.sh $N/usr/local/sbin/ik-report
chmod 755 $N/usr/local/sbin/ik-report
cp /ik/ik-report.service $N/etc/systemd/system/ik-report.service
chroot $N systemctl enable ik-report.service || fail "enable ik-report"
umount $N/proc $N/sys $N/dev $N/run
umount /proc /sys
say "switch_root to systemd"
exec switch_root $N /lib/systemd/systemd
fail "switch_root"
"""

REPORT_UNIT = """[Unit]
Description=service-test reporter (test only)
After=inkkiosk.service multi-user.target
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/ik-report
Environment=IK_REPO={repo}
StandardOutput=file:/dev/ttyS0
StandardError=file:/dev/ttyS0
[Install]
WantedBy=multi-user.target
"""

REPORT = r"""#!/bin/bash
# test-only reporter of scripts/appliance/service-test.py; the host takes a screendump after
# each @@IK-REPORT-…@@ marker, hence the pauses.
say() { echo "ik-report: $*"; }
running() { [ "$(systemctl show -P SubState inkkiosk.service)" = running ]; }
for i in $(seq 1 240); do running && break; sleep 0.25; done
if ! running; then
    say "inkkiosk.service is not running"
    systemctl status inkkiosk.service --no-pager 2>&1 | sed 's/^/ik-report: /'
    journalctl -b -u inkkiosk.service --no-pager -o cat | sed 's/^/ik-report: journal: /'
    echo "@@IK-REPORT-DONE fail@@"
    exit 1
fi
sleep 2
pid=$(systemctl show -P MainPID inkkiosk.service)
say "inkkiosk.service: $(systemctl is-enabled inkkiosk.service) $(systemctl is-active inkkiosk.service) MainPID=$pid"
say "getty@tty1.service: $(systemctl is-enabled getty@tty1.service 2>&1) $(systemctl is-active getty@tty1.service 2>&1)"
say "process: $(ps -o user=,group=,supgrp=,tty=,args= -p "$pid")"
grep -E '^(Uid|Gid|Groups|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' "/proc/$pid/status" | tr -s '\t' ' ' | sed 's/^/ik-report: status /'
say "tty1: $(stat -c '%U:%G %a' /dev/tty1)"
gids=$(awk '/^Groups:/ {$1=""; print}' "/proc/$pid/status")
say "group names: $(for g in $gids; do getent group "$g" | cut -d: -f1; done | paste -sd' ')"
probe='for d in /usr /etc /etc/inkkiosk /var/lib/inkkiosk /tmp; do if touch "$d/.ik-probe" 2>/dev/null; then rm -f "$d/.ik-probe"; printf "%s rw; " "$d"; else printf "%s ro; " "$d"; fi; done; printf "/home: %s entries" "$(ls -A /home 2>/dev/null | wc -l)"'
say "its mount namespace, as root: $(nsenter -t "$pid" -m sh -c "$probe")"
say "its mount namespace, as uid $(stat -c %u /proc/$pid): $(nsenter -t "$pid" -m -S "$(stat -c %u /proc/$pid)" -G "$(stat -c %g /proc/$pid)" sh -c "$probe")"
say "outside: /home: $(ls -A /home | wc -l) entries"
say "$(systemd-analyze security inkkiosk.service --no-pager 2>&1 | tail -n 1)"
journalctl -b -u inkkiosk.service --no-pager -o cat | sed 's/^/ik-report: journal: /'
echo "@@IK-REPORT-UP pid=$pid@@"
sleep 3
/usr/bin/python3 - <<'EOF'
import os, sys, time
sys.path.insert(0, os.path.join(os.environ["IK_REPO"], "scripts", "vm"))
from uinput_devices import Pen
pen = Pen()
time.sleep(1.5)
pen.hover_in(0.2, 0.5, distance=0.3)
pen.stroke([(0.2, 0.5), (0.4, 0.62), (0.6, 0.38), (0.8, 0.5)], pressure=0.7)
pen.out()
time.sleep(1.0)
pen.destroy()
EOF
sleep 1
say "state directory: $(ls -ln /var/lib/inkkiosk | tail -n +2 | awk '{print $1, $3":"$4, $5, $9}' | paste -sd';') (uid of inkkiosk: $(id -u inkkiosk))"
journalctl -b -u inkkiosk.service --no-pager -o cat | grep -E 'input device' | sed 's/^/ik-report: journal: /'
echo "@@IK-REPORT-STROKE@@"
sleep 3
/usr/bin/python3 - <<'EOF'
import fcntl, os, struct, time
fd = os.open("/dev/tty0", os.O_RDWR)
active = lambda: struct.unpack("HHH", fcntl.ioctl(fd, 0x5603, b"\0" * 6))[0]  # VT_GETSTATE
before = active()
fcntl.ioctl(fd, 0x5606, 2)  # VT_ACTIVATE: switch to tty2
time.sleep(1.0)
print(f"ik-report: VT switch: active VT {before}, after VT_ACTIVATE 2 as root: {active()}", flush=True)
EOF
echo "@@IK-REPORT-SWITCHED@@"
sleep 3
t0=$(date +%s%N)
systemctl kill -s SIGKILL inkkiosk.service
new=$pid
for i in $(seq 1 200); do
    new=$(systemctl show -P MainPID inkkiosk.service)
    [ "$new" != 0 ] && [ "$new" != "$pid" ] && running && break
    sleep 0.05
done
say "killed MainPID $pid with SIGKILL; running again as MainPID $new after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
sleep 2
journalctl -b -u inkkiosk.service --no-pager -o cat | grep -E 'journal|Main process exited|Scheduled restart' | tail -n 3 | sed 's/^/ik-report: journal: /'
echo "@@IK-REPORT-RESTARTED pid=$new@@"
sleep 3
# A hung kiosk (SIGSTOP: its loop stops pinging the watchdog): systemd kills it and starts a
# new one, which brings the ink back from the journal.
pid=$new
t0=$(date +%s%N)
kill -STOP "$pid"
for i in $(seq 1 600); do
    new=$(systemctl show -P MainPID inkkiosk.service)
    [ "$new" != 0 ] && [ "$new" != "$pid" ] && break
    sleep 0.05
done
started=$(( ($(date +%s%N) - t0) / 1000000 ))
for i in $(seq 1 600); do running && break; sleep 0.05; done
say "hung: stopped MainPID $pid with SIGSTOP; the watchdog had it replaced by MainPID $new after $started ms (ready after $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
say "unit: $(systemctl show -p Type -p NotifyAccess -p WatchdogUSec -p TimeoutAbortUSec -p RestartUSec inkkiosk.service | paste -sd' ')"
for i in $(seq 1 100); do journalctl -b -u inkkiosk.service --no-pager -o cat | grep -q "first frame" && [ "$(systemctl show -P StatusText inkkiosk.service)" != "" ] && break; sleep 0.1; done
sleep 2
say "status: $(systemctl show -P StatusText inkkiosk.service)"
journalctl -b -u inkkiosk.service --no-pager -o cat | grep -iE 'watchdog' | tail -n 2 | sed 's/^/ik-report: journal: /'
echo "@@IK-REPORT-HUNG pid=$new@@"
sleep 3
# A technician's service keys: the kiosk stops with status 10, systemd leaves it stopped and
# tty1 gets its login prompt back.
sed -i 's/^service_keys = ""/service_keys = "ctrl+alt+shift+s"/' /etc/inkkiosk/inkkiosk.toml
systemctl restart inkkiosk.service
for i in $(seq 1 100); do running && break; sleep 0.1; done
sleep 2
/usr/bin/python3 - <<'EOF'
import os, sys, time
sys.path.insert(0, os.path.join(os.environ["IK_REPO"], "scripts", "vm"))
from uinput_devices import Device
from evdev import ecodes as e
class Keyboard(Device):
    NAME = "Logitech USB Keyboard"
    VENDOR, PRODUCT = 0x046D, 0xC31C
    def capabilities(self):
        return {e.EV_KEY: list(range(e.KEY_ESC, e.KEY_COMPOSE + 1))}
kb = Keyboard()
time.sleep(2.0)
keys = [e.KEY_LEFTCTRL, e.KEY_LEFTALT, e.KEY_LEFTSHIFT, e.KEY_S]
for k in keys:
    kb.write(e.EV_KEY, k, 1); kb.sync()
time.sleep(0.2)
for k in reversed(keys):
    kb.write(e.EV_KEY, k, 0); kb.sync()
time.sleep(3.0)
kb.destroy()
EOF
say "service keys: inkkiosk $(systemctl is-active inkkiosk.service) (exit status $(systemctl show -P ExecMainStatus inkkiosk.service)), getty@tty1 $(systemctl is-active getty@tty1.service)"
systemctl stop getty@tty1.service
systemctl start inkkiosk.service
for i in $(seq 1 100); do running && break; sleep 0.1; done
sleep 2
systemctl stop inkkiosk.service
say "after systemctl stop: $(systemctl is-active inkkiosk.service)"
echo "@@IK-REPORT-STOPPED@@"
sleep 3
echo "@@IK-REPORT-DONE ok@@"
"""


def note(msg):
    print(f"service-test: {msg}", flush=True)


def build_initrd(rundir, repo):
    """The test VM's initramfs (busybox, 9p, bochs, uinput, …) + an archive with our /init."""
    base = vmrun.prepare("build-initramfs.sh")
    vmlinuz = vmrun.prepare("fetch-kernel.sh")
    kver = os.path.basename(vmlinuz).replace("vmlinuz-", "", 1)
    kdir = os.path.join(os.path.dirname(os.path.dirname(vmlinuz)), "lib", "modules", kver)
    overlay = subprocess.run(["find", kdir, "-name", "overlay.ko*"], stdout=subprocess.PIPE, text=True,
                             check=True).stdout.split()
    if not overlay:
        raise SystemExit(f"service-test: no overlay.ko in {kdir}")
    stage = os.path.join(rundir, "extra")
    os.makedirs(os.path.join(stage, "lib", "modules"))
    os.makedirs(os.path.join(stage, "ik"))
    src = overlay[0]
    dst = os.path.join(stage, "lib", "modules", "overlay.ko")
    if src.endswith(".xz"):
        subprocess.run(f"xz -dc {shlex.quote(src)} > {shlex.quote(dst)}", shell=True, check=True)
    elif src.endswith(".zst"):
        subprocess.run(f"zstd -qdc {shlex.quote(src)} > {shlex.quote(dst)}", shell=True, check=True)
    else:
        shutil.copy(src, dst)
    for name, text, mode in [("init", INIT, 0o755), ("ik/ik-report.sh", REPORT, 0o755),
                             ("ik/ik-report.service", REPORT_UNIT.format(repo=repo), 0o644)]:
        p = os.path.join(stage, name)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, mode)
    extra = os.path.join(rundir, "extra.cpio.gz")
    subprocess.run(f"cd {shlex.quote(stage)} && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1 > {shlex.quote(extra)}",
                   shell=True, check=True)
    initrd = os.path.join(rundir, "initrd.cpio.gz")
    with open(initrd, "wb") as out:
        for part in (base, extra):
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)
    return vmrun.pvh_kernel(vmlinuz), initrd


def main():
    ap = argparse.ArgumentParser(description="deploy/install.sh + inkkiosk.service on a real systemd boot in QEMU.")
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "inkkiosk"))
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "appliance", "service-test"))
    ap.add_argument("--timeout", type=float, default=400)
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--quiet", action="store_true", help="do not stream the serial console")
    opts = ap.parse_args()
    binary = os.path.realpath(opts.binary)
    if not os.access(binary, os.X_OK):
        note(f"error: {binary} is not an executable")
        return 2
    work = os.path.realpath(opts.work)
    os.makedirs(work, exist_ok=True)
    for f in os.listdir(work):
        if f.endswith(".png"):
            os.unlink(os.path.join(work, f))
    rundir = tempfile.mkdtemp(prefix="inkkiosk-service-test-")
    kernel, initrd = build_initrd(rundir, ROOT)
    qmp_path = os.path.join(rundir, "qmp.sock")
    append = " ".join(["console=ttyS0", "loglevel=4", "panic=-1", "mitigations=off",
                       "systemd.unit=multi-user.target", "systemd.show_status=auto",
                       *[f"systemd.mask={u}" for u in MASK],
                       f"ik.repo={ROOT}", f"ik.bin={binary}"])
    argv = [
        shutil.which("qemu-system-x86_64") or "/usr/bin/qemu-system-x86_64", "-nodefaults", "-no-user-config",
        "-machine", "pc", "-accel", opts.accel, "-m", "1536", "-smp", "2",
        "-display", "none", "-no-reboot",
        "-kernel", kernel, "-initrd", initrd, "-append", append,
        "-device", "VGA,xres=1280,yres=800,vgamem_mb=64",
        "-device", "virtio-rng-pci",
        "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
        "-chardev", "stdio,id=ser0,signal=off", "-serial", "chardev:ser0",
        "-qmp", f"unix:{qmp_path},server=on,wait=off",
    ]
    log_path = os.path.join(work, "console.log")
    logf = open(log_path, "w", encoding="utf-8", errors="replace")
    logf.write("# " + " ".join(shlex.quote(a) for a in argv) + "\n")
    note(f"booting systemd on a copy of the host root; binary {binary}")
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    qmp = None
    shots = {}
    report = []
    done = None
    buf = b""

    def shot(name):
        nonlocal qmp
        if qmp is None:
            qmp = vmrun.QMP(qmp_path, time.monotonic() + 10)
        ppm = os.path.join(rundir, name + ".ppm")
        qmp.execute("screendump", filename=ppm, format="ppm")
        qmp.execute("screendump", filename=os.path.join(work, name + ".png"), format="png")
        w, h, px = boottest.read_ppm(ppm)
        count, box = boottest.non_white(w, h, px)
        shots[name] = {"t": round(time.monotonic() - t0, 2), "non_white": count, "box": box,
                       "white_share": round(boottest.white_fraction(px), 4), "pixels": px}
        note(f"screendump {name}.png at {shots[name]['t']} s: {count} non-white pixels, box {box}")

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        while done is None:
            if time.monotonic() - t0 > opts.timeout:
                note(f"TIMEOUT after {opts.timeout:g} s")
                try:
                    shot("timeout")
                except Exception as e:  # noqa: BLE001
                    note(f"screendump failed: {e}")
                break
            if not sel.select(timeout=0.5):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                line = raw.decode("utf-8", "replace").replace("\r", "")
                now = time.monotonic() - t0
                logf.write(f"{now:8.3f} | {line}\n")
                logf.flush()
                if not opts.quiet:
                    print(f"vm| {line}", flush=True)
                if "ik-report:" in line or "ik-service-test:" in line:
                    report.append(line[line.index("ik-"):])
                m = re.search(r"@@IK-REPORT-(UP|STROKE|SWITCHED|RESTARTED|HUNG|STOPPED|DONE)\b[^@]*@@", line)
                if m:
                    if m.group(1) == "DONE":
                        done = "ok" if "DONE ok" in line else "fail"
                    else:
                        shot(m.group(1).lower())
    except KeyboardInterrupt:
        note("interrupted")
    vmrun.quit_qemu(proc, qmp, timeout=10)
    logf.close()
    total = time.monotonic() - t0

    text = "\n".join(report)
    problems = []
    if done != "ok":
        problems.append(f"the reporter did not finish (done={done})")

    def want(cond, msg):
        if not cond:
            problems.append(msg)

    if "up" in shots:
        want(shots["up"]["non_white"] == 0, f"up: {shots['up']['non_white']} non-white pixels (console text or cursor showing)")
    else:
        problems.append("no screendump of the running kiosk")
    if "stroke" in shots:
        want(shots["stroke"]["non_white"] > 300, f"stroke: only {shots['stroke']['non_white']} non-white pixels: no ink")
    if "restarted" in shots and "stroke" in shots:
        diff = sum(1 for a, b in zip(shots["stroke"]["pixels"][0::3], shots["restarted"]["pixels"][0::3]) if a != b)
        shots["restarted"]["differs_from_stroke"] = diff
        want(diff == 0, f"restarted: {diff} pixels differ from the screen before the kill (journal not restored?)")
    if "hung" in shots and "stroke" in shots:
        diff = sum(1 for a, b in zip(shots["stroke"]["pixels"][0::3], shots["hung"]["pixels"][0::3]) if a != b)
        want(diff == 0, f"hung: {diff} pixels differ from the screen before the kiosk hung (journal not restored?)")
    hung = re.search(r"hung: stopped MainPID (\d+) with SIGSTOP; the watchdog had it replaced by MainPID (\d+) after (\d+) ms", text)
    # WatchdogSec=5, TimeoutAbortSec=1 (SIGABRT cannot stop a stopped process; SIGKILL follows), RestartSec=1:
    # 7 s, and up to 2 s more for systemd's stop and start path under software emulation.
    want(hung and hung.group(1) != hung.group(2) and int(hung.group(3)) <= 9000,
         "a hung (SIGSTOPped) kiosk was not replaced within WatchdogSec + TimeoutAbortSec + RestartSec (7 s, 9 s emulated)")
    unit = re.search(r"unit: (.*)", text)
    want(unit and all(p in unit.group(1).split() for p in ("Type=notify", "NotifyAccess=main", "WatchdogUSec=5s")),
         "the unit is not Type=notify with a 5 s watchdog")
    want(re.search(r"status: Idle: \d+ strokes", text), "systemd has no status line from the kiosk")
    if "stopped" in shots:
        want(shots["stopped"]["white_share"] < 0.5, "stopped: the screen is still white (text mode not restored?)")
    m = re.search(r"status Uid: (\d+)", text)
    want(m and m.group(1) != "0", "the kiosk runs as root")
    want(re.search(r"process: inkkiosk ", text), "the process does not run as user inkkiosk")
    want(re.search(r"status CapEff: 0000000000000000", text) and re.search(r"status CapBnd: 0000000000000000", text),
         "the kiosk has capabilities")
    want(re.search(r"VT switch: active VT 1, after VT_ACTIVATE 2 as root: 1", text), "a VT switch away from the kiosk was not refused")
    if "switched" in shots and "stroke" in shots:
        diff = sum(1 for a, b in zip(shots["stroke"]["pixels"][0::3], shots["switched"]["pixels"][0::3]) if a != b)
        want(diff == 0, f"switched: {diff} pixels differ from the screen before the VT switch request")
    want(re.search(r"service keys: inkkiosk inactive \(exit status 10\), getty@tty1 active", text),
         "the service keys did not stop the kiosk for good with a login prompt on tty1")
    want(re.search(r"status NoNewPrivs: 1", text), "NoNewPrivs is not set")
    want(re.search(r"status Seccomp: 2", text), "no seccomp filter")
    want(re.search(r"getty@tty1.service: disabled inactive", text), "getty@tty1 is enabled or running")
    ns_root = re.search(r"its mount namespace, as root: (.*)", text)
    ns_user = re.search(r"its mount namespace, as uid \d+: (.*)", text)
    want(ns_root and "/usr ro;" in ns_root.group(1) and "/etc ro;" in ns_root.group(1)
         and "/etc/inkkiosk ro;" in ns_root.group(1), "/usr, /etc or /etc/inkkiosk is writable in the kiosk's namespace")
    want(ns_user and "/var/lib/inkkiosk rw;" in ns_user.group(1) and "/tmp rw;" in ns_user.group(1),
         "/var/lib/inkkiosk or its private /tmp is not writable for the kiosk's user")
    want(re.search(r"state directory: -rw------- \d+:\d+ [1-9]\d* journal\.inkj", text), "no stroke journal in /var/lib/inkkiosk")
    want(re.search(r"running again as MainPID \d+", text) and not re.search(r"MainPID (\d+) with SIGKILL; running again as MainPID \1\b", text),
         "not restarted after SIGKILL")
    for s in shots.values():
        s.pop("pixels", None)
    with open(os.path.join(work, "findings.json"), "w") as f:
        json.dump({"report": report, "shots": shots, "problems": problems, "seconds": round(total, 1)}, f, indent=2)
    shutil.rmtree(rundir, ignore_errors=True)
    print()
    for line in report:
        print("  " + line)
    note(f"console log {log_path}; screendumps in {work}/")
    note(f"total {total:.1f} s")
    if problems:
        for p in problems:
            note(f"FAIL: {p}")
        return 1
    note("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
