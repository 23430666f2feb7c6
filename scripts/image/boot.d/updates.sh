#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /usr/lib/inkkiosk/boot.d/50-updates of the disk image (scripts/image/updates.sh), started in the
# background by /init (scripts/appliance/init.sh) with its output on the kiosk's log device.
# Once the kiosk has the screen (so that none of this delays its first frame): loads the modules an
# install needs, mounts the ESP read-only on /run/esp (grub-editenv makes it writable while it
# writes), starts a D-Bus system bus for root only and RAUC's service on it. `rauc install
# BUNDLE` and `rauc status …` then work as on any RAUC system.
#
# Then it confirms the boot, when the kiosk itself says it works: once it has written its ready
# file (/run/inkkiosk/ready, [update] ready_file: its first frame on screen, its input open), and
# ik.update.confirm_after seconds later (kernel command line; default 60; `never` leaves every
# boot unconfirmed, for tests) it is still PID 1, still holds the screen and the file is still
# there, and GRUB marked this boot as a try (<slot>_TRY=1): `rauc status mark-good`. A kiosk that
# crashes takes PID 1 with it (the kernel panics, panic=5 reboots); one that hangs stops feeding
# the hardware watchdog ([update] watchdog, its timeout below confirm_after), which resets the
# machine: either way this boot stays unconfirmed and GRUB skips the slot. Once the boot is
# confirmed (or needed no confirmation), /run/inkkiosk/boot-confirmed names the slot: what an
# update client waits for before it reports an update as done. Then it starts the fleet's update
# agent (`inkkiosk update-agent`, when the config names a server; started again 300 s after it
# fails, e.g. while the device has no identity yet) and watches for USB sticks with a bundle
# (/usr/lib/inkkiosk/stick-updates).
PATH=/usr/bin:/usr/sbin
export PATH
confirm_after=60
slot=
for a in $(cat /proc/cmdline); do
    case $a in
        rauc.slot=*) slot=${a#rauc.slot=} ;;
        ik.update.confirm_after=*) confirm_after=${a#ik.update.confirm_after=} ;;
    esac
done
say() { echo "<5>ik-updates: $*" >/dev/kmsg; }
shout() { echo "<3>ik-updates: $*" >/dev/kmsg; }

# Nothing here competes with the kiosk's start; everything after runs at a lower priority than
# the kiosk: an install takes longer rather than slowing the ink.
# shellcheck source=scripts/image/kiosk-screen.sh
. /usr/lib/inkkiosk/kiosk-screen.sh
wait_for_kiosk_screen
renice -n 10 -p $$ >/dev/null

read -r modules </usr/lib/inkkiosk/update-modules
# shellcheck disable=SC2086 # one module name per word
modprobe -a $modules || shout "modprobe failed for some of: $modules"
# The network, for a fleet server: every interface with a device (not lo) up, its address by DHCP
# (busybox's udhcpc, in the background: it keeps asking while there is no lease, and renews).
i=0
while [ "$i" -lt 25 ]; do
    nics=
    for n in /sys/class/net/*; do [ -e "$n/device" ] && nics="$nics ${n##*/}"; done
    [ -n "$nics" ] && break
    i=$((i + 1)); sleep 0.2
done
for n in $nics; do
    ip link set "$n" up
    udhcpc -i "$n" -s /usr/lib/inkkiosk/udhcpc.script -b -S -t 3 -T 2 -A 5 >/dev/null 2>&1 &
