#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The benchmark: a long recording through the release binaries (`make bench` builds them first:
# inkkiosk-bench for the figures, inkkiosk for replay), then one page of signatures side by
# side with Xournal++ (scripts/peer-bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=.build/release/inkkiosk
BENCH=.build/release/inkkiosk-bench
REC=out/bench/long-2000.inklog
SIZE=1920x1080

for exe in "$BIN" "$BENCH"; do
    if [[ ! -x $exe ]]; then
        echo "bench: $exe is missing; run 'make bench' (or 'make release') first." >&2
        exit 1
    fi
done
if [[ ! -f $REC ]]; then
    mkdir -p "$(dirname "$REC")"
    echo "bench: generating $REC"
    python3 Tests/Recordings/generate.py --long 2000 --out "$REC.tmp"
    mv "$REC.tmp" "$REC"
fi

# Each step's peak RSS (ru_maxrss, its own process), gathered for the summary below.
PEAKS=()
peak_of() { # the "peakRSSMiB" of the JSON object on the last line of $1
    python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["peakRSSMiB"])' "$1"
}
OUT=$(mktemp); trap 'rm -f "$OUT"' EXIT

echo "== inkkiosk-bench bench $REC --size $SIZE"
"$BENCH" bench "$REC" --size "$SIZE" | tee "$OUT"
PEAKS+=("bench $(peak_of "$OUT")")
echo
echo "== inkkiosk replay $REC --size $SIZE --no-prediction --stats"
"$BIN" replay "$REC" --size "$SIZE" --no-prediction --stats | tee "$OUT"
PEAKS+=("replay-stats $(peak_of "$OUT")")
echo
# Worksheets: a typed one (text and a box a page) and a scanned one (a 150 dpi picture a page).
[[ -f out/bench/worksheet-12.pdf ]] || python3 Tests/e2e/worksheet_pdf.py out/bench/worksheet-12.pdf --pages 12 --lines 20 --title "Fractions, week 3"
[[ -f out/bench/scanned-6.pdf ]] || python3 Tests/e2e/worksheet_pdf.py out/bench/scanned-6.pdf --pages 6 --scanned --title "Scanned worksheet"
for SHEET in out/bench/worksheet-12.pdf out/bench/scanned-6.pdf; do
    echo "== inkkiosk-bench worksheet-bench $SHEET --recording $REC --size $SIZE (a worksheet's pages: paper, turns, ink over them)"
    "$BENCH" worksheet-bench "$SHEET" --recording "$REC" --size "$SIZE" --inkkiosk "$BIN"
    echo
done
echo "== inkkiosk-bench api-bench --clients 200 --seconds 10 (the signature API under load, in one process)"
"$BENCH" api-bench --clients 200 --seconds 10
echo
echo "== peak RSS at $SIZE (limit 64 MB = 61.0 MiB)"
for p in "${PEAKS[@]}"; do
    set -- $p
    python3 -c 'import sys; m=float(sys.argv[2]); print(f"  {sys.argv[1]:<14} peak RSS {m:5.1f} MiB" + ("" if m <= 64e6/2**20 else "  OVER THE LIMIT"))' "$1" "$2"
done
echo
echo "== side by side with Xournal++ (scripts/peer-bench.sh)"
scripts/peer-bench.sh
