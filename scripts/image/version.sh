#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Prints the project's version, as `inkkiosk --version` does (Sources/InkCommandLine/InkKioskVersion.swift),
# without running a binary (an arm64 one does not run here).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
v=$(sed -n 's/^ *public static let string = "\([^"]*\)".*/\1/p' "$ROOT/Sources/InkCommandLine/InkKioskVersion.swift")
[ -n "$v" ] || { echo "version.sh: no version in Sources/InkCommandLine/InkKioskVersion.swift" >&2; exit 1; }
echo "$v"
