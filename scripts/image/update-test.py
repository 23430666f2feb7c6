#!/usr/bin/env python3
"""An update in QEMU: the disk image boots slot A, installs a signed v2 bundle from a USB stick
into slot B with RAUC (the power cut the first time, while RAUC writes the slot), boots B,
confirms it, and boots B again.

    python3 scripts/image/update-test.py [--image out/image/inkkiosk-amd64.img] [--timeout 180]

Needs `make image` (and its development keys, out/keys/development). What the test adds, and
only in its own copies: a test archive (/ik-test/hook, run by the appliance's ik.appliance.test=1
hook once PID 1 is the kiosk) appended to the initrds of slot A and of the v2 slot, and
ik_cmdline_extra in the copy's grubenv (scripts/image/boot-test.py). The v2 is the image's slot
rebuilt by scripts/image/build.sh with IMAGE_VERSION=<version>+v2 and bundled by
scripts/image/bundle.sh (signed with the development key, checked with `rauc info`); the stick is
a second virtio disk, vfat, with the bundle on it.

The stick also holds four bundles the device must refuse (RAUC's own checks): signed by another
CA's key, for another board (compatible inkkiosk-amd64-otherboard), truncated (the last 4 KiB
cut off), altered (one byte of the payload changed: found by dm-verity while it is copied).
Slot A's hook tries each before the real one: each must exit non-zero, and the log line says why.

Every boot is confirmed by the image itself (boot.d/updates.sh: `rauc status mark-good` once the
kiosk has been ready for ik.update.confirm_after seconds, here 2); the hooks wait for it.

Boot 0 (slot A; --no-powercut skips it): once A is confirmed, the hook tries the four bad bundles,
then `ik-update install /run/stick/update.raucb` (rauc install once the kiosk has no
session: its busy file is absent); QEMU is killed
(SIGKILL: a power cut) as soon as RAUC says it is copying the image into slot B. The
environment block must then say B_OK=0 (RAUC marked B unbootable before writing it) with A first.
Boot 1: A again (the cut must not cost the device its running system); the same hook; passes
when the install says rc=0 and the environment block then reads ORDER="B A" B_OK=1 B_TRY=0.
Boot 2: GRUB must take B, whose command line says ik.version=<v2>; the kiosk's first frame; the
image confirms B: B_TRY=0 afterwards, and the kernel log says so (ik-updates: slot B: boot
confirmed).
Boot 3: B again (confirmed, so not skipped).
Prints: bundle size, the install's time on the guest's clock, each boot's figures.
Exit status 0 pass, 1 fail, 2 setup error.
"""

import argparse
import gzip
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location("ik_image_boot_test", os.path.join(HERE, "boot-test.py"))
bt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bt)

# The image confirms its own boots (boot.d/updates.sh: the kiosk still ready and holding the screen
# ik.update.confirm_after s after its ready file, here 2, then /run/inkkiosk/boot-confirmed): the hooks wait for it.
CONFIRM_AFTER_S = 2
WAIT_FOR_CONFIRMATION = """PATH=/usr/bin:/usr/sbin
for a in $(cat /proc/cmdline); do case $a in rauc.slot=*) slot=${a#rauc.slot=} ;; esac; done
i=0
until [ -s /run/inkkiosk/boot-confirmed ]; do
    i=$((i + 1))
    [ "$i" -le 600 ] || { echo "@@IK-UPDATE slot $slot never confirmed@@"; exit 1; }
    sleep 0.2
done
echo "@@IK-UPDATE confirmed slot=$slot@@"
"""

HOOK_INSTALL = "#!/bin/sh\n# TEST ONLY (scripts/image/update-test.py): slot A's hook.\n" + WAIT_FOR_CONFIRMATION + """
mkdir -p /run/stick
mount -t vfat -o ro /dev/vdb /run/stick || echo "@@IK-UPDATE the stick (/dev/vdb) did not mount@@"
for b in REFUSED; do
    rauc install "/run/stick/$b.raucb" >/run/refused.log 2>&1
    rc=$?
    cat /run/refused.log
    why=
    while IFS= read -r l; do case $l in "LastError: "*) why=${l#LastError: } ;; esac; done </run/refused.log
    echo "@@IK-REFUSED $b rc=$rc why=$why@@"
done
echo "@@IK-UPDATE installing update.raucb@@"
read -r t0 _ </proc/uptime
ik-update install /run/stick/update.raucb
rc=$?
read -r t1 _ </proc/uptime
sync
rauc status --detailed
echo "@@IK-UPDATE install rc=$rc start=$t0 end=$t1@@"
"""

