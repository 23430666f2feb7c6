#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An update in QEMU from a USB stick: the disk image boots slot A, its stick watcher
(/usr/lib/inkkiosk/stick-updates) finds a signed v2 bundle on a USB stick and installs it into
slot B with RAUC (the power cut the first time, while RAUC writes the slot), reboots into B, B
confirms itself, passes over the stick's bundle (it runs that version), and boots again.

    python3 scripts/image/update-test.py [--image out/image/inkkiosk-amd64.img] [--timeout 180]
    python3 scripts/image/update-test.py --arch arm64 --switch     (AAVMF: install and switch only)

Needs `make image` (and its development keys, out/keys/development). What the test adds, and
only in its own copies: a test archive (/ik-test/hook, run by the appliance's ik.appliance.test=1
hook once PID 1 is the kiosk: it only waits for the boot's confirmation and prints RAUC's status)
appended to the initrds of slot A and of the v2 slot, and ik_cmdline_extra in the copy's grubenv
(scripts/image/boot-test.py). The v2 is the image's slot with the version <version>+v2 (v2_slot()), bundled
by scripts/image/bundle.sh (signed with the development
key, checked with `rauc info`); the stick is a vfat disk on QEMU's USB (qemu-xhci, usb-storage),
as a technician's stick is.

The stick also holds five bundles the device must refuse, tried first (name order): signed by
another CA's key, for another board (compatible inkkiosk-amd64-otherboard), truncated (the last
4 KiB cut off), altered (one byte of the payload changed: found by dm-verity while it is copied),
a downgrade (version 0.0.1: the image's RAUC pre-install handler refuses it).
Each must be refused, and the watcher's line (ik-stick: refused NAME.raucb: …) says why.

Every boot is confirmed by the image itself (boot.d/updates.sh: `rauc status mark-good` once the
kiosk has been ready for ik.update.confirm_after seconds, here 2); only then does the watcher
look at sticks.

Boot 0 (slot A; --no-powercut skips it): the five refused, then update.raucb installed; QEMU is
killed (SIGKILL: a power cut) as soon as RAUC says it is copying the image into slot B. The
environment block must then say B_OK=0 (RAUC marked B unbootable before writing it) with A first.
Boot 1: A again (the cut must not cost the device its running system); the watcher installs
update.raucb and reboots (`ik-update reboot`: -no-reboot ends QEMU); the environment block then
reads ORDER="B A" B_OK=1 B_TRY=0.
Boot 2: GRUB must take B, whose command line says ik.version=<v2>; the kiosk's first frame; the
image confirms B (B_TRY=0 afterwards; ik-updates: slot B: boot confirmed); the watcher passes
over update.raucb (ik-stick: update.raucb: version <v2> runs already).
Boot 3: B again (confirmed, so not skipped).
--switch: boots 1 and 2 only, with the v2 alone on the stick (no refusals, no power cut, no third
boot): the install and the switch to B, for an architecture whose emulation is slow (arm64).
Prints: bundle size, the install's time on the guest's clock, the refusals, each boot's figures.
Exit status 0 pass, 1 fail, 2 setup error.
"""

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
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))  # the harness's shared modules
import kiosk_lines  # noqa: E402
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

# Each bad bundle, and what the watcher's refusal must say (RAUC's reason: `rauc info`'s error, or the
# install's LastError): refused for the right reason.
REFUSED = {
    "other-key": "signature verification failed",        # not under the device's CA
    "other-board": "Compatible mismatch",                # inkkiosk-amd64-otherboard
    "truncated": "Invalid bundle format",                # the signature at the end is cut
    "altered": "Input/output error",                     # dm-verity: "data block … is corrupted"
    "downgrade": "Pre-install handler error",            # version 0.0.1: the handler refuses it (its reason on the console)
}
HOOK_CONFIRM = "#!/bin/sh\n# TEST ONLY (scripts/image/update-test.py): each slot's hook.\n" + WAIT_FOR_CONFIRMATION + """
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


def test_slot(src, hook, dst, rundir, files=None, version=None):
    """The slot file system `src` with a test archive added to its initrds, written to `dst`
    (mke2fs -d, as scripts/image/build.sh makes slots). The archive holds `hook` as /ik-test/hook
    (unless None) and `files` ({path: text}, mode 0644: the later archive's files win over the
    slot's own); none when it would be empty. `version` replaces the slot's (/version and
    ik.version= in slot.cfg)."""
    tree = tempfile.mkdtemp(prefix="slot-", dir=rundir)
    subprocess.run(["debugfs", "-R", f"rdump / {tree}", src], check=True, capture_output=True)
    shutil.rmtree(os.path.join(tree, "lost+found"), ignore_errors=True)
    entries = {}
    if hook is not None:
        entries.update({"ik-test": (0o40755, None), "ik-test/hook": (0o100755, hook.encode())})
    for path, text in (files or {}).items():
        parts = path.split("/")
        for i in range(1, len(parts)):
            entries.setdefault("/".join(parts[:i]), (0o40755, None))
        entries[path] = (0o100644, text.encode())
    cfg = os.path.join(tree, "slot.cfg")
    text = open(cfg).read()
    if entries:
        with open(os.path.join(tree, "ik-test.cpio.gz"), "wb") as f:
            f.write(cpio_newc(entries))
        text, n = re.subn(r'(set ik_slot_initrds="[^"]*)"', r'\1 ik-test.cpio.gz"', text)
        if n != 1:
            raise SystemExit(f"update-test: {src}: slot.cfg has no ik_slot_initrds line")
    if version is not None:
        text, n = re.subn(r"ik\.version=\S+?\"", f'ik.version={version}"', text)
        if n != 1:
            raise SystemExit(f"update-test: {src}: slot.cfg has no ik.version=")
        open(os.path.join(tree, "version"), "w").write(version + "\n")
    open(cfg, "w").write(text)
    size_kb = (sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(tree) for f in fs) // 1024 * 11 // 10 + 4096 + 1023) // 1024 * 1024
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096", "-L", "inkslot",
                    "-O", "^metadata_csum_seed,^orphan_file,^has_journal", "-E", "root_owner=0:0",
                    "-d", tree, dst, f"{size_kb}k"], check=True, capture_output=True)
    return dst


