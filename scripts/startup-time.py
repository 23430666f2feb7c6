#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Start-up time of a command: runs it N times (default 30) and prints the median, the fastest
and the slowest wall time (process start to exit), after one untimed run that warms the page
cache. For the kiosk binary's own start (loader, Swift runtime, argument parsing):

    python3 scripts/startup-time.py .build/release/inkkiosk --help
    python3 scripts/startup-time.py -n 50 .build/release/inkkiosk replay Tests/Recordings/buttons.inklog --png /tmp/s.png

Standard library only; output goes to /dev/null.
"""
import argparse
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=30, help="timed runs (default 30)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    opts = ap.parse_args()
    if not opts.command:
        ap.error("no command")
    subprocess.run(opts.command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    times = []
    for _ in range(opts.n):
        t = time.perf_counter()
        rc = subprocess.run(opts.command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False).returncode
        times.append(time.perf_counter() - t)
        if rc != 0:
            print(f"startup-time: {' '.join(opts.command)} exited {rc}", file=sys.stderr)
            return 1
    ms = sorted(x * 1000 for x in times)
    print(f"{' '.join(opts.command)}: median {statistics.median(ms):.1f} ms, min {ms[0]:.1f} ms, max {ms[-1]:.1f} ms over {opts.n} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