# Each bad bundle, and what RAUC's error (its LastError) must say: refused for the right reason.
REFUSED = {
    "other-key": "signature verification failed",        # not under the device's CA
    "other-board": "Compatible mismatch",                # inkkiosk-amd64-otherboard
    "truncated": "Invalid bundle format",                # the signature at the end is cut
    "altered": "Input/output error",                     # dm-verity: "data block … is corrupted"
}
HOOK_INSTALL = HOOK_INSTALL.replace("for b in REFUSED;", "for b in " + " ".join(REFUSED) + ";")

HOOK_CONFIRM = "#!/bin/sh\n# TEST ONLY (scripts/image/update-test.py): the v2 slot's hook.\n" + WAIT_FOR_CONFIRMATION + """
rauc status
"""


def note(msg):
    print(f"image-update-test: {msg}", flush=True)


def cpio_newc(files):
    """A gzip'd newc cpio archive of {path: (mode, bytes)} (directories: bytes None)."""
    out = io.BytesIO()
    ino = 1

    def entry(name, mode, data):
        nonlocal ino
        nb = name.encode() + b"\0"
        hdr = "070701" + "".join(f"{v:08X}" for v in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nb), 0))
        ino += 1
        out.write(hdr.encode() + nb)
        out.write(b"\0" * ((4 - (110 + len(nb)) % 4) % 4))
        out.write(data)
        out.write(b"\0" * ((4 - len(data) % 4) % 4))
    for name, (mode, data) in sorted(files.items()):
        entry(name, mode, data if data is not None else b"")
    entry("TRAILER!!!", 0, b"")
    return gzip.compress(out.getvalue())


def test_slot(src, hook, dst, rundir):
    """The slot file system `src` with a test archive holding `hook` as /ik-test/hook, added to its
    initrds; written to `dst` (mke2fs -d, as scripts/image/build.sh makes slots)."""
    tree = tempfile.mkdtemp(prefix="slot-", dir=rundir)
    subprocess.run(["debugfs", "-R", f"rdump / {tree}", src], check=True, capture_output=True)
    shutil.rmtree(os.path.join(tree, "lost+found"), ignore_errors=True)
    with open(os.path.join(tree, "ik-test.cpio.gz"), "wb") as f:
        f.write(cpio_newc({"ik-test": (0o40755, None), "ik-test/hook": (0o100755, hook.encode())}))
    cfg = os.path.join(tree, "slot.cfg")
    text = open(cfg).read()
    text, n = re.subn(r'(set ik_slot_initrds="[^"]*)"', r'\1 ik-test.cpio.gz"', text)
    if n != 1:
        raise SystemExit(f"update-test: {src}: slot.cfg has no ik_slot_initrds line")
    open(cfg, "w").write(text)
    size_kb = (sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(tree) for f in fs) // 1024 * 11 // 10 + 4096 + 1023) // 1024 * 1024
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096", "-L", "inkslot",
                    "-O", "^metadata_csum_seed,^orphan_file,^has_journal", "-E", "root_owner=0:0",
                    "-d", tree, dst, f"{size_kb}k"], check=True, capture_output=True)
    return dst


def put_partition(disk, part, fs):
    """Writes the file system image `fs` at partition `part` of `disk` (sfdisk's table)."""
    table = json.loads(subprocess.run(["sfdisk", "--json", disk], check=True, capture_output=True).stdout)
    p = table["partitiontable"]["partitions"][part - 1]
    if os.path.getsize(fs) > p["size"] * 512:
        raise SystemExit(f"update-test: {fs} does not fit partition {part}")
    subprocess.run(["dd", f"if={fs}", f"of={disk}", "bs=512", f"seek={p['start']}", "conv=notrunc,sparse", "status=none"], check=True)


