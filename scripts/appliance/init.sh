#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /init of the inkkiosk appliance (busybox sh as PID 1; scripts/appliance/build.sh puts it into
# out/appliance/initramfs.cpio.zst). Mounts the API file systems, loads the kernel modules, runs
# udevd and, while it settles the devices, checks and mounts the data partition on
# /var/lib/inkkiosk (the journal and the outbox), then REPLACES itself with `inkkiosk run` on
# tty1: no shell, no getty, no login is left behind. If the kiosk exits, PID 1 is gone and the kernel
# panics; boot with `panic=5` (see out/appliance/cmdline.txt) and the board reboots into it.
#
# Kernel command line (all optional):
#   ik.data=SPEC         the data partition: LABEL=NAME (default LABEL=inkdata), UUID=…, a
#                        device (/dev/mmcblk0p3), or none (RAM only). Made once on the board with
#                        `mkfs.ext4 -L inkdata /dev/mmcblk0p3`.
#   ik.data.wait=S       how long to wait for it to show up (default 5 s: SD cards and USB
#                        sticks are found after the modules load, not with them)
#   ik.log=PATH          where the kiosk's stderr (its status lines) goes; default /dev/console,
#                        i.e. the last console= of the command line (console=ttyS0: the serial
#                        port). Falls back to /dev/null if PATH cannot be opened.
#   ik.appliance.test=1  TEST ONLY (scripts/appliance/boot-test.py): a background busybox loop
#                        that waits until PID 1 is the kiosk, then prints one line to the log
#                        device: "@@IK-APPLIANCE-KIOSK uptime=S pid1=COMM procs=COMMS@@", and
#                        runs /ik-test/hook if the image has one. The appliance has none:
#                        boot-test.py appends a test-only archive with it (a uinput pen) to the
#                        initramfs it boots. Without the flag nothing of it runs.
#
# Milestones go to the kernel log (/dev/kmsg, priority notice): `dmesg` shows them with the
# kernel's timestamps; with `quiet` they do not reach the screen, with loglevel=6 or more they
# reach the console.
PATH=/usr/bin:/usr/sbin
export PATH
umask 022

mount -t proc -o nosuid,nodev,noexec proc /proc
mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
mount -t devtmpfs -o nosuid,mode=755 devtmpfs /dev
mount -t tmpfs -o nosuid,nodev,mode=755 tmpfs /run
mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs /tmp

say() { echo "<5>ik-init: $*" >/dev/kmsg; }

# Loud: errors reach the console even with `quiet` (its log level is 4; this is 3).
shout() { echo "<3>ik-init: $*" >/dev/kmsg; }

