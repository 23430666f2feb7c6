#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Watches the arm64 unit tests under qemu-user for a copy of the test process stuck before exec.

Under qemu-user a guest's posix_spawn is a fork of the whole emulator. The tests' own programs
are started natively (scripts/arm64/launcher.py), but the PDF helper the product spawns is not,
and with the test runner's threads the emulator's forked copy can deadlock before it reaches
exec. Such a copy still has the test process's command line; a real spawn execs within
milliseconds. When one has kept it for GRACE seconds, this kills the copy and the test process
and writes MARKER (what was seen), so that the caller can say so and run the tests again.

    scripts/arm64/stuck-fork-watch.py PARENT_PID MARKER [GRACE_SECONDS]

PARENT_PID is the process whose child is the test process (`timeout`'s pid).
"""
import os
import signal
import sys
import time


def children(pid):
    """The pids whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces: the fields after it are fixed.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(pid):
            found.append(int(entry))
    return found


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return None


def wchan(pid):
    try:
        with open(f"/proc/{pid}/wchan") as f:
            return f.read() or "?"
    except OSError:
        return "?"


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: stuck-fork-watch.py PARENT_PID MARKER [GRACE_SECONDS]")
    parent, marker = int(sys.argv[1]), sys.argv[2]
    grace = float(sys.argv[3]) if len(sys.argv) == 4 else 30.0
    first_seen = {}
    while os.path.exists(f"/proc/{parent}"):
        for test in children(parent):
            own = cmdline(test)
            if not own:
                continue
            now = time.monotonic()
            copies = [c for c in children(test) if cmdline(c) == own]
            for gone in set(first_seen) - set(copies):
                del first_seen[gone]
            for copy in copies:
                since = first_seen.setdefault(copy, now)
                if now - since >= grace:
                    with open(marker, "w") as f:
                        f.write(f"process {copy}, a fork of the test process {test}, had not exec'd after "
                                f"{now - since:.0f} s (waiting in {wchan(copy)})\n")
                    for pid in (copy, test):
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except OSError:
                            pass
                    return
        time.sleep(2)


if __name__ == "__main__":
    main()
