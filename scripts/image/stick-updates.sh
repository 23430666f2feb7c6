#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /usr/lib/inkkiosk/stick-updates of the disk image (scripts/image/updates.sh): updates from a USB
# stick, for sites without a network. Started by boot.d/updates.sh once this boot is confirmed
# (/run/inkkiosk/boot-confirmed): during a try boot the other slot is the fallback, and nothing
# may be written into it.
#
# Every 2 s it looks at the block devices on a USB bus (/sys/block/sd*, their path through
# /sys/devices has a usb* part). A new one is mounted read-only (vfat: a partition, else the whole
# device) and the RAUC bundles at its top (*.raucb, at most IK_STICK_MAX_BUNDLES, default 8, in
# name order) are tried in turn: `rauc info` checks the signature and reads the version; one whose
# version is the running one (ik.version= on the kernel command line) is passed over (the stick
# was left in after its update); the others go to `ik-update install` (once the kiosk has no
# session), RAUC's checks refuse what is not for this device (signature, compatible, verity, a
# downgrade). The first one installed ends the round: the stick is unmounted, and `ik-update
# reboot` (once the kiosk is idle, synced) starts the new slot. Each outcome is a kernel log line,
# "ik-stick: …" (a refusal says RAUC's reason). A stick is handled once while it stays in.
PATH=/usr/bin:/usr/sbin
export PATH
say() { echo "<5>ik-stick: $*" >/dev/kmsg; }
shout() { echo "<3>ik-stick: $*" >/dev/kmsg; }
max=${IK_STICK_MAX_BUNDLES:-8}
mnt=/run/inkkiosk/stick
running=
for a in $(cat /proc/cmdline); do
    case $a in ik.version=*) running=${a#ik.version=} ;; esac
done
mkdir -p "$mnt"

# The value of NAME='…' in `rauc info --output-format=shell`'s output ($2).
shell_value() {
    while IFS= read -r l; do
        case $l in "$1="*) v=${l#*=}; v=${v#\'}; echo "${v%\'}"; return ;; esac
    done <<EOF
$2
EOF
}

# try BUNDLE: 0 when it was installed, 1 otherwise (said why).
try() {
    b=$1 name=${1##*/}
    if ! info=$(rauc info --output-format=shell "$b" 2>&1); then
        why=
        while IFS= read -r l; do [ -n "$l" ] && why=$l; done <<EOF
$info
EOF
        shout "refused $name: ${why:-rauc info failed}"
        return 1
    fi
    version=$(shell_value RAUC_MF_VERSION "$info")
    if [ -n "$running" ] && [ "$version" = "$running" ]; then
        say "$name: version $version runs already; passed over"
        return 1
    fi
    say "installing $name (version $version; running ${running:-unknown})"
    read -r t0 _ </proc/uptime
    # RAUC's progress goes to the console as it comes (a line per step); its last error is the reason.
    log=/run/inkkiosk/stick-install.log
    : >"$log"
    rm -f "$log.rc"
    { ik-update install "$b" 2>&1; echo "@rc=$?"; } | while IFS= read -r l; do
        case $l in
            "@rc="*) echo "${l#@rc=}" >"$log.rc" ;;
            *) echo "ik-stick: $l" >/dev/console; echo "$l" >>"$log" ;;
        esac
    done
    read -r rc <"$log.rc" || rc=1
    why=
    while IFS= read -r l; do case $l in "LastError: "*) why=${l#LastError: } ;; esac; done <"$log"
    read -r t1 _ </proc/uptime
    if [ "$rc" != 0 ]; then
        if [ "$rc" = 75 ]; then
            shout "$name: not now, the kiosk stayed busy; it is tried again when the stick comes back"
        else
            shout "refused $name: ${why:-rauc install exit $rc}"
        fi
        return 1
    fi
    say "installed $name (version $version) in $(( ${t1%.*} - ${t0%.*} )) s (uptime $t0 → $t1)"
    return 0
}

# handle DEVICE: mounts it, tries its bundles; a reboot when one was installed.
handle() {
    dev=$1 source=
    for p in /sys/block/"$dev"/"$dev"[0-9]* /sys/block/"$dev"; do
        [ -e "$p" ] || continue
        if mount -t vfat -o ro,nosuid,nodev,noexec "/dev/${p##*/}" "$mnt" 2>/dev/null; then source=${p##*/}; break; fi
    done
    if [ -z "$source" ]; then
        say "$dev: no vfat file system on the stick; nothing to install"
        return
    fi
    n=0 installed=
    for b in "$mnt"/*.raucb; do
        [ -f "$b" ] || continue
        n=$((n + 1))
        if [ "$n" -gt "$max" ]; then
            shout "$source: more than $max bundles; the rest are not looked at"
            break
        fi
        if try "$b"; then installed=$b; break; fi
    done
    [ "$n" = 0 ] && say "$source: no *.raucb at the top of the stick"
    umount "$mnt"
    if [ -n "$installed" ]; then
        say "the stick can be pulled out; rebooting into the new slot"
        exec ik-update reboot
    fi
}

seen=" "
while :; do
    present=" "
    for d in /sys/block/sd*; do
        [ -e "$d" ] || continue
        dev=${d##*/}
        case $(readlink "$d") in */usb*) ;; *) continue ;; esac
        read -r id <"$d/dev" || continue
        present="$present$dev:$id "
        case $seen in *" $dev:$id "*) continue ;; esac
        say "$dev: a USB stick ($id)"
        handle "$dev"
    done
    # A stick pulled out is forgotten: put back in, it is looked at again.
    seen=$present
    sleep 2
done
