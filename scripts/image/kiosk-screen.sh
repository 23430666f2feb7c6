# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=sh
# /usr/lib/inkkiosk/kiosk-screen.sh of the disk image, sourced by the boot.d scripts that start
# work beside the kiosk (updates, the cloud agent): wait_for_kiosk_screen returns once the kiosk
# (PID 1) holds the DRM device open, its first frame within milliseconds of that, so that nothing
# they start competes with the kiosk's own start.
kiosk_has_screen() {
    for f in /proc/1/fd/*; do
        case $(readlink "$f" 2>/dev/null) in /dev/dri/card*) return 0 ;; esac
    done
    return 1
}

wait_for_kiosk_screen() {
    c=
    while [ "$c" != inkkiosk ] || ! kiosk_has_screen; do sleep 0.2; read -r c </proc/1/comm; done
}
