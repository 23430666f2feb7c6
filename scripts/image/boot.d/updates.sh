#!/bin/sh
# /usr/lib/inkkiosk/boot.d/50-updates of the disk image (scripts/image/updates.sh), started in the
# background by /init (scripts/appliance/init.sh) with its output on the kiosk's log device.
# Once the kiosk has the screen (so that none of this delays its first frame): loads the modules an
# install needs, mounts the ESP read-only on /run/esp (grub-editenv makes it writable while it
# writes), starts a D-Bus system bus for root only and RAUC's service on it. `rauc install
# BUNDLE` and `rauc status …` then work as on any RAUC system.
PATH=/usr/bin:/usr/sbin
export PATH
say() { echo "<5>ik-updates: $*" >/dev/kmsg; }
shout() { echo "<3>ik-updates: $*" >/dev/kmsg; }

# The kiosk has the screen when it holds the DRM device open (its first frame follows within
# milliseconds); until then nothing here competes with its start. Everything after runs at a lower
# priority than the kiosk: an install takes longer rather than slowing the ink.
has_screen() {
    for f in /proc/1/fd/*; do
        case $(readlink "$f" 2>/dev/null) in /dev/dri/card*) return 0 ;; esac
    done
    return 1
}
c=
while [ "$c" != inkkiosk ] || ! has_screen; do sleep 0.2; read -r c </proc/1/comm; done
renice -n 10 -p $$ >/dev/null

read -r modules </usr/lib/inkkiosk/update-modules
# shellcheck disable=SC2086 # one module name per word
modprobe -a $modules || shout "modprobe failed for some of: $modules"
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
say "starting rauc service (booted slot: $(for a in $(cat /proc/cmdline); do case $a in rauc.slot=*) echo "${a#rauc.slot=}";; esac; done))"
exec rauc service
