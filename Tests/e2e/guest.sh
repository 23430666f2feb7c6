#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Inside the VM: plays the scenario against the kiosk binary shipped in the same kit.
kit=$(dirname "$(dirname "$(dirname "$(readlink -f "$0")")")")
exec /usr/bin/python3 "$kit/Tests/e2e/scenario.py" "$kit/inkkiosk" "$@"
