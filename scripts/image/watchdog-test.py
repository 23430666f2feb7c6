#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A kiosk that hangs resets the machine, and the boot loader falls back: the disk image in QEMU
with QEMU's i6300esb watchdog (boot-test.py gives every image boot one), whose driver the image loads and the kiosk feeds ([update] watchdog).

    python3 scripts/image/watchdog-test.py [--image out/image/inkkiosk-amd64.img] [--timeout 180]

Boot 1 (slot A): the copy's grubenv adds `ik.test.hang=first-frame` (TEST ONLY: the kiosk's loop
stops right after its first frame, as a kiosk stuck in a bug would; see Sources/InkKiosk/Kiosk.swift)
and ik.update.confirm_after=2 (the image would confirm a boot 2 s after the kiosk is ready). The
kiosk shows its first frame, says it hangs, never writes its ready file, so the image does not
confirm A; it feeds the watchdog no more, and the watchdog (QEMU: -action watchdog=reset, with
-no-reboot a reset ends QEMU) resets the machine. Passes when, within the watchdog's timeout and
60 s more after the kiosk's hang line: QEMU ends on its own, QMP reported the WATCHDOG event (action
reset), the kernel did not panic (the kiosk did not exit: only the watchdog ended it), A was not
confirmed (A_TRY=1 in the environment block).
Boot 2: without the hang switch; GRUB must take B (A was tried and never confirmed), the kiosk is
ready and feeds the watchdog, the image confirms B (B_TRY=0 afterwards).
Prints: the hang → reset time (host clock), the watchdog timeout the kiosk got, each boot's figures.
Exit status 0 pass, 1 fail, 2 setup error. Standard library only; boot-test.py does the booting.
"""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))  # the harness's shared modules
import kiosk_lines  # noqa: E402
_spec = importlib.util.spec_from_file_location("ik_image_boot_test", os.path.join(HERE, "boot-test.py"))
bt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bt)


def note(msg):
    print(f"image-watchdog-test: {msg}", flush=True)


def main():
    ap = bt.arguments("A hung kiosk: the watchdog resets the machine, GRUB falls back to B.", "watchdog-test")
    opts = bt.settle(ap.parse_args())

    image = os.path.realpath(opts.image)
    if not os.path.isfile(image):
        note(f"error: {image} is missing; build it with `make image`")
        return 2
    problem = bt.missing_tools(opts)
    if problem:
        note(f"error: {problem}")
        return 2
    boot_dir = os.path.realpath(opts.boot_dir or os.path.join(os.path.dirname(image), "watchdog-test"))
    shutil.rmtree(boot_dir, ignore_errors=True)
    os.makedirs(boot_dir)
    rundir = tempfile.mkdtemp(prefix="inkkiosk-watchdog-")
    problems, results = [], []
    hang_to_reset = None
    timeout_s = None
    try:
        disk = os.path.join(rundir, "disk.img")
        subprocess.run(["cp", "--sparse=always", image, disk], check=True)
        bt.grubenv_set(disk, rundir, ik_cmdline_extra=f"{bt.test_cmdline(opts)} ik.update.confirm_after=2 ik.test.hang=first-frame")
        # The watchdog's timeout is the image's ([update] watchdog_timeout, at most 600): 60 s more for TCG.
        fig, probs = bt.boot(1, disk, "A", opts, rundir, boot_dir, until=kiosk_lines.TEST_HANG, until_timeout=660, expect_exit=True)
        results.append(fig)
        log = open(os.path.join(boot_dir, "boot1-console.log"), encoding="utf-8", errors="replace").read()
        if fig.get("until_s") is None:
            probs.append("the kiosk never said it hangs with the watchdog armed (TEST ONLY: ik.test.hang=first-frame …)")
        else:
            m = kiosk_lines.TEST_HANG.search(fig["until_line"])
            timeout_s = int(m["timeout"])
            if fig.get("exit_s") is not None:
                hang_to_reset = fig["exit_s"] - fig["until_s"]
                if hang_to_reset > timeout_s + 60:
                    probs.append(f"the machine ran on {hang_to_reset:.1f} s after the hang (watchdog {timeout_s} s)")
        watchdog_events = [e for e in fig["qmp_events"] if e["event"] == "WATCHDOG"]
        if not watchdog_events or watchdog_events[0]["data"].get("action") != "reset":
            probs.append(f"QMP reported no WATCHDOG event with action reset: {fig['qmp_events']}")
        if re.search(r"Kernel panic", log):
            probs.append("the kernel panicked: the kiosk exited, it was not the watchdog that ended the boot")
        if "ik-updates: slot A: boot confirmed" in log or fig["grubenv_after"].get("A_TRY") != "1":
            probs.append(f"slot A was confirmed though its kiosk hung: {fig['grubenv_after']}")
        if "ik-updates: slot A: the kiosk is ready" in log:
            probs.append("the image saw a ready file from a kiosk that hung before it was ready")
        problems += [f"boot 1 (hang): {p}" for p in probs]

        if not problems:
            bt.grubenv_set(disk, rundir, ik_cmdline_extra=f"{bt.test_cmdline(opts)} ik.update.confirm_after=2")
            fig, probs = bt.boot(2, disk, "B", opts, rundir, boot_dir, until=r"ik-updates: slot B: boot confirmed",
                                 until_timeout=120)
            results.append(fig)
            log = open(os.path.join(boot_dir, "boot2-console.log"), encoding="utf-8", errors="replace").read()
            if fig["grubenv_after"].get("B_TRY") != "0" or fig["grubenv_after"].get("B_OK") != "1":
                probs.append(f"B is not confirmed (B_OK=1 B_TRY=0): {fig['grubenv_after']}")
            armed = kiosk_lines.WATCHDOG_ARMED.search(log)
            if not armed or armed["path"] != "/dev/watchdog":
                probs.append("the kiosk did not say it feeds the watchdog (hardware watchdog /dev/watchdog: N s)")
            if any(e["event"] == "WATCHDOG" for e in fig["qmp_events"]):
                probs.append("the watchdog fired while the kiosk ran well")
            problems += [f"boot 2 (fallback): {p}" for p in probs]
    finally:
        shutil.rmtree(rundir, ignore_errors=True)

    print()
    if timeout_s is not None:
        print(f"watchdog: i6300esb, timeout {timeout_s} s (the kiosk's, as the driver took it)")
    if hang_to_reset is not None:
        print(f"hang (the kiosk's line) → reset (QEMU gone): {hang_to_reset:.1f} s on the host's clock")
    print(f"{'boot':<6}{'slot':<6}{'kernel 1st line':>17}{'first frame':>13}{'hang / confirmed':>18}{'reset':>10}")
    for r in results:
        cells = [f"{r[k]:.2f} s" if r.get(k) is not None else "-" for k in ("kernel_first_line_s", "first_frame_s", "until_s", "exit_s")]
        print(f"{r['boot']:<6}{str(r['slot']):<6}{cells[0]:>17}{cells[1]:>13}{cells[2]:>18}{cells[3]:>10}")
    print("(seconds from QEMU start, on the host's clock; TCG)")
    return bt.finish("image-watchdog-test", results, {"watchdog_timeout_s": timeout_s, "hang_to_reset_s": hang_to_reset}, boot_dir, problems)


if __name__ == "__main__":
    sys.exit(main())
