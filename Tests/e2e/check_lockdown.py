#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Judges the lockdown session (lockdown.py) on the host: check.py calls `lockdown_checks`.

    check_lockdown.py WORK_DIR INKKIOSK_BINARY    only these checks (after lockdown.py alone)
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))  # the harness's shared modules
import kiosk_lines  # noqa: E402


def lockdown_checks(work, check, shot, along, darkness):
    path = os.path.join(work, "lockdown.json")
    found = json.load(open(path)) if os.path.exists(path) else {}
    check(bool(found.get("keyboard")), "lockdown: a uinput USB keyboard was plugged in", path)
    if not found.get("keyboard"):
        return

    # Without lockdown (the VT in graphics mode, keyboard K_OFF, switching locked) the kernel's
    # own handlers get the keys: SysRq always, the VT's as soon as its keyboard is on.
    lines = found.get("off_sysrq_lines", [])
    check(any("HELP" in line for line in lines),
          f"lockdown off: Alt-SysRq-h reaches the kernel's SysRq handler ({(lines or ['nothing'])[0][:60]} …)", path)
    got = found.get("off_ctrl_alt_del")
    check(got == "SIGINT", f"lockdown off: with the VT keyboard on, Ctrl-Alt-Del reaches the kernel (its target got {got})", path)

    # Locked down.
    log = found.get("log", "")
    held = kiosk_lines.LOCKDOWN_HELD.search(log)
    check(held is not None and int(held["nodes"]) >= 4 and "cannot take" not in log,
          f"lockdown: the kiosk holds every event node exclusively ({held['nodes'] if held else 'no'} nodes, keyboards included)", path)
    before, after = found.get("sysrq_before"), found.get("sysrq_after_start")
    check(before != "0" and after == "0", f"lockdown: the kiosk turned SysRq off (kernel.sysrq {before} → {after})", path)
    vt0, vt1 = found.get("vt_before"), found.get("vt_after_ctrl_alt_f2")
    im, p = shot("lockdown-ctrl-alt-f2")
    ink = im is not None and all(along(im, 0.5, 0.22, 0.78)) and darkness(im, 20, 20) < 0.05
    check(vt0 is not None and vt0 == vt1 and ink,
          f"lockdown: Ctrl-Alt-F2 leaves the kiosk's VT active (VT {vt0} → {vt1}) and its ink on screen", p)
    lines = found.get("sysrq_lines")
    check(lines == [], f"lockdown: Alt-SysRq-h with kernel.sysrq = 1 reaches no SysRq handler ({lines or 'nothing'} in dmesg)", path)
    got = found.get("ctrl_alt_del", "missing")
    check(got is None, f"lockdown: even with the VT keyboard on, Ctrl-Alt-Del does not reach the kernel (its target: {got or 'untouched'})", path)
    check(found.get("running_after_ctrl_c") is True, "lockdown: Ctrl-C does not stop the kiosk", path)
    im, p = shot("lockdown-keys-pressed")
    check(im is not None and all(along(im, 0.5, 0.22, 0.78)) and darkness(im, 20, 20) < 0.05,
          "lockdown: after all those keys the screen still shows the kiosk's ink", p)
    status = found.get("service_exit_status")
    check(status == 10 and "service keys held: stopping" in log,
          f"lockdown: the service keys {found.get('service_keys')} stop the kiosk with status {status}"
          f" ({found.get('service_exit_seconds')} s)", path)
    mode = found.get("console_mode_after")
    im, p = shot("lockdown-service-exit")
    paper = None if im is None else sum(1 for x in range(0, im.width, 40) for y in range(0, im.height, 40) if darkness(im, x, y) < 0.05)
    check(mode == 0 and paper == 0,
          f"lockdown: after the service keys the console is back in text mode (KDGETMODE {mode}, {paper} paper-white samples left)", p)


if __name__ == "__main__":
    import sys
    import check as c   # reads WORK_DIR and INKKIOSK_BINARY from the command line
    lockdown_checks(c.WORK, c.check, c.shot, c.along, c.darkness)
    failed = c.results.count(False)
    print(f"lockdown: {len(c.results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