done
[ -n "$nics" ] || say "no network interface: updates come from a USB stick only"
# The slots by their GPT names, as udev's persistent-storage rules would link them (RAUC's
# system.conf names /dev/disk/by-partlabel/rootfs-a and -b): only the partitions of the disk the
# data partition is mounted from, so that a stick with partitions of the same names cannot stand
# in for a slot.
link_partitions() {
    data_dev=
    while read -r dev mnt _; do [ "$mnt" = /var/lib/inkkiosk ] && data_dev=${dev#/dev/}; done </proc/mounts
    [ -n "$data_dev" ] && [ -e "/sys/class/block/$data_dev/partition" ] || {
        shout "the data partition is not mounted from a disk partition: RAUC's slots are not linked (updates cannot be installed)"
        return 1
    }
    disk=$(readlink -f "/sys/class/block/$data_dev/..")
    mkdir -p /dev/disk/by-partlabel
    for part in "$disk"/*/partition; do
        part=${part%/partition}
        name= dev=
        while IFS='=' read -r k v; do
            case $k in PARTNAME) name=$v ;; DEVNAME) dev=$v ;; esac
        done <"$part/uevent"
        [ -n "$name" ] && [ -n "$dev" ] && ln -sfn "../../$dev" "/dev/disk/by-partlabel/$name"
    done
    say "slots: rootfs-a on $(readlink /dev/disk/by-partlabel/rootfs-a 2>/dev/null || echo nothing), rootfs-b on $(readlink /dev/disk/by-partlabel/rootfs-b 2>/dev/null || echo nothing)"
}
link_partitions
mkdir -p /run/esp /run/dbus /run/rauc /var/lib/inkkiosk/rauc
esp=$(findfs LABEL=ESP 2>/dev/null)
if [ -z "$esp" ]; then
    shout "no ESP (LABEL=ESP): updates cannot change the boot order"
elif ! mount -t vfat -o ro,nosuid,nodev,noexec "$esp" /run/esp; then
    shout "the ESP $esp would not mount (vfat): updates cannot change the boot order"
fi
# D-Bus wants a machine id; this one lives as long as the boot.
if [ ! -s /etc/machine-id ]; then
    read -r u </proc/sys/kernel/random/uuid
    echo "${u//-/}" >/etc/machine-id
fi
dbus-daemon --config-file=/etc/dbus-1/system.conf --fork --nopidfile --nosyslog || { shout "dbus-daemon did not start"; exit 1; }
say "starting rauc service (booted slot: ${slot:-none})"
rauc service &

# The fleet's agent, once this boot is confirmed: it installs into the other slot, which is the
# fallback during a try boot. It ends (0) once it has asked for a reboot, or at once when the
# config names no server.
start_agent() {
    (
        while :; do
            /usr/bin/inkkiosk update-agent --if-configured --config /etc/inkkiosk/inkkiosk.toml && exit 0
            shout "the update agent stopped (exit $?): started again in 300 s"
            sleep 300
        done
    ) &
}

[ "$confirm_after" = never ] && exit 0
case $slot in A|B) ;; *) say "no rauc.slot on the kernel command line: nothing to confirm"; exit 0 ;; esac
ready=/run/inkkiosk/ready
i=0
until [ -e "$ready" ]; do
    i=$((i + 1))
    # Said once: a kiosk that never gets ready leaves this boot unconfirmed, which is the point.
    [ "$i" = 600 ] && shout "slot $slot: the kiosk has held the screen for 120 s and is not ready ($ready): not confirmed"
    sleep 0.2
done
read -r up _ </proc/uptime
say "slot $slot: the kiosk is ready (uptime $up s: $(cat "$ready" 2>/dev/null)); confirming in $confirm_after s"
sleep "$confirm_after"
c=
read -r c </proc/1/comm
if [ "$c" != inkkiosk ] || ! kiosk_has_screen || [ ! -e "$ready" ]; then
    shout "the kiosk is not ready and holding the screen $confirm_after s after it said it was: slot $slot stays unconfirmed"
    exit 1
fi
try=
while IFS= read -r l; do case $l in "${slot}_TRY="*) try=${l#*=} ;; esac; done <<EOF
$(grub-editenv /run/esp/EFI/BOOT/grubenv list 2>/dev/null)
EOF
mkdir -p /run/inkkiosk
if [ "$try" != 1 ]; then
    say "slot $slot: this boot needs no confirmation (${slot}_TRY=${try:-unset})"
    echo "$slot" >/run/inkkiosk/boot-confirmed
    start_agent
    exec /usr/lib/inkkiosk/stick-updates
fi
# The service may still be starting: ask until it answers (bounded).
i=0
until out=$(rauc status mark-good 2>&1); do
    i=$((i + 1))
    if [ "$i" -gt 60 ]; then shout "slot $slot: rauc status mark-good failed: $out"; exit 1; fi
    sleep 0.5
done
say "slot $slot: boot confirmed, the kiosk ready for $confirm_after s (rauc status mark-good)"
echo "$slot" >/run/inkkiosk/boot-confirmed
# Updates from the fleet and from a USB stick, now that the other slot may be written.
start_agent
exec /usr/lib/inkkiosk/stick-updates