IK_LOG=/dev/console
IK_TEST=0
IK_DATA=LABEL=inkdata
IK_DATA_WAIT=5
read -r cmdline </proc/cmdline
for arg in $cmdline; do
    case $arg in
        ik.log=*) IK_LOG=${arg#ik.log=} ;;
        ik.appliance.test=1) IK_TEST=1 ;;
        ik.data=*) IK_DATA=${arg#ik.data=} ;;
        ik.data.wait=*) IK_DATA_WAIT=${arg#ik.data.wait=} ;;
    esac
done
{ : >>"$IK_LOG"; } 2>/dev/null || IK_LOG=/dev/null
say "started"

# udevd first: it reads its rules while the modules load, and takes their devices' events as
# they come. It logs to the kernel log, not onto the console.
SYSTEMD_LOG_TARGET=kmsg /usr/lib/systemd/systemd-udevd --daemon || say "systemd-udevd did not start"

# The modules build.sh put in, their dependencies first (modprobe resolves them). /etc/modules:
# line 1 the screen's and input's, line 2 the data partition's (disjoint: build.sh checks), loaded
# at the same time; line 3 the board's own (APPLIANCE_MODULES), after both.
{ read -r screen_modules; read -r data_modules; read -r board_modules; } </etc/modules
# shellcheck disable=SC2086 # one module name per word
{ [ -z "$screen_modules" ] || modprobe -a $screen_modules || say "modprobe failed for some of: $screen_modules"; } &
# shellcheck disable=SC2086
[ -z "$data_modules" ] || modprobe -a $data_modules || say "modprobe failed for some of: $data_modules"
wait
# shellcheck disable=SC2086
[ -z "$board_modules" ] || modprobe -a $board_modules || say "modprobe failed for some of: $board_modules"
say "modules loaded"

# Coldplug: the devices that were there before udevd (input event nodes, DRM cards, disks) are
# replayed; whatever comes later goes through udevd as usual (hotplug), for every subsystem.
# udevd works through them while the data partition is checked (below: findfs, e2fsck and mount
# need devtmpfs's nodes, not udev); the kiosk starts once both are done.
udevadm trigger --type=devices --action=add --subsystem-match=input --subsystem-match=drm --subsystem-match=block
say "udev started"

# --- the data partition -------------------------------------------------------------------------
# /var/lib/inkkiosk holds the journal (every finished stroke) and the outbox (accepted
# signatures). A kiosk must start whatever the disk says: no boot loop, no prompt, ink drawable;
# what went wrong goes to the kernel log (and the console) instead.
DATA=/var/lib/inkkiosk
# noatime: reading the journal at start is no write (an SD card wears by writes).
# data=ordered: a file's new length reaches the disk only after its data, so a cut leaves a
#   journal's tail old or new, never blocks of another file; data=journal would write every
#   byte twice (twice the wear and the time of each fsync) for nothing the kiosk's own fsyncs
#   and checksums do not already give.
# errors=remount-ro: an error the kernel finds later stops writes to the damaged file system
#   (the kiosk then shows "Cannot save to disk" and keeps drawing); never errors=panic (a loop).
DATA_OPTS=nosuid,nodev,noexec,noatime,data=ordered,errors=remount-ro

data_in_ram() {
    shout "data: $*; ink and signatures are kept in RAM only and are LOST at power-off"
    mount -t tmpfs -o nosuid,nodev,noexec,mode=0755,size=25% tmpfs "$DATA"
}

# Logs a command's output line by line to the kernel log.
say_lines() { while IFS= read -r l; do [ -n "$l" ] && say "data: $1: $l"; done <"$2"; }

find_data() {
    case $IK_DATA in
        LABEL=*|UUID=*) findfs "$IK_DATA" 2>/dev/null ;;
        /dev/*) [ -b "$IK_DATA" ] && echo "$IK_DATA" ;;
    esac
}

mount_data() {
    if [ "$IK_DATA" = none ]; then data_in_ram "ik.data=none"; return; fi
    # Block devices may come later than the modules (USB, SD cards): wait for it, not forever.
    dev=$(find_data)
    waited=0
    while [ -z "$dev" ] && [ "$waited" -lt $((IK_DATA_WAIT * 10)) ]; do
        sleep 0.1
        waited=$((waited + 1))
        dev=$(find_data)
    done
    if [ -z "$dev" ]; then data_in_ram "no file system $IK_DATA found within ${IK_DATA_WAIT} s"; return; fi

    # Exit status (bits): 1 errors corrected, 2 "reboot": only when the checked file system is
    # mounted, which this one is not yet, so nothing to do; 4 errors left, 8 operational error,
    # 16 usage, 32 cancelled, 128 library error.
    e2fsck -p "$dev" >/run/ik-fsck.log 2>&1
    rc=$?
    say_lines "e2fsck -p $dev" /run/ik-fsck.log
    say "data: e2fsck -p $dev: exit $rc"
    if [ "$rc" -ge 4 ]; then
        # Nobody is there to answer questions: -y repairs what it can (damaged files may go to
        # lost+found; the journal's and the captures' own checksums reject torn content).
        shout "data: e2fsck -p $dev found errors it may not fix alone (exit $rc): running e2fsck -y"
        e2fsck -y "$dev" >/run/ik-fsck.log 2>&1
        rc=$?
        say_lines "e2fsck -y $dev" /run/ik-fsck.log
        say "data: e2fsck -y $dev: exit $rc"
        # Still damaged: mount it all the same. The ink that is there is worth more than an empty
        # kiosk, and errors=remount-ro stops writes at the first error the kernel meets.
        [ "$rc" -ge 4 ] && shout "data: $dev is still damaged after e2fsck -y (exit $rc); mounting it anyway; replace the card"
    fi
    if mount -t ext4 -o "$DATA_OPTS" "$dev" "$DATA"; then
        say "data: $dev ($IK_DATA) mounted on $DATA (ext4 $DATA_OPTS; check exit $rc)"
    else
        data_in_ram "$dev ($IK_DATA) would not mount as ext4 (check exit $rc)"
    fi
}
mount_data

udevadm settle --timeout=30 || say "udevadm settle timed out"
say "udev settled"

# What an image adds to the appliance (scripts/image: the update engine, in a second archive),
# each in the background with its output on the log device: none of it delays the kiosk.
for h in /usr/lib/inkkiosk/boot.d/*; do
    [ -x "$h" ] && "$h" </dev/null >>"$IK_LOG" 2>&1 &
done

if [ "$IK_TEST" = 1 ]; then
    (
        c=
        while [ "$c" != inkkiosk ]; do sleep 0.02; read -r c </proc/1/comm; done
        read -r up _ </proc/uptime
        procs=
        for d in /proc/[0-9]*; do
            [ -e "$d/exe" ] || continue  # kernel threads have no executable
            read -r n <"$d/comm" && procs="$procs${procs:+,}$n"
        done
        echo "@@IK-APPLIANCE-KIOSK uptime=$up pid1=$c procs=$procs@@"
        [ -x /ik-test/hook ] && exec /ik-test/hook
    ) </dev/null >>"$IK_LOG" 2>&1 &
fi

IK_JOURNAL=
# shellcheck disable=SC1091 # written by build.sh
. /etc/inkkiosk/appliance.env
# The uptime (CLOCK_BOOTTIME, as the kiosk's first-frame line) lets the boot test time the kiosk's
# start to its first frame on one clock, without polling the screen.
read -r up _ </proc/uptime
say "exec inkkiosk (uptime $up s)"
export HOME=/var/lib/inkkiosk
# No core files: the kiosk holds signatures and pupils' work (it also sets this itself, and
# makes itself non-dumpable, as the systemd unit's LimitCORE=0 does).
ulimit -c 0
unset h up cmdline arg IK_TEST IK_DATA IK_DATA_WAIT DATA_OPTS dev rc waited screen_modules data_modules board_modules
exec /usr/bin/inkkiosk run --config /etc/inkkiosk/inkkiosk.toml ${IK_JOURNAL:+--journal "$IK_JOURNAL"} </dev/tty1 >>"$IK_LOG" 2>&1
