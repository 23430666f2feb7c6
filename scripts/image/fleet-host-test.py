#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The update agent against a real fleet server, on this machine (no VM):

    python3 scripts/image/fleet-host-test.py [--binary .build/debug/inkkiosk] [--keep]

goosebit (scripts/image/fleet-server.py, over TLS with its own CA) and `inkkiosk update-agent`
as a device would run it, with three stand-ins, because this proof has no disk image: the
kernel command line is a file (--cmdline: rauc.slot=, ik.version=), the boot id is a file
(--boot-id), and `update_command` is a small script in place of the image's ik-update that
records each call and exits 0 (RAUC's install and the reboot are not run). A "reboot" is the
agent started again with another command line and boot id. The VM proof uses the real RAUC,
ik-update and reboots; this one proves the agent's side of the protocol and of the server.

1. The device enrolls (its target token), polls, reports its attributes (goosebit learns its
   hardware from them, so the v2 can be assigned to it); the v2 is assigned.
2. The agent downloads the bundle (at 1 MB/s) and is killed (SIGKILL) halfway; started again,
   it resumes where the file ended (an HTTP Range), checks the hash, installs (the stand-in is
   called with the bundle), writes the pending record (mode 0600) and asks for the reboot.
3. "Reboot" into slot B with version 1.0.0+v2: the agent waits for the image's boot-confirmed
   file, reports nothing before it names B, then closed/success. The server: Finished, 1.0.0+v2.
4. A v3 is assigned: installed into slot A, "reboot" -- and slot B boots again (the boot loader
   fell back): the agent reports closed/failure with the reason. The server: Error, with it.
5. A second device runs 9.0.0 and is assigned the v2: refused as a downgrade, reported as a
   failure without a download or an install.

Every wait is for a line of the agent's log or a file, bounded; none is a fixed sleep.
Not in `make test` yet.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
fleet = __import__("fleet-server")

failures = []


def check(ok, what):
    print(f"{'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failures.append(what)


def make_bundle(directory, version, megabytes):
    """A RAUC-shaped bundle (a squashfs with manifest.raucm) for goosebit to read; not signed:
    the stand-in does not install it."""
    content = os.path.join(directory, f"content-{version}")
    os.makedirs(content)
    with open(os.path.join(content, "manifest.raucm"), "w") as f:
        f.write(f"[update]\ncompatible=inkkiosk-amd64-qemu\nversion={version}\n\n[bundle]\nformat=plain\n\n"
                f"[image.rootfs]\nfilename=rootfs.img\n")
    with open(os.path.join(content, "rootfs.img"), "wb") as f:
        f.write(os.urandom(megabytes << 20))
    bundle = os.path.join(directory, f"inkkiosk-{version}.raucb")
    subprocess.run(["mksquashfs", content, bundle, "-quiet", "-noappend"], check=True,
                   stdout=subprocess.DEVNULL)
    return bundle


class Device:
    """One device's files and its agent's runs."""

    def __init__(self, root, name, token, server, binary):
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir)
        self.name, self.binary, self.runs = name, binary, 0
        self.identity = os.path.join(self.dir, "identity")
        with open(self.identity, "w") as f:
            f.write(f"# enrolled by the test\ncontroller_id = {name}\ntarget_token = {token}\n")
        os.chmod(self.identity, 0o600)
        self.calls = os.path.join(self.dir, "ik-update.calls")
        self.command = os.path.join(self.dir, "ik-update")
        with open(self.command, "w") as f:
            f.write(f"#!/bin/sh\n# Stands in for the image's ik-update: records the call, installs and reboots nothing.\n"
                    f"echo \"$*\" >> {self.calls}\necho \"ik-update (stand-in): $1 done\"\nexit 0\n")
        os.chmod(self.command, 0o755)
        self.confirmed = os.path.join(self.dir, "boot-confirmed")
        self.pending = os.path.join(self.dir, "pending.json")
        self.download = os.path.join(self.dir, "download")
        self.config = os.path.join(self.dir, "inkkiosk.toml")
        with open(self.config, "w") as f:
            f.write(f'[update]\nserver = "{server["url"]}"\ntenant = "{server["tenant"]}"\nca_file = "{server["ca"]}"\n'
                    f'poll_interval = 5\nbackoff_max = 60\ndownload_limit = 1000000\nmax_bundle_mb = 64\n'
                    f'identity_file = "{self.identity}"\ndownload_dir = "{self.download}"\npending_file = "{self.pending}"\n'
                    f'update_command = "{self.command}"\nconfirmed_file = "{self.confirmed}"\nconfirm_wait = 60\n')
        with open(os.path.join(self.dir, "system.conf"), "w") as f:
            f.write("[system]\ncompatible=inkkiosk-amd64-qemu\nbootloader=grub\n")
        self.agent = None

    def boot(self, slot, version, boot_id):
        """Starts the agent as after a boot of `slot` with `version`; its log is run-N.log."""
        with open(os.path.join(self.dir, "cmdline"), "w") as f:
            f.write(f"BOOT_IMAGE=/bzImage panic=5 rauc.slot={slot} ik.version={version}\n")
        with open(os.path.join(self.dir, "boot_id"), "w") as f:
            f.write(boot_id + "\n")
        if os.path.exists(self.confirmed):
            os.unlink(self.confirmed)  # /run is empty after a reboot
        self.runs += 1
        self.log = os.path.join(self.dir, f"run-{self.runs}.log")
        self.agent = subprocess.Popen(
            [self.binary, "update-agent", "--config", self.config, "--cmdline", os.path.join(self.dir, "cmdline"),
             "--boot-id", os.path.join(self.dir, "boot_id"), "--rauc-system-conf", os.path.join(self.dir, "system.conf")],
            stdout=open(self.log, "w"), stderr=subprocess.STDOUT)

    def lines(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def wait_for(self, text, timeout=90):
        """The first log line holding `text`; fails (and stops) after `timeout` s or if the agent ended first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines():
                if text in line:
                    return line
            if self.agent.poll() is not None:
                for line in self.lines():  # written before it ended?
                    if text in line:
                        return line
                break
            time.sleep(0.1)
        print("\n".join(self.lines()[-20:]), file=sys.stderr)
        raise SystemExit(f"{self.name}: no log line with {text!r} within {timeout} s (agent "
                         f"{'ended with ' + str(self.agent.returncode) if self.agent.poll() is not None else 'still running'})")

    def wait_exit(self, timeout=30):
        try:
            return self.agent.wait(timeout)
        except subprocess.TimeoutExpired:
            raise SystemExit(f"{self.name}: the agent did not end within {timeout} s after asking for the reboot")

    def stop(self):
        if self.agent and self.agent.poll() is None:
            self.agent.send_signal(signal.SIGKILL)
            self.agent.wait()

    def recorded_calls(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            return f.read().splitlines()


def show(operator, name):
    view = operator.device(name)
    print(f"--- the server's view of {name}:")
    print(json.dumps(view, indent=2))
    return view


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(HERE, "..", "..", ".build", "debug", "inkkiosk"))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    root = tempfile.mkdtemp(prefix="inkkiosk-fleet-")
    process, server = fleet.start(os.path.join(root, "server"))
    operator = fleet.Operator(server).login()
    devices = []
    try:
        v2 = operator.upload(make_bundle(root, "1.0.0+v2", 6))
        v3 = operator.upload(make_bundle(root, "1.0.1", 1))
        bundle_size = os.path.getsize(os.path.join(root, "inkkiosk-1.0.0+v2.raucb"))

        # 1. Enrolment and attributes.
        device = Device(root, "kiosk-0042", "tok-0042-" + os.urandom(8).hex(), server, binary)
        devices.append(device)
        operator.enroll(device.name, open(device.identity).read().split("target_token = ")[1].strip())
        device.boot("A", "1.0.0", "boot-1")
        line = device.wait_for("reported the device's attributes")
        check("compatible=inkkiosk-amd64-qemu" in line and "slot=A" in line and "version=1.0.0" in line,
              f"the device reports its attributes when asked: {line}")
        view = operator.device(device.name)
        check(view["hardware"]["model"] == "inkkiosk-amd64-qemu" and view["sw_version"] == "1.0.0",
              f"goosebit knows its hardware and version from them ({view['hardware']['model']}, {view['sw_version']})")
        operator.assign(device.name, v2)

        # 2. The download, killed halfway, resumed.
        device.wait_for("action 1: downloading")
        part = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            parts = [f for f in os.listdir(device.download)] if os.path.isdir(device.download) else []
            part = parts and os.path.join(device.download, parts[0])
            if part and os.path.getsize(part) >= bundle_size // 3:
                break
            time.sleep(0.05)
        device.stop()
        cut = os.path.getsize(part)
        check(0 < cut < bundle_size, f"the agent killed (SIGKILL) with {cut} of {bundle_size} bytes downloaded")
        device.boot("A", "1.0.0", "boot-1")
        line = device.wait_for("action 1: downloaded")
        resumed = int(line.split("resumed at ")[1].rstrip(")")) if "resumed at" in line else 0
        check(resumed >= cut and f"downloaded {bundle_size} bytes" in line, f"started again, it resumed: {line}")
        device.wait_for("reboot asked for")
        check(device.wait_exit() == 0, "it ends once the reboot is asked for")
        calls = device.recorded_calls()
        check(len(calls) == 2 and calls[0].startswith("install " + device.download) and calls[1] == "reboot",
              f"ik-update was called to install the bundle, then to reboot: {calls}")
        check(not os.listdir(device.download), "the bundle was removed after its install")
        record = json.load(open(device.pending))
        mode = os.stat(device.pending).st_mode & 0o777
        check(record["targetSlot"] == "B" and record["targetVersion"] == "1.0.0+v2" and record["fromSlot"] == "A"
              and record["bootID"] == "boot-1" and mode == 0o600,
              f"the pending record names slot B and 1.0.0+v2 (mode {mode:o}): {record}")
        view = operator.device(device.name)
        check(view["last_state"] == "Running" and not any("success" in l for l in view["log"]),
              f"before the reboot the server has only 'proceeding' ({view['last_state']}: {view['log']})")

        # 3. The reboot into B; success only once B confirms itself.
        device.boot("B", "1.0.0+v2", "boot-2")
        device.wait_for("waiting up to 60 s for it to confirm its boot")
        check(operator.device(device.name)["last_state"] == "Running", "while B is unconfirmed nothing is reported")
        with open(device.confirmed, "w") as f:
            f.write("B\n")
        line = device.wait_for("action 1: success")
        device.wait_for("action 1: reported closed/success")
        check(not os.path.exists(device.pending), "the pending record is gone once the server took the report")
        view = show(operator, device.name)
        check(view["last_state"] == "Finished" and view["sw_version"] == "1.0.0+v2",
              f"the server: Finished, running 1.0.0+v2 ({view['last_state']}, {view['sw_version']})")

        # 4. A v3 whose slot never confirms: the boot loader falls back to B.
        operator.assign(device.name, v3)
        device.wait_for("action 2: reboot asked for")
        device.wait_exit()
        record = json.load(open(device.pending))
        check(record["targetSlot"] == "A" and record["targetVersion"] == "1.0.1", f"v3 went to slot A: {record}")
        device.boot("B", "1.0.0+v2", "boot-3")
        line = device.wait_for("action 2: failure")
        device.wait_for("action 2: reported closed/failure")
        check("fell back to slot B, running 1.0.0+v2" in line, f"the fallback is a failure with its reason: {line}")
        view = show(operator, device.name)
        check(view["last_state"] == "Error" and view["sw_version"] == "1.0.0+v2"
              and any("never confirmed its boot" in l for l in view["log"]),
              f"the server: Error, still 1.0.0+v2, the reason in its log ({view['last_state']})")
        device.stop()

        # 5. A downgrade, refused before any download.
        old = Device(root, "kiosk-0043", "tok-0043-" + os.urandom(8).hex(), server, binary)
        devices.append(old)
        operator.enroll(old.name, open(old.identity).read().split("target_token = ")[1].strip())
        old.boot("A", "9.0.0", "boot-1")
        old.wait_for("reported the device's attributes")
        operator.assign(old.name, v2)
        line = old.wait_for("failure: refused")
        old.wait_for("reported closed/failure")
        check("1.0.0+v2 is older than the running 9.0.0" in line and not old.recorded_calls()
              and not os.path.exists(old.download), f"a downgrade is refused, nothing downloaded or installed: {line}")
        view = show(operator, old.name)
        check(view["last_state"] == "Error" and any("downgrade" in l for l in view["log"]), "the server: Error, 'a downgrade'")
        old.stop()
    finally:
        for d in devices:
            d.stop()
        process.terminate()
        process.wait()
        if args.keep or failures:
            print(f"files kept in {root}")
        else:
            shutil.rmtree(root)
    print(f"{'FAILED: ' + str(len(failures)) if failures else 'passed'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
