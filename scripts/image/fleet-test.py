#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Updates from a fleet server, in QEMU: goosebit (hawkBit's DDI API, scripts/image/fleet-server.py)
on this machine's loopback over TLS, the disk image's update agent (`inkkiosk update-agent`,
started by boot.d/updates.sh once a boot is confirmed) reaching it through QEMU's user network.
A release that dies at start is installed, rolled back and reported as a failure; a good one is
installed, runs from slot B and is reported as a success; the data partition keeps its files.

    python3 scripts/image/fleet-test.py [--image out/image/inkkiosk-amd64.img]

Needs `make image` built for this proof's server, as scripts/image/test.sh builds it:
IMAGE_FLEET_SERVER=https://10.0.2.100 and IMAGE_FLEET_CA=out/keys/development/fleet/ca.pem (the
development fleet CA, `fleet-server.py ca`). 10.0.2.100 is a guestfwd address of QEMU's user
network: each connection the guest opens to port 443 there is joined to goosebit's port on the
host by scripts/image/tcp-relay.py, so the image's address stays fixed whatever port the test got.

What the test adds, only in its own copies: the device's identity (controller_id, target_token;
mode 0600, root's) written to the copy's data partition as the vendor's enrolment would, with a
file standing for the captures already there; ik_cmdline_extra in the copy's grubenv
(console on the serial port, ik.update.confirm_after=2). The releases: the image's slot made
with version <v>+v2 (update-test.py's v2_slot) and, from it, <v>+broken, whose config the
kiosk refuses (an unknown key in a later archive), so its kiosk exits at start: PID 1 gone, a
kernel panic, panic=5. Both are bundled and signed with the development key, uploaded to goosebit.

Boot 1 (A): A confirms itself, the agent polls, reports its attributes; then the operator assigns
<v>+broken; the agent downloads it, installs it into B (ik-update install: RAUC) and reboots.
Boot 2 (B, <v>+broken): the kiosk exits, the kernel panics; B is never confirmed.
Boot 3 (A): GRUB skips B (tried, unconfirmed); A confirms itself; the agent finds its pending
record, sees A booted where B was meant: failure, with the reason, to the server (goosebit:
Error). Then the operator assigns <v>+v2, forced (goosebit offers a device in state Error
nothing until an operator forces it): downloaded, installed into B, reboot.
Boot 4 (B, <v>+v2): B confirms itself; the agent reports success (goosebit: Finished, v2).
Then the data partition: the identity and the captures' file unchanged.

Every wait is for a serial line or QEMU's end, bounded. Prints the figures: bundle sizes, each
install's download and install time on the host's clock, reboot to first frame, the server's
view after each outcome. Exit status 0 pass, 1 fail, 2 setup error.
"""
import importlib.util
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bt = _load("ik_image_boot_test", "boot-test.py")
ut = _load("ik_image_update_test", "update-test.py")
fleet = _load("ik_image_fleet_server", "fleet-server.py")

FLEET_ADDRESS = "10.0.2.100"            # the image's IMAGE_FLEET_SERVER=https://10.0.2.100
FLEET_CA_DIR = os.path.join(ROOT, "out", "keys", "development", "fleet")
DEVICE = "ik-fleet-test-0001"
CONFIRM_AFTER_S = 2
# What a release the kiosk refuses looks like: its config names a key the kiosk does not know.
BROKEN_CONFIG = "# TEST ONLY (scripts/image/fleet-test.py): a release whose config the kiosk refuses.\n[display]\nno_such_key = 1\n"
CAPTURES = "captures/fleet-test-before.txt"


def note(msg):
    print(f"image-fleet-test: {msg}", flush=True)


def image_config(slot):
    """The kiosk's config in the slot's update engine archive (the one the image runs with)."""
    archive = subprocess.run(["debugfs", "-R", "cat /updates.cpio.zst", slot], check=True, capture_output=True).stdout
    files = subprocess.run(["sh", "-c", "zstd -dc | cpio -i --quiet --to-stdout etc/inkkiosk/inkkiosk.toml"],
                           input=archive, check=True, capture_output=True).stdout
    return files.decode()


def partition(disk, part, out):
    """Copies partition `part` of `disk` to the file `out`."""
    table = json.loads(subprocess.run(["sfdisk", "--json", disk], check=True, capture_output=True).stdout)
    p = table["partitiontable"]["partitions"][part - 1]
    subprocess.run(["dd", f"if={disk}", f"of={out}", "bs=512", f"skip={p['start']}", f"count={p['size']}",
                    "status=none"], check=True)
    return out


def debugfs(fs, *commands, write=False):
    """Runs debugfs commands on a file system image; its output. debugfs reports failures on
    stderr with a zero exit status: any such line is an error here."""
    args = ["debugfs"] + (["-w"] if write else []) + ["-f", "-", fs]
    done = subprocess.run(args, input="\n".join(commands) + "\n", capture_output=True, text=True)
    errors = [l for l in done.stderr.splitlines() if l.strip() and not l.startswith("debugfs ")]
    if done.returncode != 0 or errors:
        raise SystemExit(f"image-fleet-test: debugfs {fs}: {'; '.join(errors) or done.returncode}")
    # It echoes each command read from its input ("debugfs: cat …") before the command's output.
    return "".join(l for l in done.stdout.splitlines(keepends=True) if not l.startswith("debugfs: "))


def data_files(disk, rundir):
    """The names at the top of the copy's data partition and in its update/ directory."""
    data = partition(disk, 4, os.path.join(rundir, "data-now.ext4"))
    names = set()
    for where in ("/", "/update"):
        for line in debugfs(data, f"ls -p {where}").splitlines():
            fields = line.strip().strip("/").split("/")
            if len(fields) >= 5 and fields[4] not in (".", ".."):
                names.add(f"{where.rstrip('/')}/{fields[4]}")
    return names


def enrol(disk, rundir, token):
    """The vendor's enrolment, on the copy's data partition: the identity (0600, root's) and a
    file standing for the captures a kiosk has made. Returns the captures' text."""
    data = partition(disk, 4, os.path.join(rundir, "data.ext4"))
    identity = os.path.join(rundir, "identity")
    with open(identity, "w") as f:
        f.write(f"# enrolled by scripts/image/fleet-test.py\ncontroller_id = {DEVICE}\ntarget_token = {token}\n")
    captures = os.path.join(rundir, "captures.txt")
    text = f"captures made before the updates: {secrets.token_hex(16)}\n"
    with open(captures, "w") as f:
        f.write(text)
    debugfs(data, "mkdir update", f"write {identity} update/identity", "sif update/identity mode 0100600",
            "sif update/identity uid 0", "sif update/identity gid 0", "mkdir captures", f"write {captures} {CAPTURES}",
            write=True)
    ut.put_partition(disk, 4, data)
    return text


def bundle(slot, out):
    """The slot as a signed bundle (scripts/image/bundle.sh, the development key): its path."""
    made = subprocess.run([os.path.join(HERE, "bundle.sh"), slot], env=dict(os.environ, BUNDLE_OUT=out), check=True,
                          capture_output=True, text=True)
    return made.stdout.strip().splitlines()[-1]


class Operator:
    """The operator's side, in time with the guest: assigns software when the guest's log says so,
    and keeps what the server showed."""

    def __init__(self, info):
        self.api = fleet.Operator(info).login()
        self.views = {}
        self.marks = {}

    def mark(self, name):
        self.marks[name] = time.monotonic()

    def assign(self, software, when, force=False):
        def act(_match):
            self.mark(when)
            self.api.login().assign(DEVICE, software, force=force)
            note(f"assigned software {software} to {DEVICE} ({when})")
        return act

    def look(self, name, then=None):
        def act(_match):
            self.mark(name)
            self.views[name] = self.api.login().device(DEVICE)
            note(f"the server's view ({name}): {json.dumps(self.views[name])}")
            if then:
                then(_match)
        return act


def between(marks, a, b):
    return round(marks[b] - marks[a], 1) if a in marks and b in marks else None


def main():
    ap = bt.arguments("Install releases from a fleet server (goosebit): a broken one rolled back, a good one kept.", "fleet-test")
    ap.add_argument("--install-timeout", type=float, default=600, help="seconds after the first frame for a poll, download, install and reboot (default 600)")
    opts = ap.parse_args()

    found = bt.image_and_slot(opts, "image-fleet-test")
    if found is None:
        return 2
    image, slot = found
    out = os.path.dirname(image)
    config = image_config(slot)
    if f'server = "https://{FLEET_ADDRESS}"' not in config or "ca_file" not in config:
        note(f"error: {image} was not built for this proof's fleet server: build it with IMAGE_FLEET_SERVER=https://{FLEET_ADDRESS} "
             f"IMAGE_FLEET_CA=$(python3 scripts/image/fleet-server.py ca {os.path.relpath(FLEET_CA_DIR, ROOT)}) scripts/image/build.sh "
             "(scripts/image/test.sh does)")
        return 2
    boot_dir = os.path.realpath(opts.boot_dir or os.path.join(out, "fleet-test"))
    shutil.rmtree(boot_dir, ignore_errors=True)
    os.makedirs(boot_dir)
    rundir = tempfile.mkdtemp(prefix="inkkiosk-fleet-")
    problems, results, figures = [], [], {}
    server = None
    try:
        version = ut.slot_version(slot)
        t = time.monotonic()
        good_slot = ut.v2_slot(slot, rundir)
        good = ut.slot_version(good_slot)
        broken = f"{version}+broken"
        broken_slot = ut.test_slot(good_slot, None, os.path.join(rundir, "broken.ext4"), rundir,
                                   files={"etc/inkkiosk/inkkiosk.toml": BROKEN_CONFIG}, version=broken)
        bundles = {good: bundle(good_slot, os.path.join(rundir, "bundle-good")),
                   broken: bundle(broken_slot, os.path.join(rundir, "bundle-broken"))}
        figures["bundle_bytes"] = {v: os.path.getsize(b) for v, b in bundles.items()}
        note(f"releases {broken} and {good} made and signed in {time.monotonic() - t:.1f} s")

        process, info = fleet.start(os.path.join(rundir, "server"), poll="00:00:05", ca_dir=FLEET_CA_DIR,
                                    addresses=(FLEET_ADDRESS, "127.0.0.1"))
        server = process
        port = int(info["url"].rsplit(":", 1)[1])
        operator = Operator(info)
        token = secrets.token_hex(16)   # goosebit takes at most 32 characters
        operator.api.enroll(DEVICE, token)
        software = {v: operator.api.upload(b) for v, b in bundles.items()}
        note(f"goosebit has {DEVICE} enrolled and the software {software}")

        disk = os.path.join(rundir, "disk.img")
        subprocess.run(["cp", "--sparse=always", image, disk], check=True)
        captures = enrol(disk, rundir, token)
        bt.grubenv_set(disk, rundir, ik_cmdline_extra=f"{bt.test_cmdline(opts)} ik.update.confirm_after={CONFIRM_AFTER_S}")
        net = f"guestfwd=tcp:{FLEET_ADDRESS}:443-cmd:{sys.executable} {os.path.join(HERE, 'tcp-relay.py')} {port}"
        if "," in net:
            note(f"error: {net!r} has a comma, which QEMU's option parser would split")
            return 2

        def run(n, expect, **kw):
            fig, probs = bt.boot(n, disk, expect, opts, rundir, boot_dir, net=net, **kw)
            results.append(fig)
            problems.extend(f"boot {n}: {p}" for p in probs)
            return fig, probs

        def agent_steps(release):
            return [(r"action \S+: downloading ", lambda m: operator.mark(f"download {release}")),
                    (r"action \S+: installing ", lambda m: operator.mark(f"install {release}")),
                    (r"action \S+: installed into slot B", lambda m: operator.mark(f"installed {release}")),
                    (r"action \S+: rebooting into slot B", lambda m: operator.mark(f"reboot {release}"))]

        # Boot 1: A registers; the broken release is assigned, installed, rebooted into.
        _, probs = run(1, "A", expect_exit=True, until_timeout=opts.install_timeout, expect_version=version,
                       on_line=[(r"reported the device's attributes", operator.look("registered", operator.assign(software[broken], "assign broken")))]
                       + agent_steps(broken))
        # What the kiosk made in A's first boot, and the identity (the agent's pending record goes
        # once its outcome is reported).
        kiosk_files = data_files(disk, rundir) - {"/update/pending.json"}
        env = bt.grubenv_read(disk)
        if not probs and (env.get("ORDER") != "B A" or env.get("B_OK") != "1" or env.get("B_TRY") != "0"):
            problems.append(f"after the install of {broken}: ORDER={env.get('ORDER')} B_OK={env.get('B_OK')} B_TRY={env.get('B_TRY')}, not B A, 1, 0")
        if not problems:
            # Boot 2: B with the broken release: the kiosk exits, the kernel panics.
            fig, _ = run(2, "B", expect_panic=True, expect_version=broken,
                         on_line=[(r"no_such_key", lambda m: figures.setdefault("broken_kiosk_line", m.string.strip()))])
            if "broken_kiosk_line" not in figures:
                problems.append("boot 2: the kiosk's word on its config (no_such_key) never reached the serial port")
        if not problems:
            # Boot 3: A again; the failure reported; the good release assigned, installed, rebooted into.
            run(3, "A", expect_exit=True, until_timeout=opts.install_timeout, expect_version=version,
                on_line=[(r"action \S+: failure: ", lambda m: figures.setdefault("failure_line", m.string.strip())),
                         (r"action \S+: reported closed/failure", operator.look("after the rollback", operator.assign(software[good], "assign good", force=True)))]
                + agent_steps(good))
            view = operator.views.get("after the rollback")
            if view is None:
                problems.append("boot 3: the agent never said it reported the failure (reported closed/failure)")
            else:
                if view["last_state"] != "Error":
                    problems.append(f"the server's state after the rollback is {view['last_state']}, not Error")
                if not any("fell back" in l or "booted" in l for l in view["log"]):
                    problems.append(f"the server's log after the rollback does not say why: {view['log']}")
        if not problems:
            # Boot 4: B with the good release, confirmed; success reported.
            run(4, "B", expect_version=good, until=r"action \S+: reported closed/success", until_timeout=opts.install_timeout,
                on_line=[(r"action \S+: reported closed/success", operator.look("after the update"))])
            view = operator.views.get("after the update")
            if view is None:
                problems.append("boot 4: the agent never said it reported the success (reported closed/success)")
            elif view["last_state"] != "Finished" or view["sw_version"] != good:
                problems.append(f"the server's view after the update: {view['last_state']}, {view['sw_version']}; not Finished, {good}")
        if not problems:
            data = partition(disk, 4, os.path.join(rundir, "data-after.ext4"))
            kept = debugfs(data, f"cat {CAPTURES}")
            if kept != captures:
                problems.append(f"the data partition's {CAPTURES} is {kept!r} after the updates, not {captures!r}")
            identity_stat = debugfs(data, "stat update/identity")
            if "Mode:  0600" not in identity_stat and "Mode: 0600" not in identity_stat:
                problems.append(f"the identity's mode changed: {identity_stat.splitlines()[:3]}")
            gone = kiosk_files - data_files(disk, rundir)
            if gone:
                problems.append(f"files of the data partition after boot 1 are gone after the updates: {sorted(gone)}")
            figures["data_files_kept"] = sorted(kiosk_files)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
            shutil.copy(os.path.join(rundir, "server", "goosebit.log"), os.path.join(boot_dir, "goosebit.log"))
        shutil.rmtree(rundir, ignore_errors=True)

    marks = operator.marks if server is not None else {}
    figures["server_views"] = operator.views if server is not None else {}
    figures["times_s"] = {
        f"{what} {release}": between(marks, a.format(r=release), b.format(r=release))
        for release in (f"{version}+broken", f"{version}+v2")
        for what, a, b in (("download", "download {r}", "install {r}"), ("install", "install {r}", "installed {r}"))
    }
    print()
    for v, size in figures.get("bundle_bytes", {}).items():
        print(f"bundle {v}: {size} bytes ({size / 1e6:.1f} MB)")
    for k, v in figures["times_s"].items():
        print(f"{k}: {v} s (host clock, from the agent's lines)")
    for r in results:
        ff = f"{r['first_frame_s']:.2f} s" if r["first_frame_s"] is not None else "none"
        print(f"boot {r['boot']}: slot {r['slot']}, first frame {ff} after QEMU start" + (f", kernel panic at {r['panic_s']:.2f} s" if r.get("panic_s") else ""))
    for name, view in figures["server_views"].items():
        print(f"server, {name}: state {view['last_state']}, version {view['sw_version']}, log: {' | '.join(view['log'][-3:])}")
    if "failure_line" in figures:
        print(f"agent: {figures['failure_line']}")
    return bt.finish("image-fleet-test", results, figures, boot_dir, problems)


if __name__ == "__main__":
    sys.exit(main())