def slot_version(slot):
    """The version a slot file system says it is (its /version, scripts/image/build.sh)."""
    return subprocess.run(["debugfs", "-R", "cat /version", slot], check=True, capture_output=True, text=True).stdout.strip()


def v2_slot(base, rundir):
    """The update the proofs install: the slot file system `base` with the version <base's>+v2
    (its /version and ik.version=, as scripts/image/build.sh writes them with IMAGE_VERSION), the
    rest, the fleet server's settings among it, as the image was built."""
    return test_slot(base, None, os.path.join(rundir, "v2.ext4"), rundir, version=f"{slot_version(base)}+v2")


def put_partition(disk, part, fs):
    """Writes the file system image `fs` at partition `part` of `disk` (sfdisk's table)."""
    table = json.loads(subprocess.run(["sfdisk", "--json", disk], check=True, capture_output=True).stdout)
    p = table["partitiontable"]["partitions"][part - 1]
    if os.path.getsize(fs) > p["size"] * 512:
        raise SystemExit(f"update-test: {fs} does not fit partition {part}")
    subprocess.run(["dd", f"if={fs}", f"of={disk}", "bs=512", f"seek={p['start']}", "conv=notrunc,sparse", "status=none"], check=True)


def main():
    ap = bt.arguments("Install a v2 bundle from a stick into slot B and boot it.", "update-test")
    ap.add_argument("--install-timeout", type=float, default=600, help="seconds after the first frame for the stick watcher's work (default 600)")
    ap.add_argument("--no-powercut", action="store_true", help="no power cut during the first install")
    ap.add_argument("--switch", action="store_true", help="the install and the switch to B only: no refusals, no power cut, no third boot")
    opts = ap.parse_args()
    arch = ["--arch", opts.arch]

    found = bt.image_and_slot(opts, "image-update-test")
    if found is None:
        return 2
    image, slot = found
    out = os.path.dirname(image)
    boot_dir = os.path.realpath(opts.boot_dir or os.path.join(out, "update-test"))
    shutil.rmtree(boot_dir, ignore_errors=True)
    os.makedirs(boot_dir)
    rundir = tempfile.mkdtemp(prefix="inkkiosk-update-")
    problems = []
    results = []
    bundle_bytes, v2, install_s = 0, None, None
    refusals = {}
    try:
        version = slot_version(slot)
        t = time.monotonic()
        v2_built = v2_slot(slot, rundir)
        v2 = slot_version(v2_built)
        # --switch: no test archive in either slot (nothing waits on the hook's line). On arm64 a third
        # initrd, whatever its content, makes Debian 13's kernel oops in early_security_init when GRUB
        # 2.12 loads it under AAVMF (and 400 bytes more in the second keep it from starting at all):
        # seen in the VM, not understood; the image's own two initrds boot.
        hook = None if opts.switch else HOOK_CONFIRM
        v2_test_slot = test_slot(v2_built, hook, os.path.join(rundir, "v2-test.ext4"), rundir) if hook else v2_built
        env = dict(os.environ, BUNDLE_OUT=os.path.join(rundir, "bundle"))
        bundle = subprocess.run([os.path.join(HERE, "bundle.sh"), *arch, v2_test_slot], env=env, check=True,
                                capture_output=True, text=True).stdout.strip().splitlines()[-1]
        shutil.copy(os.path.join(rundir, "bundle", "info.txt"), os.path.join(boot_dir, "bundle-info.txt"))
        bundle_bytes = os.path.getsize(bundle)
        note(f"v2 ({v2}) slot and bundle made in {time.monotonic() - t:.1f} s: {os.path.basename(bundle)}, {bundle_bytes} bytes")

        # The bundles to refuse: another CA's key, another board, truncated, altered, a downgrade.
        bad = {}
        refused = {} if opts.switch else REFUSED
        keys = subprocess.run([os.path.join(HERE, "dev-keys.sh")], env=dict(os.environ, INKKIOSK_KEYS=os.path.join(rundir, "other-keys")),
                              check=True, capture_output=True, text=True).stdout.strip()
        for name, extra in (("other-key", {"BUNDLE_CERT": f"{keys}/signing.cert.pem", "BUNDLE_KEY": f"{keys}/signing.key.pem",
                                           "BUNDLE_KEYRING": f"{keys}/ca.cert.pem"}),
                            ("other-board", {"IMAGE_BOARD": "otherboard"}),
                            ("downgrade", {"BUNDLE_VERSION": "0.0.1"})):
            if name not in refused:
                continue
            made = subprocess.run([os.path.join(HERE, "bundle.sh"), *arch, v2_test_slot], check=True, capture_output=True, text=True,
                                  env=dict(os.environ, BUNDLE_OUT=os.path.join(rundir, name), **extra)).stdout.strip().splitlines()[-1]
            bad[name] = made
        data = open(bundle, "rb").read()
        if "truncated" in refused:
            bad["truncated"] = os.path.join(rundir, "truncated.raucb")
            open(bad["truncated"], "wb").write(data[:-4096])
        if "altered" in refused:
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

        usb = ("-device", "qemu-xhci,id=xhci", "-drive", f"file={stick},if=none,id=stick,format=raw",
               "-device", "usb-storage,bus=xhci.0,drive=stick,removable=on")
        disk = os.path.join(rundir, "disk.img")
        subprocess.run(["cp", "--sparse=always", image, disk], check=True)
        if hook:
            put_partition(disk, 2, test_slot(slot, hook, os.path.join(rundir, "a-test.ext4"), rundir))
        bt.grubenv_set(disk, rundir, ik_cmdline_extra=f"{bt.test_cmdline(opts)} ik.update.confirm_after={CONFIRM_AFTER_S}")

        if not (opts.no_powercut or opts.switch):
            # Boot 0: A, confirm it, install v2 into B: the power is cut while RAUC writes B.
            fig, probs = bt.boot(0, disk, "A", opts, rundir, boot_dir, until_timeout=opts.install_timeout, qemu_args=usb,
                                 expect_version=version, kill_on=r"^ik-stick: \s*\d+% Copying image to rootfs\.1$",
                                 kill_after=r"ik-stick: installing update\.raucb")
            results.append(fig)
            env0 = fig["grubenv_after"]
            if fig.get("killed_s") is None:
                probs.append("the install never started copying into slot B (no power cut)")
            elif env0.get("B_OK") != "0" or env0.get("ORDER", "").split()[:1] != ["A"]:
                probs.append(f"after the cut the environment block is not ORDER=\"A …\" B_OK=0: {env0}")
            problems += [f"boot 0 (power cut): {p}" for p in probs]

        if not problems:
            # Boot 1: A, confirm it, install v2 into B.
            fig, probs = bt.boot(1, disk, "A", opts, rundir, boot_dir, until_timeout=opts.install_timeout, qemu_args=usb,
                                 expect_version=version, expect_exit=True)
            results.append(fig)
            env1 = fig["grubenv_after"]
            log = open(os.path.join(boot_dir, "boot1-console.log"), encoding="utf-8", errors="replace").read()
            m = re.search(r"ik-stick: installed update\.raucb \(version (\S+)\) in \d+ s \(uptime ([\d.]+) → ([\d.]+)\)", log)
            if m is None:
                probs.append("the watcher did not install update.raucb (no ik-stick: installed update.raucb line)")
            else:
                install_s = float(m.group(3)) - float(m.group(2))
                if m.group(1) != v2:
                    probs.append(f"the watcher installed version {m.group(1)}, not {v2}")
            if not re.search(r"ik-update: rebooting \(sync done, the kiosk idle\)", log):
                probs.append("no reboot through ik-update after the install")
            for name in refused:
                m = re.search(r"ik-stick: refused " + re.escape(name) + r"\.raucb: (.*)", log)
                refusals[name] = m.group(1).strip() if m else None
                if re.search(r"ik-stick: installed " + re.escape(name) + r"\.raucb", log):
                    probs.append(f"the {name} bundle was INSTALLED")
                elif m is None:
                    probs.append(f"the {name} bundle was not refused (no ik-stick: refused {name}.raucb line)")
                elif REFUSED[name] not in m.group(1):
                    probs.append(f"the {name} bundle was refused, but not for the expected reason ({REFUSED[name]!r}): {m.group(1)}")
            m = next((m for m in kiosk_lines.DOWNGRADE_REFUSED.finditer(log) if m["offered"] == "0.0.1"), None)
            if "downgrade" not in refused:
                pass
            elif m is None:
                probs.append("the pre-install handler did not say why it refused the downgrade (update-agent: refused: 0.0.1 is older …)")
            else:
                refusals["downgrade"] = f"{refusals['downgrade']} ({m['refusal'].strip()})"
            if "altered" in refused and not re.search(r"device-mapper: verity: .* data block \d+ is corrupted", log):
                probs.append("the kernel did not report the altered block (device-mapper: verity: … is corrupted)")
            if env1.get("ORDER", "").split()[:1] != ["B"] or env1.get("B_OK") != "1" or env1.get("B_TRY") != "0":
                probs.append(f"after the install the environment block is not ORDER=\"B …\" B_OK=1 B_TRY=0: {env1}")
            problems += [f"boot 1: {p}" for p in probs]

        if not problems:
            # Boot 2: B, the new version, confirmed by its hook.
            fig, probs = bt.boot(2, disk, "B", opts, rundir, boot_dir, until=r"ik-stick: update\.raucb: version \S+ runs already",
                                 until_timeout=opts.install_timeout, qemu_args=usb, expect_version=v2)
            log = open(os.path.join(boot_dir, "boot2-console.log"), encoding="utf-8", errors="replace").read()
            if not re.search(r"ik-updates: slot B: boot confirmed", log):
                probs.append("B's boot was not confirmed (no ik-updates: slot B: boot confirmed)")
            if re.search(r"ik-stick: installed ", log):
                probs.append("the watcher installed a bundle again from B")
            if "downgrade" in refused and not re.search(r"ik-stick: refused downgrade\.raucb: Pre-install handler error", log):
                probs.append("B did not refuse the downgrade (0.0.1 under 1.0.0+v2)")
            results.append(fig)
            if fig["grubenv_after"].get("B_TRY") != "0" or fig["grubenv_after"].get("B_OK") != "1":
                probs.append(f"B is not confirmed (B_OK=1 B_TRY=0): {fig['grubenv_after']}")
            problems += [f"boot 2: {p}" for p in probs]
        if not problems and not opts.switch:
            # Boot 3: B again.
            fig, probs = bt.boot(3, disk, "B", opts, rundir, boot_dir, qemu_args=usb, expect_version=v2)
            results.append(fig)
            problems += [f"boot 3: {p}" for p in probs]
    finally:
        shutil.rmtree(rundir, ignore_errors=True)

    print()
    print(f"bundle: {bundle_bytes} bytes ({bundle_bytes / 1e6:.1f} MB), version {v2}")
    for name, r in refusals.items():
        print(f"refused {name + ':':<13} " + ("not refused" if r is None else r))
    if install_s is not None:
        print(f"install (guest's clock, from the USB stick into slot B, rauc install through ik-update): {install_s:.1f} s")
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