def main():
    ap = argparse.ArgumentParser(description="Install a v2 bundle from a stick into slot B and boot it.")
    ap.add_argument("--image", default=os.path.join(ROOT, "out", "image", "inkkiosk-amd64.img"))
    ap.add_argument("--boot-dir", help="screendumps, console logs, figures (default: the image's directory/update-test)")
    ap.add_argument("--timeout", type=float, default=180, help="seconds from QEMU start to the first frame, each boot (default 180)")
    ap.add_argument("--install-timeout", type=float, default=600, help="seconds after the first frame for the hook's work (default 600)")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--cpu", default="qemu64")
    ap.add_argument("--memory", type=int, default=512)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--no-powercut", action="store_true", help="no power cut during the first install")
    opts = ap.parse_args()

    image = os.path.realpath(opts.image)
    out = os.path.dirname(image)
    slot = os.path.join(out, "slot.ext4")
    for f in (image, slot):
        if not os.path.isfile(f):
            note(f"error: {f} is missing; build it with `make image`")
            return 2
    boot_dir = os.path.realpath(opts.boot_dir or os.path.join(out, "update-test"))
    shutil.rmtree(boot_dir, ignore_errors=True)
    os.makedirs(boot_dir)
    rundir = tempfile.mkdtemp(prefix="inkkiosk-update-")
    problems = []
    results = []
    bundle_bytes, v2, install_s = 0, None, None
    refusals = {}
    try:
        version = subprocess.run(["debugfs", "-R", "cat /version", slot], check=True, capture_output=True,
                                 text=True).stdout.strip()
        v2 = f"{version}+v2"
        t = time.monotonic()
        env = dict(os.environ, IMAGE_OUT=os.path.join(rundir, "v2"), IMAGE_VERSION=v2)
        subprocess.run([os.path.join(HERE, "build.sh"), os.path.join(ROOT, "out", "appliance")], env=env, check=True)
        v2_slot = test_slot(os.path.join(rundir, "v2", "slot.ext4"), HOOK_CONFIRM, os.path.join(rundir, "v2-test.ext4"), rundir)
        env = dict(os.environ, BUNDLE_OUT=os.path.join(rundir, "bundle"))
        bundle = subprocess.run([os.path.join(HERE, "bundle.sh"), v2_slot], env=env, check=True,
                                capture_output=True, text=True).stdout.strip().splitlines()[-1]
        shutil.copy(os.path.join(rundir, "bundle", "info.txt"), os.path.join(boot_dir, "bundle-info.txt"))
        bundle_bytes = os.path.getsize(bundle)
        note(f"v2 ({v2}) slot and bundle made in {time.monotonic() - t:.1f} s: {os.path.basename(bundle)}, {bundle_bytes} bytes")

        # The bundles to refuse: another CA's key, another board, truncated, altered.
        bad = {}
        keys = subprocess.run([os.path.join(HERE, "dev-keys.sh")], env=dict(os.environ, INKKIOSK_KEYS=os.path.join(rundir, "other-keys")),
                              check=True, capture_output=True, text=True).stdout.strip()
        for name, extra in (("other-key", {"BUNDLE_CERT": f"{keys}/signing.cert.pem", "BUNDLE_KEY": f"{keys}/signing.key.pem",
                                           "BUNDLE_KEYRING": f"{keys}/ca.cert.pem"}),
                            ("other-board", {"IMAGE_BOARD": "otherboard"})):
            made = subprocess.run([os.path.join(HERE, "bundle.sh"), v2_slot], check=True, capture_output=True, text=True,
                                  env=dict(os.environ, BUNDLE_OUT=os.path.join(rundir, name), **extra)).stdout.strip().splitlines()[-1]
            bad[name] = made
        data = open(bundle, "rb").read()
        bad["truncated"] = os.path.join(rundir, "truncated.raucb")
        open(bad["truncated"], "wb").write(data[:-4096])
        bad["altered"] = os.path.join(rundir, "altered.raucb")
        at = 8 * 2**20   # inside the squashfs payload (the signature is at the end)
        open(bad["altered"], "wb").write(data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:])

        stick = os.path.join(rundir, "stick.img")
        with open(stick, "wb") as f:
            f.truncate((sum(os.path.getsize(b) for b in [bundle, *bad.values()]) // 2**20 + 16) * 2**20)
        subprocess.run(["mkfs.fat", "-n", "INKSTICK", stick], check=True, capture_output=True)
        subprocess.run(["mcopy", "-i", stick, bundle, "::/update.raucb"], check=True)
        for name, path in bad.items():
            subprocess.run(["mcopy", "-i", stick, path, f"::/{name}.raucb"], check=True)

        disk = os.path.join(rundir, "disk.img")
        subprocess.run(["cp", "--sparse=always", image, disk], check=True)
        put_partition(disk, 2, test_slot(slot, HOOK_INSTALL, os.path.join(rundir, "a-test.ext4"), rundir))
        bt.grubenv_set(disk, rundir, ik_cmdline_extra=f"{bt.TEST_CMDLINE} ik.update.confirm_after={CONFIRM_AFTER_S}")

        if not opts.no_powercut:
            # Boot 0: A, confirm it, install v2 into B: the power is cut while RAUC writes B.
            fig, probs = bt.boot(0, disk, "A", opts, rundir, boot_dir, until_timeout=opts.install_timeout, drives=(stick,),
                                 expect_version=version, kill_on=r"^\s*\d+% Copying image to rootfs\.1$",
                                 kill_after=r"@@IK-UPDATE installing update\.raucb@@")
            results.append(fig)
            env0 = fig["grubenv_after"]
            if fig.get("killed_s") is None:
                probs.append("the install never started copying into slot B (no power cut)")
            elif env0.get("B_OK") != "0" or env0.get("ORDER", "").split()[:1] != ["A"]:
                probs.append(f"after the cut the environment block is not ORDER=\"A …\" B_OK=0: {env0}")
            problems += [f"boot 0 (power cut): {p}" for p in probs]

        if not problems:
            # Boot 1: A, confirm it, install v2 into B.
            fig, probs = bt.boot(1, disk, "A", opts, rundir, boot_dir,
                                 until=r"@@IK-UPDATE install rc=(\d+) start=([\d.]+) end=([\d.]+)@@",
                                 until_timeout=opts.install_timeout, drives=(stick,), expect_version=version)
            results.append(fig)
            env1 = fig["grubenv_after"]
            if fig.get("until_line"):
                m = re.search(r"install rc=(\d+) start=([\d.]+) end=([\d.]+)", fig["until_line"])
                install_s = float(m.group(3)) - float(m.group(2))
                if m.group(1) != "0":
                    probs.append(f"rauc install exited {m.group(1)} (see boot1-console.log)")
            log = open(os.path.join(boot_dir, "boot1-console.log"), encoding="utf-8", errors="replace").read()
            for name in REFUSED:
                m = re.search(r"@@IK-REFUSED " + re.escape(name) + r" rc=(\d+) why=(.*)@@", log)
                refusals[name] = {"rc": int(m.group(1)), "why": m.group(2).strip()} if m else None
                if m is None:
                    probs.append(f"the {name} bundle was not tried (no @@IK-REFUSED {name} …@@)")
                elif m.group(1) == "0":
                    probs.append(f"the {name} bundle was INSTALLED (rauc install exited 0)")
                elif REFUSED[name] not in m.group(2):
                    probs.append(f"the {name} bundle was refused, but not for the expected reason ({REFUSED[name]!r}): {m.group(2)}")
            if not re.search(r"device-mapper: verity: .* data block \d+ is corrupted", log):
                probs.append("the kernel did not report the altered block (device-mapper: verity: … is corrupted)")
            if env1.get("ORDER", "").split()[:1] != ["B"] or env1.get("B_OK") != "1" or env1.get("B_TRY") != "0":
                probs.append(f"after the install the environment block is not ORDER=\"B …\" B_OK=1 B_TRY=0: {env1}")
            problems += [f"boot 1: {p}" for p in probs]

        if not problems:
            # Boot 2: B, the new version, confirmed by its hook.
            fig, probs = bt.boot(2, disk, "B", opts, rundir, boot_dir, until=r"ik-updates: slot B: boot confirmed",
                                 until_timeout=opts.install_timeout, drives=(stick,), expect_version=v2)
            results.append(fig)
            if fig["grubenv_after"].get("B_TRY") != "0" or fig["grubenv_after"].get("B_OK") != "1":
                probs.append(f"B is not confirmed (B_OK=1 B_TRY=0): {fig['grubenv_after']}")
            problems += [f"boot 2: {p}" for p in probs]
        if not problems:
            # Boot 3: B again.
            fig, probs = bt.boot(3, disk, "B", opts, rundir, boot_dir, drives=(stick,), expect_version=v2)
            results.append(fig)
            problems += [f"boot 3: {p}" for p in probs]
    finally:
        shutil.rmtree(rundir, ignore_errors=True)

    print()
    print(f"bundle: {bundle_bytes} bytes ({bundle_bytes / 1e6:.1f} MB), version {v2}")
    for name, r in refusals.items():
        print(f"refused {name + ':':<13} " + ("not tried" if r is None else f"rauc install exit {r['rc']}: {r['why']}"))
    if install_s is not None:
        print(f"rauc install (guest's clock, from the stick into slot B): {install_s:.1f} s")
    print(f"{'boot':<6}{'slot':<6}{'firmware → Boot':>17}{'kernel 1st line':>17}{'exec inkkiosk':>15}{'first frame':>13}{'hook done':>14}")
    for r in results:
        cells = [f"{r[k]:.2f} s" if r.get(k) is not None else "-" for k in ("firmware_s", "kernel_first_line_s", "exec_inkkiosk_s", "first_frame_s", "until_s")]
        if r.get("killed_s") is not None:
            cells[4] = f"cut {r['killed_s']:.2f} s"
        print(f"{r['boot']:<6}{str(r['slot']):<6}{cells[0]:>17}{cells[1]:>17}{cells[2]:>15}{cells[3]:>13}{cells[4]:>14}")
    print("(seconds from QEMU start, on the host's clock; TCG)")
    return bt.finish("image-update-test", results, {"bundle_bytes": bundle_bytes, "version": v2, "install_s": install_s, "refusals": refusals}, boot_dir, problems)


if __name__ == "__main__":
    sys.exit(main())
