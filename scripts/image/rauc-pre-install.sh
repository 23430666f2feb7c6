#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /usr/lib/inkkiosk/rauc-pre-install of the disk image: RAUC's pre-install handler (system.conf's
# [handlers]), run by every install whoever starts it (the fleet's agent, a USB stick, a person
# with `rauc install`) after the bundle's signature and compatible are checked and before a slot
# is written. It refuses a downgrade: a bundle whose version is older than the booted one
# (ik.version=) unless the config's [update] allow_downgrade; the rule is the agent's own
# (`inkkiosk update-agent --may-install`), which prints the reason. RAUC then fails the install
# ("Pre-install handler error") and writes nothing.
#
# The version: RAUC_MF_VERSION where RAUC sets it for handlers (newer releases), else the
# [update] section's version= of the mounted bundle's manifest (RAUC 1.8 gives handlers only
# RAUC_BUNDLE_MOUNT_POINT).
version=${RAUC_MF_VERSION:-}
manifest=${RAUC_BUNDLE_MOUNT_POINT:-/nonexistent}/manifest.raucm
if [ -z "$version" ] && [ -r "$manifest" ]; then
    section=
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            \[*\]) section=$line ;;
            version=*) [ "$section" = "[update]" ] && { version=${line#version=}; break; } ;;
        esac
    done <"$manifest"
fi
exec /usr/bin/inkkiosk update-agent --config /etc/inkkiosk/inkkiosk.toml --may-install "$version"
