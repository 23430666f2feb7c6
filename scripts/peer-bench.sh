#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Side by side with Xournal++ (Debian's xournalpp): one 1920x1080 page of 60 signatures, written
# as an .inklog and as a .xopp, turned into a PNG by each program, alternately, RUNS times each
# (default 7); medians and their ratio, then the same for SVG and PDF. Both pictures are checked:
# ink where the strokes are, nothing elsewhere. Called by scripts/bench.sh (make bench).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=.build/release/inkkiosk
OUT=out/bench/peer
RUNS=${RUNS:-7}

if [[ ! -x $BIN ]]; then
    echo "peer-bench: $BIN is missing; run 'make bench' (or 'make release') first." >&2
    exit 1
fi

# Xournal++ and Pillow (for the picture checks), from Debian, when missing.
missing=()
command -v xournalpp >/dev/null 2>&1 || missing+=(xournalpp)
PY=/usr/bin/python3
[[ -x $PY ]] || PY=$(command -v python3)
"$PY" -c 'import PIL' 2>/dev/null || missing+=(python3-pil)
if (( ${#missing[@]} > 0 )); then
    if [[ $(id -u) -eq 0 ]]; then SUDO=(); elif command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else
        echo "peer-bench: missing packages: ${missing[*]}; install them as root and run again." >&2
        exit 1
    fi
    echo "peer-bench: installing ${missing[*]}"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

mkdir -p "$OUT"
"$PY" Tests/Recordings/generate.py --signatures 60 --out "$OUT/page.inklog" --xopp "$OUT/page.xopp"
exec "$PY" scripts/peer-bench.py --bin "$BIN" --out "$OUT" --runs "$RUNS"
