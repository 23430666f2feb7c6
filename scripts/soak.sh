#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The soak benchmark (`make soak` builds first): each day in its own process, so that one
# day's memory figures do not start where the other's ended. The journal and outbox go to
# SOAK_DIR (default: a fresh directory under /var/tmp, a disk like the kiosk's).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/inkkiosk-bench
if [[ ! -x $BIN ]]; then
    echo "soak: $BIN is missing; run 'make soak' (or 'make release') first." >&2
    exit 1
fi
DIR=${SOAK_DIR:-/var/tmp}
mkdir -p "$DIR"
echo "== inkkiosk-bench soak --day classroom (20000 strokes, 60 pages) in $DIR"
"$BIN" soak --day classroom --dir "$DIR"
echo
echo "== inkkiosk-bench soak --day shop (500 signatures) in $DIR"
"$BIN" soak --day shop --dir "$DIR"
