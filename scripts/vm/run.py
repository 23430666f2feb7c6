#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs one command inside the inkkiosk test VM and exits with its status.

    scripts/vm/run.py [options] -- COMMAND_PATH [ARGS...]

The VM is QEMU (software emulation) booting Debian's own kernel with a tiny initramfs
(fetch-kernel.sh, build-initramfs.sh, guest-init.sh). The guest runs the HOST's root file
system read-only over 9p (so the host's binaries, libraries, python3-evdev and libinput run
unchanged), with its own /dev, /proc, /sys, /run, /tmp, systemd-udevd, a bochs DRM card
(/dev/dri/card0, default mode 1280x800) and /dev/uinput. COMMAND_PATH is a host path;
relative paths are taken from the current directory.

The work directory (--work, default a fresh /tmp/inkkiosk-vm-XXXX) is shared WRITABLE at the
same absolute path; the guest command finds it in $IK_WORK. Screenshots: the guest runs
`vm-shot NAME` (scripts/vm is on the guest command's PATH), this script saves the screen
through QMP screendump as WORK/shots/NAME.png and the guest continues. `vm-unplug ID` asks
QEMU to remove the device with that id (QMP device_del: a USB stick pulled out).

Exit status: the guest command's status; 124 on timeout; 125 when the VM failed (boot, setup,
QEMU error); 130 when interrupted. Standard library only.
"""

import argparse
import collections
import json
import os
import re
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = "vm| "
# An optional second word names the QEMU display device to dump (a second card, -device ...,id=NAME).
SHOT_RE = re.compile(r"@@IK-SHOT ([A-Za-z0-9._-]{1,100})(?: ([A-Za-z0-9_-]{1,40}))?@@")
EXIT_RE = re.compile(r"@@IK-EXIT (-?\d+)@@")
START_RE = re.compile(r"@@IK-START@@")
INITFAIL_RE = re.compile(r"@@IK-INIT-FAILED@@")
MONITOR_RE = re.compile(r"@@IK-MONITOR (\d{1,5})x(\d{1,5})@@")
UNPLUG_RE = re.compile(r"@@IK-UNPLUG ([A-Za-z0-9_-]{1,40})@@")


def note(msg):
    print(f"run.py: {msg}", flush=True)


def prepare(script, timeout=1800):
    """Runs fetch-kernel.sh / build-initramfs.sh and returns the path it prints."""
    try:
        out = subprocess.run([os.path.join(HERE, script)], stdout=subprocess.PIPE,
                             timeout=timeout, check=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"run.py: {script} failed (status {e.returncode})")
    except subprocess.TimeoutExpired:
        raise SystemExit(f"run.py: {script} took more than {timeout} s")
    lines = [l for l in out.splitlines() if l.strip()]
    if not lines or not os.path.isfile(lines[-1]):
        raise SystemExit(f"run.py: {script} printed no file path: {out!r}")
    return lines[-1]


def pvh_kernel(vmlinuz):
    """The uncompressed ELF vmlinux inside vmlinuz, cached next to it, when the kernel can
    boot it directly (CONFIG_PVH=y): QEMU then skips the bzImage self-decompression, which
    takes about 2.5 s under software emulation. Falls back to vmlinuz."""
    import lzma
    kver = os.path.basename(vmlinuz).replace("vmlinuz-", "", 1)
    boot = os.path.dirname(vmlinuz)
    config = os.path.join(boot, f"config-{kver}")
    cached = os.path.join(boot, f"vmlinux-{kver}")
    try:
        if "CONFIG_PVH=y\n" not in open(config).read():
            return vmlinuz
        if os.path.exists(cached) and os.path.getmtime(cached) >= os.path.getmtime(vmlinuz):
            return cached
        data = open(vmlinuz, "rb").read()
        at = data.find(b"\xfd7zXZ\x00")
        if at < 0:
            return vmlinuz
        elf = lzma.LZMADecompressor().decompress(data[at:])
        if elf[:4] != b"\x7fELF":
            return vmlinuz
        tmp = f"{cached}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(elf)
        os.replace(tmp, cached)
        return cached
    except (OSError, lzma.LZMAError):
        return vmlinuz


class QMP:
    """A minimal QMP client over a unix socket."""

    def __init__(self, path, deadline):
        self.sock = None
        self.buf = b""
        while True:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(10)
                s.connect(path)
                self.sock = s
                break
            except OSError:
                s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self._read()  # greeting
        self.execute("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("QMP connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command, **arguments):
        msg = {"execute": command}
        if arguments:
            msg["arguments"] = arguments
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._read()
            if "event" in reply:
                continue
            if "error" in reply:
                raise RuntimeError(f"QMP {command}: {reply['error'].get('desc', reply['error'])}")
            return reply.get("return")

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None


def swap_monitor(vnc_path, width, height, timeout=10):
    """Plugs another monitor into the second screen: a VNC client's SetDesktopSize (RFB 3.8,
    ExtendedDesktopSize) makes QEMU tell the virtio-gpu driver the output's new size and EDID
    (its preferred mode), and the guest gets a hotplug event. 0x0 disables the output: the
    guest sees the connector disconnected. Returns QEMU's answer: 4, "request forwarded" (to
    the card), is success; 3 means the display device cannot be resized."""
    import struct
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(vnc_path)

    def read(n):
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                raise OSError("the VNC server closed the connection")
            data += chunk
        return data
    try:
        read(12)
        s.sendall(b"RFB 003.008\n")
        types = read(read(1)[0])
        if 1 not in types:
            raise OSError(f"the VNC server wants authentication ({list(types)})")
        s.sendall(b"\x01")
        if struct.unpack(">I", read(4))[0] != 0:
            raise OSError("VNC security handshake failed")
        s.sendall(b"\x01")   # shared
        read(20)
        read(struct.unpack(">I", read(4))[0])
        s.sendall(struct.pack(">BxHi", 2, 1, -308))   # SetEncodings: ExtendedDesktopSize
        s.sendall(struct.pack(">BxHHBx", 251, width, height, 1) + struct.pack(">IHHHHI", 0, 0, 0, width, height, 0))
        # The answer: a FramebufferUpdate with an ExtendedDesktopSize rectangle whose y is the status.
        while True:
            kind = read(1)[0]
            if kind != 0:
                raise OSError(f"unexpected VNC message {kind}")
            count = struct.unpack(">xH", read(3))[0]
            for _ in range(count):
                x, y, w, h, enc = struct.unpack(">HHHHi", read(12))
                if enc == -308:
                    screens = read(4)[0]
                    read(16 * screens)
                    if x == 1:   # a reply to our request (x = 1), y the status
                        return y
                else:
                    raise OSError(f"unexpected VNC rectangle encoding {enc}")
    finally:
        s.close()


def quit_qemu(proc, qmp, timeout):
    """Asks QEMU to quit over QMP (if connected), waits up to `timeout` s, then kills it."""
    if qmp is not None:
        try:
            qmp.execute("quit")
        except Exception:  # noqa: BLE001 - QEMU may already be gone
            pass
        qmp.close()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def check_path(kind, path):
    # The path goes on the kernel command line (space separated, no quoting) and into QEMU
    # options (where ',' must be doubled).
    if re.search(r"[\s\"']", path):
        raise SystemExit(f"run.py: the {kind} path must not contain spaces or quotes: {path!r}")
    return path


def write_wrapper(work, command, args, envs):
    """Writes WORK/.ik/cmd.sh, the script the guest's init runs; it holds the arguments
    quoted for /bin/sh so that nothing has to pass through the kernel command line."""
    ikdir = os.path.join(work, ".ik")
    os.makedirs(ikdir, exist_ok=True)
    if "/" in command:
        command = os.path.abspath(command)
    cwd = os.getcwd()
    lines = [
        "#!/bin/sh",
        "# Written by scripts/vm/run.py: the command the test VM runs.",
        f"export PATH={shlex.quote(HERE)}:\"$PATH\"",
        f"export IK_WORK={shlex.quote(work)}",
        f"export IK_SHOTS={shlex.quote(os.path.join(work, 'shots'))}",
    ]
    for kv in envs:
        k, _, v = kv.partition("=")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
            raise SystemExit(f"run.py: bad --env {kv!r} (want NAME=VALUE)")
        lines.append(f"export {k}={shlex.quote(v)}")
    lines += [
        f"cd {shlex.quote(cwd)} 2>/dev/null || cd /",
        "exec " + " ".join(shlex.quote(a) for a in [command, *args]),
        "",
    ]
    path = os.path.join(ikdir, "cmd.sh")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    os.chmod(path, 0o755)
    return path, command


def main():
    ap = argparse.ArgumentParser(
        description="Run a command in the inkkiosk test VM (QEMU + Debian kernel + host root over 9p).",
        usage="%(prog)s [options] -- COMMAND_PATH [ARGS...]")
    ap.add_argument("--work", help="work directory shared writable with the guest at the same path "
                                   "(default: a fresh /tmp/inkkiosk-vm-XXXX, kept afterwards)")
    ap.add_argument("--timeout", type=float, default=300, help="hard limit for the VM run in seconds (default 300)")
    ap.add_argument("--memory", type=int, default=1024, help="guest memory in MB (default 1024)")
    ap.add_argument("--smp", type=int, default=2, help="guest CPUs (default 2)")
    ap.add_argument("--log", help="console log file (default WORK/console.log)")
    ap.add_argument("--resolution", default="1280x800",
                    help="preferred mode the virtual monitor's EDID announces (default 1280x800)")
    ap.add_argument("--second-screen", metavar="WxH",
                    help="a second card (virtio-gpu, QEMU id 'screen2', /dev/dri/card1) whose monitor the guest "
                         "can swap at run time (`vm-monitor WxH`; 0x0 unplugs it)")
    ap.add_argument("--accel", default=os.environ.get("INKKIOSK_VM_ACCEL", "tcg"),
                    help="QEMU accelerator: tcg (default; software) or kvm")
    ap.add_argument("--kmsg", type=int, default=1,
                    help="guest console log level while the command runs (default 1: kernel "
                         "emergencies only; 4 shows errors and warnings). The whole kernel log "
                         "is saved in WORK/.ik/dmesg.txt either way")
    ap.add_argument("--host-cache", default="loose", choices=["loose", "none", "mmap"],
                    help="9p cache mode for the host root in the guest: loose (default; fast) or "
                         "none (slower, but sees host files that change during the run); the work "
                         "directory is always uncached")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="environment variable for the guest command (repeatable)")
    ap.add_argument("--append", default="", help="extra kernel command line parameters")
    ap.add_argument("--qemu", action="append", default=[], metavar="ARG",
                    help="extra QEMU argument (repeatable, e.g. --qemu=-device --qemu=usb-tablet)")
    ap.add_argument("--quiet", action="store_true", help="do not stream the guest console to stdout")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND_PATH [ARGS...]")
    opts = ap.parse_args()
    cmd = opts.command[1:] if opts.command[:1] == ["--"] else opts.command
    if not cmd:
        ap.error("no command given (… -- COMMAND_PATH [ARGS...])")
    m = re.fullmatch(r"(\d+)x(\d+)", opts.resolution)
    if not m:
        ap.error("--resolution wants WIDTHxHEIGHT")
    xres, yres = int(m.group(1)), int(m.group(2))

    qemu_bin = shutil.which("qemu-system-x86_64")
    vmlinuz = prepare("fetch-kernel.sh")  # also installs qemu & co. when missing
    initrd = prepare("build-initramfs.sh")
    kernel = vmlinuz if os.environ.get("INKKIOSK_VM_BZIMAGE") else pvh_kernel(vmlinuz)
    qemu_bin = qemu_bin or shutil.which("qemu-system-x86_64") or "/usr/bin/qemu-system-x86_64"

    if "/" in cmd[0]:
        # The guest mounts its own file systems over these; only the work dir shows through.
        command = os.path.realpath(cmd[0])
        inside_work = opts.work and (command + "/").startswith(os.path.realpath(opts.work) + "/")
        for hidden in ("/tmp", "/run", "/var/tmp", "/dev", "/proc", "/sys"):
            if (command + "/").startswith(hidden + "/") and not inside_work:
                raise SystemExit(f"run.py: {command} is under {hidden}, which the guest replaces with its "
                                 "own file system; put it in the --work directory or elsewhere")
        if not os.path.exists(command):
            note(f"warning: {command} does not exist on the host")

    if opts.work:
        work = os.path.realpath(opts.work)
        os.makedirs(work, exist_ok=True)
    else:
        work = os.path.realpath(tempfile.mkdtemp(prefix="inkkiosk-vm-", dir="/tmp"))
    check_path("work", work)
    shots = os.path.join(work, "shots")
    os.makedirs(shots, exist_ok=True)
    wrapper, command = write_wrapper(work, cmd[0], cmd[1:], opts.env)
    log_path = os.path.realpath(opts.log) if opts.log else os.path.join(work, "console.log")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)

    try:
        os.unlink(os.path.join(work, ".ik", "dmesg.txt"))  # the guest writes a new one
    except FileNotFoundError:
        pass

    rundir = tempfile.mkdtemp(prefix="inkkiosk-qemu-")
    qmp_path = os.path.join(rundir, "qmp.sock")
    q = lambda p: p.replace(",", ",,")  # QEMU option escaping
    append = " ".join(filter(None, [
        "console=ttyS0 loglevel=4 panic=-1 mitigations=off",
        f"ik.work={work} ik.cmd={wrapper} ik.kmsg={opts.kmsg} ik.hostcache={opts.host_cache}",
        opts.append,
    ]))
    argv = [
        qemu_bin, "-nodefaults", "-no-user-config",
        "-machine", "pc", "-accel", opts.accel,
        "-m", str(opts.memory), "-smp", str(opts.smp),
        "-display", "none", "-no-reboot",
        "-kernel", kernel, "-initrd", initrd, "-append", append,
        "-device", f"VGA,xres={xres},yres={yres},vgamem_mb=64",
        "-device", "virtio-rng-pci",
        "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
        "-virtfs", f"local,path={q(work)},mount_tag=work,security_model=none",
        "-chardev", "stdio,id=ser0,signal=off", "-serial", "chardev:ser0",
        "-qmp", f"unix:{q(qmp_path)},server=on,wait=off",
        *opts.qemu,
    ]
    vnc_path = os.path.join(rundir, "vnc.sock")
    if opts.second_screen:
        w2, h2 = (int(v) for v in opts.second_screen.split("x"))
        argv += ["-device", f"virtio-gpu-pci,id=screen2,xres={w2},yres={h2}",
                 "-vnc", f"unix:{q(vnc_path)},display=screen2"]

    logf = open(log_path, "w", encoding="utf-8", errors="replace")
    logf.write("# " + " ".join(shlex.quote(a) for a in argv) + "\n")
    logf.flush()

    t0 = time.monotonic()
    deadline = t0 + opts.timeout
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    status = None
    reason = None
    t_start = None
    shots_taken = []
    qmp = None
    init_failed = False
    exit_seen = None

    recent = collections.deque(maxlen=40)

    def out(line, prefix=PREFIX):
        recent.append(prefix + line)
        # The log gets the host time since QEMU started in front of each line.
        logf.write(f"{time.monotonic() - t0:8.3f} {'|' if prefix == PREFIX else '!'} {line}\n")
        logf.flush()
        if not opts.quiet:
            sys.stdout.write(prefix + line + "\n")
            sys.stdout.flush()

    def get_qmp():
        nonlocal qmp
        if qmp is None:
            qmp = QMP(qmp_path, min(deadline, time.monotonic() + 15))
        return qmp

    def screenshot(name, device=None):
        png = os.path.join(shots, name + ".png")
        for ext in (".done", ".failed"):
            try:
                os.unlink(os.path.join(shots, name + ext))
            except FileNotFoundError:
                pass
        try:
            get_qmp().execute("screendump", filename=png, format="png", **({"device": device} if device else {}))
            with open(os.path.join(shots, name + ".done"), "w") as f:
                f.write(png + "\n")
            shots_taken.append(png)
            note(f"screenshot {png}")
        except Exception as e:  # noqa: BLE001 - reported to the guest and the user
            with open(os.path.join(shots, name + ".failed"), "w") as f:
                f.write(f"{e}\n")
            note(f"screenshot {name} failed: {e}")

    def stop_qemu(grace):
        if proc.poll() is None:
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=5)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "serial")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    bufs = {"serial": b"", "stderr": b""}
    open_streams = 2

    def handle(kind, raw):
        nonlocal status, t_start, init_failed, exit_seen
        line = raw.decode("utf-8", "replace").replace("\r", "")
        if kind == "stderr":
            out(line, prefix="qemu! ")
            return
        out(line)
        if t_start is None and START_RE.search(line):
            t_start = time.monotonic()
        if INITFAIL_RE.search(line):
            init_failed = True
        for mm in MONITOR_RE.finditer(line):
            size = f"{mm.group(1)}x{mm.group(2)}"
            try:
                answer = swap_monitor(vnc_path, int(mm.group(1)), int(mm.group(2)))
                result = "done" if answer in (0, 4) else "failed"
                detail = f"status {answer}"
            except Exception as e:  # noqa: BLE001 - reported to the guest and the user
                result, detail = "failed", str(e)
            with open(os.path.join(shots, f".monitor-{size}.{result}"), "w") as f:
                f.write(detail + "\n")
            note(f"second screen: monitor {size}: {result} ({detail})")
        for mm in UNPLUG_RE.finditer(line):
            # A device pulled out (a USB stick): QEMU removes it, the guest's driver sees it go.
            device = mm.group(1)
            try:
                get_qmp().execute("device_del", id=device)
                result, detail = "done", "device_del"
            except Exception as e:  # noqa: BLE001 - reported to the guest and the user
                result, detail = "failed", str(e)
            with open(os.path.join(shots, f".unplug-{device}.{result}"), "w") as f:
                f.write(detail + "\n")
            note(f"unplugged {device}: {result} ({detail})")
        for mm in SHOT_RE.finditer(line):
            screenshot(mm.group(1), mm.group(2))
        mm = EXIT_RE.search(line)
        if mm and status is None:
            status = int(mm.group(1))
            exit_seen = time.monotonic()

    try:
        note(f"booting (accel {opts.accel}, {opts.memory} MB, {opts.smp} CPUs, timeout {opts.timeout:g} s); "
             f"work {work}")
        while open_streams:
            now = time.monotonic()
            if now >= deadline:
                reason = "timeout"
                break
            if exit_seen is not None and now >= exit_seen + 15:
                reason = "no-poweroff"
                break
            for key, _ in sel.select(timeout=min(0.5, deadline - now)):
                kind = key.data
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    open_streams -= 1
                    if bufs[kind]:
                        handle(kind, bufs[kind])
                        bufs[kind] = b""
                    continue
                bufs[kind] += chunk
                while b"\n" in bufs[kind]:
                    raw, bufs[kind] = bufs[kind].split(b"\n", 1)
                    handle(kind, raw)
    except KeyboardInterrupt:
        reason = "interrupted"

    if reason == "timeout":
        note(f"TIMEOUT after {opts.timeout:g} s; saving the screen and stopping QEMU")
        try:
            if qmp is not None or os.path.exists(qmp_path):
                screenshot("timeout")
        except Exception:  # noqa: BLE001
            pass
    stop_qemu(grace=0 if reason in ("timeout", "interrupted") else 15)
    if qmp is not None:
        qmp.close()
    shutil.rmtree(rundir, ignore_errors=True)
    total = time.monotonic() - t0

    if reason == "timeout":
        code = 124
    elif reason == "interrupted":
        code = 130
    elif init_failed:
        note("the guest could not be set up (see the ik-init lines above)")
        code = 125
    elif status is None:
        note(f"QEMU ended (status {proc.returncode}) without the guest reporting an exit status")
        code = 125
    else:
        code = status
    if opts.quiet and (code == 124 or (code == 125 and (init_failed or status is None))):
        note("the last lines of the console:")
        print("\n".join(recent), flush=True)
    logf.close()

    if t_start is not None:
        note(f"guest command started {t_start - t0:.1f} s after QEMU start; total {total:.1f} s")
    else:
        note(f"total {total:.1f} s")
    note(f"console log: {log_path}")
    dmesg = os.path.join(work, ".ik", "dmesg.txt")
    if os.path.exists(dmesg):
        note(f"kernel log: {dmesg}")
    taken = [os.path.basename(p) for p in shots_taken]
    note(f"screenshots: {shots}/ ({', '.join(taken) if taken else 'none taken in this run'})")
    note(f"exit status {code}")
    return code


if __name__ == "__main__":
    sys.exit(main())
