#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a part of `make test` and appends its time to out/test/times.txt.
#   scripts/timed.sh NAME COMMAND [ARG …]
set -uo pipefail
name=$1
shift
start=$SECONDS
"$@"
status=$?
mkdir -p out/test
printf '%5d s  %s%s\n' $((SECONDS - start)) "$name" "$( ((status == 0)) || echo " (failed: exit $status)")" >>out/test/times.txt
exit $status
