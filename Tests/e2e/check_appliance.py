#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Judges the appliance boot (scripts/appliance/e2e-boot.sh → WORK/appliance/) on the host:
check.py calls `appliance_checks`; prints the boot figures.

    check_appliance.py WORK_DIR INKKIOSK_BINARY    only these checks
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))  # the harness's shared modules
import kiosk_lines  # noqa: E402

# boot-test.py's --timeout as e2e-boot.sh runs it (its default): QEMU start to the first frame.
FIRST_FRAME_LIMIT_S = 60


def appliance_checks(work, check):
    result = os.path.join(work, "appliance")
    if os.path.exists(os.path.join(result, "skipped")):
        print("     appliance: boot test skipped (E2E_APPLIANCE=0)")
        return
    steps_path = os.path.join(result, "steps.json")
    steps = json.load(open(steps_path)) if os.path.exists(steps_path) else {}
    check(steps.get("built") is True, "appliance: the boot-to-kiosk image is built (make appliance)", steps_path)
    path = os.path.join(result, "figures.json")
    fig = json.load(open(path)) if os.path.exists(path) else {}
    check(bool(fig), "appliance: boot-test.py booted it and wrote its figures", path)
    if not fig:
        return

    first = fig.get("qemu_to_first_frame_s")
    check(first is not None and first <= FIRST_FRAME_LIMIT_S,
          f"appliance: the kiosk's first frame is on screen within {FIRST_FRAME_LIMIT_S} s ({first} s after QEMU start)",
          os.path.join(result, "first-frame.png"))
    final = fig.get("final") or {}
    check(final.get("non_white_pixels") == 0,
          f"appliance: 1 s later every pixel is white, no console text or cursor ({final.get('non_white_pixels')} other pixels)",
          os.path.join(result, "final.png"))
    marker = fig.get("marker") or {}
    check(marker.get("pid1") == "inkkiosk", f"appliance: PID 1 is inkkiosk, no shell left (PID 1: {marker.get('pid1')})", path)
    ink = ((fig.get("pen") or {}).get("ink") or {}).get("non_white_pixels")
    log_path = os.path.join(result, "console.log")
    log = open(log_path, errors="replace").read() if os.path.exists(log_path) else ""
    pen = kiosk_lines.PEN_ADDED.search(log)
    check(pen is not None and (ink or 0) >= 300,
          f"appliance: a test pen is taken as a tablet and its stroke draws ({ink} non-white pixels)", os.path.join(result, "ink.png"))
    locked = kiosk_lines.LOCKDOWN_HELD.search(log)
    sysrq = kiosk_lines.SYSRQ_OFF.search(log)
    check(locked is not None and sysrq is not None,
          f"appliance: the kiosk is locked down (event nodes held exclusively: {locked['nodes'] if locked else 'none'}; "
          f"SysRq {'off, was ' + sysrq['was'] if sysrq else 'not turned off'})", log_path)
    data = fig.get("data") or {}
    host = data.get("host") or {}
    check(data.get("mounted") is True and bool(re.search(r"exit [01]$", (data.get("check") or [""])[0]))
          and host.get("fsck_status", 8) < 4 and (host.get("journal_strokes") or 0) >= 1 and not host.get("journal_problem"),
          f"appliance: the data partition (LABEL=inkdata, a second disk) is checked at boot ({(data.get('check') or ['no check'])[0]}) "
          f"and mounted on /var/lib/inkkiosk; read on the host after the VM: {host.get('journal')} with "
          f"{host.get('journal_strokes')} strokes (e2fsck -fy exit {host.get('fsck_status')})", os.path.join(result, "data"))
    size = (fig.get("targets") or {}).get("initramfs (compressed)") or {}
    check(size.get("value") is not None and size["value"] <= 20,
          f"appliance: the initramfs is {size.get('value')} MB compressed, under the 20 MB guard (no Foundation/ICU; "
          f"target {size.get('limit')} MB: {'met' if size.get('met') else 'over'})", os.path.join(result, "figures.json"))
    check(fig.get("pass") is True, "appliance: boot-test.py passes" + ("" if fig.get("pass") else f" ({'; '.join(fig.get('problems', []))})"), path)

    kernel = fig.get("kernel_to_first_frame_s")
    process = fig.get("inkkiosk_to_first_frame_s")
    print(f"     appliance figures: kernel start → first frame {kernel} s, inkkiosk start → first frame {process} s,"
          f" QEMU start → first frame {first} s ({fig.get('kernel')}, {fig.get('accel')}, cpu {fig.get('cpu')});"
          f" image build {steps.get('build_s')} s, boot test {steps.get('boot_s')} s")
    for name, target in (fig.get("targets") or {}).items():
        print(f"     appliance target: {name} {target.get('value')} {target.get('unit')} (limit {target.get('limit')} {target.get('unit')}: "
              f"{'met' if target.get('met') else ('OVER; the 20 MB guard above is what is checked' if target.get('unit') == 'MB' else 'OVER; measured, not asserted: an emulated guest on a shared machine')})")


if __name__ == "__main__":
    import sys
    import check as c   # reads WORK_DIR and INKKIOSK_BINARY from the command line
    appliance_checks(c.WORK, c.check)
    failed = c.results.count(False)
    print(f"appliance: {len(c.results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
