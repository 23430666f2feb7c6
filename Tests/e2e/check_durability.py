"""Host checks of the durability session (check.py calls `check_durability`): the ink does not
wait for a slow disk, and kill -9 at random moments loses no stroke finished in time."""
import json
import os
import re

DURABLE_MS = 250   # at least; durability.py raises it to two of the slowest syncs measured


def latency(work, session):
    path = os.path.join(work, f"{session}-latency.json")
    return json.load(open(path)) if os.path.exists(path) else None


def check_durability(work, check):
    path = os.path.join(work, "durability.json")
    found = json.load(open(path)) if os.path.exists(path) else {}
    tmpfs, disk = latency(work, "durability-tmpfs"), latency(work, "durability-disk")
    if not (tmpfs and disk and found):
        check(False, "the durability session left its figures", path)
        return
    a, b = tmpfs["inputToFlipMs"], disk["inputToFlipMs"]
    bound = found.get("durable_ms", DURABLE_MS)
    log = open(os.path.join(work, "durability-disk.log")).read()
    worst = re.search(r"worst ([0-9.]+) ms", log)
    print(f"figure: append + fsync on the throttled disk (20 writes/s) median {found['fsync_ms']:.0f} ms, "
          f"max {found.get('fsync_max_ms', 0):.0f} ms; "
          f"five signatures, input→flip with the journal on tmpfs: median {a['median']:.2f} ms p99 {a['p99']:.2f} ms "
          f"({tmpfs['frames']} frames); on the throttled disk: median {b['median']:.2f} ms p99 {b['p99']:.2f} ms "
          f"({disk['frames']} frames); journal hand-over → on disk, worst {worst.group(1) if worst else '?'} ms")
    check(b["p99"] <= 1.5 * a["p99"] + 8,
          f"the ink does not wait for the slow disk: input→flip p99 {b['p99']:.1f} ms on it, "
          f"{a['p99']:.1f} ms on tmpfs (limit 1.5× + 8 ms)", path)
    check(worst is not None and float(worst.group(1)) <= bound,
          f"every finished stroke was on the slow disk within two of its slowest syncs, {bound:.0f} ms "
          f"(worst {worst.group(1) if worst else '?'} ms)",
          os.path.join(work, "durability-disk.log"))
    rounds = found.get("rounds", [])
    # After each kill: everything restored before, plus every stroke of the round finished more than
    # DURABLE_MS before the kill, at least; and never more than was drawn.
    ok = len(rounds) >= 20 and all(r["before"] + r["durable"] <= r["after"] <= r["before"] + r["drawn"] for r in rounds)
    check(ok, f"kill -9 at random moments, {len(rounds)} times on the slow disk: every restart has every stroke "
              f"finished {bound:.0f} ms before the kill, and none never finished (restored before + drawn in time "
              f"≤ restored after ≤ restored before + drawn: "
              + ", ".join(f"{r['before']}+{r['durable']}≤{r['after']}≤{r['before']}+{r['drawn']}" for r in rounds) + ")", path)
    late = sum(r["drawn"] - r["durable"] for r in rounds)
    kept_late = sum(r["after"] - r["before"] - r["durable"] for r in rounds)
    print(f"figure: {len(rounds)} kills, {sum(r['drawn'] for r in rounds)} strokes finished; {late} of them less than "
          f"{bound:.0f} ms before a kill, {kept_late} of those saved all the same")
