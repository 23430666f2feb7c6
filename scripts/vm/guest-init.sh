#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /init of the inkkiosk test VM (runs under busybox sh in the initramfs that
# build-initramfs.sh makes; run.py boots it).
#
# Kernel command line (all optional except ik.cmd):
#   ik.cmd=PATH     command to run, a path on the host root (run.py writes a wrapper script)
#   ik.work=PATH    host path of the writable 'work' 9p share; bind-mounted at the same path
#   ik.kmsg=N       console log level while the command runs (default 1: emergencies only)
#   ik.hostcache=M  9p cache mode of the host root: loose (default; the guest caches what it
#                   has read, which halves start-up times of python & co.) or none (every
#                   read goes to the host: a file the host rewrites during the run is seen)
#
# Console protocol (run.py reads it): "@@IK-START@@" right before the command starts,
# "@@IK-EXIT <status>@@" after it, "@@IK-INIT-FAILED@@" if the guest could not be set up.
export PATH=/bin:/sbin
umask 022

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

say() { echo "ik-init: $*"; }

finish() {  # finish STATUS
    echo "@@IK-EXIT $1@@"
    sync
    poweroff -f
    sleep 5
    echo o >/proc/sysrq-trigger
}

save_dmesg() {
    if grep -q " /mnt/work " /proc/mounts; then
        mkdir -p /mnt/work/.ik 2>/dev/null && dmesg >/mnt/work/.ik/dmesg.txt 2>/dev/null
    fi
}

fail() {
    say "FAILED: $*"
    echo "@@IK-INIT-FAILED@@"
    dmesg | tail -n 30
    save_dmesg
    finish 125
}

IK_CMD=
IK_WORK=
IK_KMSG=1
set -f  # no globbing anywhere below: paths from the command line are used unquoted in $ENV
for arg in $(cat /proc/cmdline); do
    case $arg in
        ik.cmd=*) IK_CMD=${arg#ik.cmd=} ;;
        ik.work=*) IK_WORK=${arg#ik.work=} ;;
        ik.kmsg=*) IK_KMSG=${arg#ik.kmsg=} ;;
        ik.hostcache=*) IK_HOSTCACHE=${arg#ik.hostcache=} ;;
    esac
done
say "up at $(cut -d' ' -f1 /proc/uptime) s (kernel $(uname -r))"

while read -r m; do
    [ -n "$m" ] || continue
    out=$(insmod "/lib/modules/$m.ko" 2>&1) || say "insmod $m: $out"
done </etc/modules.order

R=/mnt/host
OPTS=trans=virtio,version=9p2000.L,msize=262144
# The host root is read-only for the guest. The work share always uses cache=none: the
# host and the guest exchange files through it while both run.
mount -t 9p -o "$OPTS,cache=${IK_HOSTCACHE:-loose},ro" hostroot "$R" || fail "cannot mount the host root (9p tag hostroot)"
if [ -n "$IK_WORK" ]; then
    mount -t 9p -o "$OPTS,cache=none" work /mnt/work || fail "cannot mount the work share (9p tag work)"
fi

# /etc is writable in the guest (a tmpfs over the host's, through overlayfs): a test installs
# there what a board has (libinput quirks, udev rules) without touching the host.
mkdir -p /mnt/etc-rw
mount -t tmpfs -o mode=755 tmpfs /mnt/etc-rw && mkdir -p /mnt/etc-rw/upper /mnt/etc-rw/work \
    || fail "tmpfs for /etc"
mount -t overlay overlay -o "lowerdir=$R/etc,upperdir=/mnt/etc-rw/upper,workdir=/mnt/etc-rw/work" "$R/etc" \
    || fail "cannot make /etc writable (overlayfs)"

mount -t devtmpfs devtmpfs "$R/dev" || fail "devtmpfs on $R/dev"
mkdir -p "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts "$R/dev/pts" || fail "devpts"
mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm" || fail "tmpfs on /dev/shm"
mount -t proc proc "$R/proc" || fail "proc"
mount -t sysfs sysfs "$R/sys" || fail "sysfs"
mount -t tmpfs -o mode=755 tmpfs "$R/run" || fail "tmpfs on /run"
mount -t tmpfs -o mode=1777 tmpfs "$R/tmp" || fail "tmpfs on /tmp"
mount -t tmpfs -o mode=1777 tmpfs "$R/var/tmp" 2>/dev/null || true
mkdir -p "$R/run/lock" "$R/run/user/0" "$R/tmp/.cache"
chmod 700 "$R/run/user/0"
if [ -n "$IK_WORK" ]; then
    # The mount point exists on the host, or lies in one of the tmpfs above (/tmp, /run).
    mkdir -p "$R$IK_WORK" 2>/dev/null
    mount --bind /mnt/work "$R$IK_WORK" || fail "cannot bind the work share at $IK_WORK"
fi

ENV="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb"
ENV="$ENV XDG_RUNTIME_DIR=/run/user/0 XDG_CACHE_HOME=/tmp/.cache SYSTEMD_IGNORE_CHROOT=1"
ENV="$ENV IK_WORK=$IK_WORK IK_VM=1"
inroot() { chroot "$R" /usr/bin/env -i $ENV "$@"; }

# (tests run inside the chroot: the host's absolute symlinks only resolve there)
inroot test -x /lib/systemd/systemd-udevd || fail "the host has no /lib/systemd/systemd-udevd (apt-get install udev)"
inroot /lib/systemd/systemd-udevd --daemon || fail "systemd-udevd did not start"
inroot udevadm trigger --type=subsystems --action=add
inroot udevadm trigger --type=devices --action=add
inroot udevadm settle --timeout=60 || say "udevadm settle timed out"
say "udev settled at $(cut -d' ' -f1 /proc/uptime) s"

[ -n "$IK_CMD" ] || fail "no ik.cmd= on the kernel command line"
inroot test -e "$IK_CMD" || fail "ik.cmd $IK_CMD does not exist on the host root"

echo "$IK_KMSG" >/proc/sys/kernel/printk
echo "@@IK-START@@ uptime $(cut -d' ' -f1 /proc/uptime)"
if inroot test -x "$IK_CMD"; then
    inroot "$IK_CMD" </dev/null
else
    inroot /bin/sh "$IK_CMD" </dev/null
fi
status=$?
save_dmesg
finish "$status"
