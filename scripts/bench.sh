#!/usr/bin/env bash
# The benchmark: a long recording through the release binary (`make bench` builds it first),
# then one page of signatures side by side with Xournal++ (scripts/peer-bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=.build/release/inkkiosk
REC=out/bench/long-2000.inklog
SIZE=1920x1080

if [[ ! -x $BIN ]]; then
    echo "bench: $BIN is missing; run 'make bench' (or 'make release') first." >&2
    exit 1
fi
if [[ ! -f $REC ]]; then
    mkdir -p "$(dirname "$REC")"
    echo "bench: generating $REC"
    python3 Tests/Recordings/generate.py --long 2000 --out "$REC.tmp"
    mv "$REC.tmp" "$REC"
fi

echo "== inkkiosk bench $REC --size $SIZE"
"$BIN" bench "$REC" --size "$SIZE"
echo
echo "== inkkiosk replay $REC --size $SIZE --no-prediction --stats"
"$BIN" replay "$REC" --size "$SIZE" --no-prediction --stats
echo
echo "== inkkiosk api-bench --clients 200 --seconds 10 (the signature API under load, in one process)"
"$BIN" api-bench --clients 200 --seconds 10
echo
echo "== side by side with Xournal++ (scripts/peer-bench.sh)"
scripts/peer-bench.sh
