#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /usr/bin/grub-editenv of the disk image (scripts/image/updates.sh): RAUC's grub backend calls
# `grub-editenv FILE list|set|unset …` on the ESP's grubenv. The ESP is mounted read-only
# (boot.d/50-updates): FAT has no journal, and a power cut while it is writable can damage it; it
# is writable only while a variable changes, and synced before it is read-only again.
real=/usr/lib/inkkiosk/grub-editenv
case "$2" in
    set|unset|create)
        mount -o remount,rw /run/esp || { echo "grub-editenv: cannot make the ESP (/run/esp) writable" >&2; exit 1; }
        "$real" "$@"
        rc=$?
        sync
        mount -o remount,ro /run/esp || { echo "grub-editenv: the ESP (/run/esp) stays writable" >&2; rc=1; }
        exit "$rc" ;;
    *) exec "$real" "$@" ;;
esac
