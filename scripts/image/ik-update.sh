#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /usr/bin/ik-update of the disk image (scripts/image/updates.sh): installs an update bundle, or
# reboots into one, only while the kiosk has no session an update would cut.
#
#   ik-update install BUNDLE    rauc install BUNDLE, once the kiosk is idle
#   ik-update reboot            sync, then reboot, once the kiosk is idle
#
# Idle: the kiosk's busy file (/run/inkkiosk/busy, [update] busy_file) is absent. The kiosk keeps
# it present, holding why, while a host's signature request is open, ink is on the signature pad,
# or a capture or a classroom save is being written. This waits for its absence, at most
# ik.update.busy_wait seconds (kernel command line; default 900), then gives up with exit status
# 75 (EX_TEMPFAIL: try again later) and the reason the file gave: an update may wait, a signature
# may not. The check is made again right before the reboot, after the sync: the journal's last
# edits are on disk (the kiosk syncs each finished edit itself; sync flushes the rest) and a
# session that began meanwhile is not cut. A fleet client (docs/DEPLOYMENT.md) goes through this.
PATH=/usr/bin:/usr/sbin
export PATH
busy=${IK_BUSY_FILE:-/run/inkkiosk/busy}
wait_s=900
for a in $(cat /proc/cmdline); do
    case $a in ik.update.busy_wait=*) wait_s=${a#ik.update.busy_wait=} ;; esac
done
case $wait_s in ''|*[!0-9]*) echo "ik-update: ik.update.busy_wait=$wait_s is not a number of seconds" >&2; exit 2 ;; esac
say() { echo "<5>ik-update: $*" >/dev/kmsg 2>/dev/null; echo "ik-update: $*" >&2; }

# Returns once the kiosk is idle; exits 75 when it is still busy after the bound.
wait_idle() {
    i=0
    while [ -e "$busy" ]; do
        if [ "$i" = 0 ]; then say "waiting (at most $wait_s s) for the kiosk: $(cat "$busy" 2>/dev/null)"; fi
        i=$((i + 1))
        if [ "$i" -gt $((wait_s * 5)) ]; then
            say "not now: the kiosk is still busy after $wait_s s ($(cat "$busy" 2>/dev/null)); try again later"
            exit 75
        fi
        sleep 0.2
    done
    [ "$i" = 0 ] || say "the kiosk is idle after $((i / 5)) s"
}

case ${1:-} in
    install)
        [ -n "${2:-}" ] || { echo "usage: ik-update install BUNDLE" >&2; exit 2; }
        wait_idle
        say "installing $2"
        exec rauc install "$2"
        ;;
    reboot)
        wait_idle
        sync
        wait_idle   # a session that began during the sync is not cut
        say "rebooting (sync done, the kiosk idle)"
        exec reboot -f
        ;;
    *)
        echo "usage: ik-update install BUNDLE | ik-update reboot" >&2
        exit 2
        ;;
esac
