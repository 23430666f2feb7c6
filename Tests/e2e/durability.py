# SPDX-License-Identifier: Apache-2.0
"""Ink never waits for storage (run inside the VM; scenario.py imports this, check_durability.py
checks what it left). The journal lies on a second virtio disk that QEMU throttles to 20
writes a second, as slow as a cheap SD card; the same five signatures are drawn with the
journal on tmpfs and on that disk, and the kiosk's input→flip latency is compared. Then kill -9
at random moments, round after round on the slow disk: every stroke finished more than
DURABLE_MS before a kill must come back."""
import json
import os
import random
import re
import subprocess
import sys
import time

from scenario import ROOT, WORK, Kiosk, say, line, signature_path
from uinput_devices import Device
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))  # the harness's shared modules (the kit has them)
import kiosk_lines  # noqa: E402

DATA = "/run/inkkiosk-data"
DURABLE_MS = 250   # docs/ARCHITECTURE.md: a finished stroke is on disk within this on such a disk...


def durable_ms(slowest_sync_ms):
    """...or within two of its slowest syncs (the promise: one sync after the sync in progress
    when the stroke ended), plus 50 ms for the emulated guest's scheduling, when the throttle
    lets a sync take longer than half of DURABLE_MS."""
    return max(DURABLE_MS, 2 * slowest_sync_ms + 50)


def mount_data():
    os.makedirs(DATA, exist_ok=True)
    subprocess.run(["mount", "-t", "ext4", "/dev/vda", DATA], check=True)


def fsync_ms(path, rounds=60):
    """What one append + fsync costs on that disk (median and slowest, ms). 60 rounds: with 20 the
    slowest was seen to miss the throttle's worst. Appends of a stroke record's sizes (0.5 to
    6 KiB, so some cross a block as the kiosk's do): with 512 bytes each the probe measured
    151 ms while the kiosk's syncs took up to 344 ms."""
    times = []
    sizes = random.Random(17)
    with open(path, "ab") as f:
        for _ in range(rounds):
            f.write(b"x" * sizes.randrange(512, 6144))
            t = time.monotonic()
            os.fsync(f.fileno())
            times.append((time.monotonic() - t) * 1000)
    os.remove(path)
    times.sort()
    return times[len(times) // 2], times[-1]


def five_signatures(pen):
    for i in range(5):
        for points in signature_path():
            pen.stroke([(x + 0.5 * (i % 2), y - 0.1 + 0.05 * i) for x, y in points], pressure=0.5)
            pen.out()


def session_durability(binary, pen):
    mount_data()
    median, slowest = fsync_ms(os.path.join(DATA, "probe"))
    found = {"fsync_ms": median, "fsync_max_ms": slowest, "durable_ms": durable_ms(slowest)}
    say(f"durability: an fsync on the throttled disk takes {median:.0f} ms (median), {slowest:.0f} ms at most")
    for label, journal in (("tmpfs", "/run/durability.inkj"), ("disk", os.path.join(DATA, "durability.inkj"))):
        kiosk = Kiosk(binary, f"durability-{label}", "--journal", journal)
        five_signatures(pen)
        kiosk.wait_idle(accept=lambda status: "; 0 edits to save" in status, what="every stroke saved")
        kiosk.stop()
    rounds = random_kills(binary, pen, found["durable_ms"])
    found["rounds"] = rounds
    with open(os.path.join(WORK, "durability.json"), "w") as f:
        json.dump(found, f, indent=1)


SAVED = re.compile(r"(\d+) strokes on page .*; (\d+) edits to save")


def saved_strokes(kiosk, before):
    """The most strokes the kiosk has said are on disk (its status lines: strokes on the page
    less the edits still to save; only strokes are drawn here), at least those it restored."""
    with kiosk.notifications.changed:
        statuses = [m.get("STATUS", "") for m in kiosk.notifications.messages]
    counts = [int(m.group(1)) - int(m.group(2)) for m in map(SAVED.search, statuses) if m]
    return max([before] + counts)


def random_kills(binary, pen, bound_ms, rounds=20, seed=4711):
    """kill -9 at random moments, on one journal on the slow disk, without waiting for the
    disk: after every restart the kiosk has every stroke it had said was saved, and none it
    never finished. How many strokes finished more than bound_ms before the kill ("durable")
    is a figure: it depends on how fast the emulated guest ran, so it is not asserted."""
    rng = random.Random(seed)
    journal = os.path.join(DATA, "random-kills.inkj")
    seen = []   # per round: strokes restored before it, drawn in it, drawn in time, restored after it

    def restored(kiosk):
        m = kiosk_lines.JOURNAL_RESTORED.search(open(kiosk.log_path).read())
        return int(m["strokes"]) if m else -1

    kill_at, finished, before = None, [], 0
    for r in range(rounds + 1):
        kiosk = Kiosk(binary, f"kills-{r}", "--journal", journal)
        if kill_at is not None:
            seen.append({"before": before, "drawn": len(finished), "after": restored(kiosk),
                         "saved": saved, "durable": sum(1 for t in finished if kill_at - t > bound_ms / 1000)})
        before, finished = restored(kiosk), []   # finished: this round's tip-up times
        if r == rounds:
            kiosk.stop()
            break
        for _ in range(rng.randint(1, 3)):
            pen.stroke(line(rng.uniform(0.15, 0.85), 0.2, 0.8, 20), pressure=0.6)
            finished.append(Device.last_report)   # the tip-up
            pen.out()
        pen.hover_in(0.2, 0.5, distance=0.1)
        pen.down(0.6)
        for x, y in line(0.5, 0.2, 0.8, 20)[1:rng.randint(2, 16)]:
            pen.move(x, y, pressure=0.6)
        time.sleep(rng.uniform(0, 0.4))   # a random moment: often before the last stroke is on disk
        kill_at = time.monotonic()
        saved = saved_strokes(kiosk, before)
        kiosk.killed()
        pen.up()
        pen.out()
    say(f"random kills: {seen}")
    return seen
