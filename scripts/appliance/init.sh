#!/bin/sh
# /init of the inkkiosk appliance (busybox sh as PID 1; scripts/appliance/build.sh puts it into
# out/appliance/initramfs.cpio.gz). Mounts the API file systems, loads the kernel modules, runs
# udevd until the devices are settled, then REPLACES itself with `inkkiosk run` on tty1: no
# shell, no getty, no login is left behind. If the kiosk exits, PID 1 is gone and the kernel
# panics; boot with `panic=5` (see out/appliance/cmdline.txt) and the board reboots into it.
#
# Kernel command line (all optional):
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

IK_LOG=/dev/console
IK_TEST=0
read -r cmdline </proc/cmdline
for arg in $cmdline; do
    case $arg in
        ik.log=*) IK_LOG=${arg#ik.log=} ;;
        ik.appliance.test=1) IK_TEST=1 ;;
    esac
done
{ : >>"$IK_LOG"; } 2>/dev/null || IK_LOG=/dev/null
say "started"

# The modules build.sh put in (their dependencies first, as modprobe resolves them).
# shellcheck disable=SC2046 # one module name per line
modprobe -a $(cat /etc/modules) || say "modprobe failed for some of: $(cat /etc/modules)"
say "modules loaded"

# udevd logs to the kernel log, not onto the console. Coldplug: only the devices the kiosk looks
# at (input event nodes, DRM cards) are replayed; whatever is plugged in later comes through
# udevd as usual (hotplug), for every subsystem.
SYSTEMD_LOG_TARGET=kmsg /usr/lib/systemd/systemd-udevd --daemon || say "systemd-udevd did not start"
udevadm trigger --type=devices --action=add --subsystem-match=input --subsystem-match=drm
udevadm settle --timeout=30 || say "udevadm settle timed out"
say "udev settled"

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

say "exec inkkiosk"
export HOME=/var/lib/inkkiosk
unset cmdline arg IK_TEST
exec /usr/bin/inkkiosk run --config /etc/inkkiosk/inkkiosk.toml </dev/tty1 >>"$IK_LOG" 2>&1
