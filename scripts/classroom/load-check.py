#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A class hands in at once: the school's cloud (school-cloud.py: WsgiDAV with TLS) on this machine,
and `inkkiosk-bench hand-in-load` playing N tablets, each with the cloud agent's own outbox and
sender, through the class's share link. Prints the tablets' figures (the benchmark's) and the
server's (its PUT times and how many it had at once), and fails unless every file arrived whole:
the server's copy has the digest of the tablet's.

    python3 scripts/classroom/load-check.py BENCH_BINARY [--clients 30] [--size-kib 512] [--work DIR]
"""
import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def school_cloud():
    spec = importlib.util.spec_from_file_location("ik_school_cloud", os.path.join(HERE, "school-cloud.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench")
    ap.add_argument("--clients", type=int, default=30)
    ap.add_argument("--size-kib", type=int, default=512)
    ap.add_argument("--work", help="where the server's files and the tablets' outboxes go (default: a new temporary directory)")
    opts = ap.parse_args()
    work = os.path.abspath(opts.work or tempfile.mkdtemp(prefix="inkkiosk-load-"))
    cloud = school_cloud()
    process, info = cloud.start(os.path.join(work, "server"))
    try:
        run = subprocess.run([opts.bench, "hand-in-load", "--share", info["share"], "--password", info["share_password"],
                              "--ca", info["ca"], "--clients", str(opts.clients), "--size-kib", str(opts.size_kib),
                              "--directory", os.path.join(work, "tablets")],
                             capture_output=True, text=True, timeout=900)
        print(run.stdout.rstrip().rpartition("\n")[0] or run.stdout.rstrip())
        if run.stderr.strip():
            print(run.stderr.rstrip(), file=sys.stderr)
        stats = cloud.test_request(os.path.join(work, "server"), "/_test/stats", {})
    finally:
        process.terminate()
        process.wait()
    print(f"server: {stats['put']} PUTs, {stats['put_412']} refused as existing; in the server median "
          f"{stats['put_ms_median']} ms, p99 {stats['put_ms_p99']} ms, max {stats['put_ms_max']} ms; "
          f"at most {stats['puts_at_once_max']} at once")
    try:
        report = json.loads(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        print(f"load-check: FAIL: the benchmark printed no report (exit {run.returncode})")
        return 1
    folder = os.path.join(info["class"], "Hand-in")
    there = {n: hashlib.sha256(open(os.path.join(folder, n), "rb").read()).hexdigest()
             for n in os.listdir(folder) if not n.startswith(".")}
    wrong = [t["remote"] for t in report["tablets"] if there.get(t["remote"]) != t["sha256"]]
    extra = sorted(set(there) - {t["remote"] for t in report["tablets"]})
    print(f"server's folder: {len(there)} files; {len(report['tablets']) - len(wrong)} of {opts.clients} with the tablet's digest"
          + (f"; not whole or missing: {', '.join(wrong)}" if wrong else "") + (f"; unexpected: {', '.join(extra)}" if extra else ""))
    ok = run.returncode == 0 and not wrong and not extra and len(report["tablets"]) == opts.clients
    print(f"load-check: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
