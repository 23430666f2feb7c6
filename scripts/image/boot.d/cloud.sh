#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /usr/lib/inkkiosk/boot.d/60-cloud of the disk image (installed by scripts/image/updates.sh),
# started in the background by /init (scripts/appliance/init.sh) with its output on the kiosk's
# log device. The classroom's cloud agent (`inkkiosk cloud-agent`, docs/DEPLOYMENT.md "A class on
# the school's cloud"), run as deploy/systemd/inkkiosk-cloud.service runs it on a systemd board:
# once the kiosk has the screen (none of this delays its first frame), at a lower priority than
# the kiosk, started again 300 s after it fails. It exits 0 at once when [cloud] sets neither
# server nor share. It runs as root, as the kiosk does here (PID 1): the two share files in
# /var/lib/inkkiosk, and the image has no other user. The network is boot.d/updates.sh's (DHCP);
# until it is up, the agent's rounds fail and it backs off on its own.
PATH=/usr/bin:/usr/sbin
export PATH
shout() { echo "<3>ik-cloud: $*" >/dev/kmsg; }

# shellcheck source=scripts/image/kiosk-screen.sh
. /usr/lib/inkkiosk/kiosk-screen.sh
wait_for_kiosk_screen

# As the unit's Nice=15 and IOSchedulingClass=idle: the ink and its journal's writes come first.
renice -n 15 -p $$ >/dev/null
ionice -c 3 -p $$ 2>/dev/null || shout "ionice failed: the agent's disk writes keep the normal I/O class"
# As the unit's UMask=0077 and LimitCORE=0: pupils' work and the class's credentials are readable
# by root alone (the agent and the kiosk), and never land in a core file.
umask 077
# shellcheck disable=SC3045 # busybox sh has ulimit -c
ulimit -c 0

while :; do
    /usr/bin/inkkiosk cloud-agent --if-configured --config /etc/inkkiosk/inkkiosk.toml && exit 0
    shout "the cloud agent stopped (exit $?): started again in 300 s"
    sleep 300
done
