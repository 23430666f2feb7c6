#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs inkkiosk as the board's kiosk: tty1 shows the ink instead of a login prompt.
#
#   deploy/install.sh [--dry-run] [--root DIR] [--now] [--profile NAME] [BINARY]
#
#   BINARY      the inkkiosk executable (default: .build/release/inkkiosk of this checkout)
#   --dry-run   print what would be done, change nothing
#   --root DIR  install into DIR instead of / (an image builder's staging root: a full root file
#               system, e.g. from debootstrap); nothing running is touched (no daemon-reload,
#               no udev reload, no start)
#   --now       also start the kiosk now (stops getty@tty1; the screen switches to the ink), and the
#               cloud agent
#   --profile NAME  start from config/NAME.toml instead of config/inkkiosk.toml: "signature"
#               (a signature-capture kiosk) or "classroom" (a classroom tablet)
#
# What it does (every step is idempotent; run it again after a rebuild):
#   1. BINARY -> /usr/local/lib/inkkiosk/inkkiosk, with the Swift runtime libraries it links
#      from outside the system library directories next to it (its RUNPATH has $ORIGIN), so a
#      board needs no Swift toolchain; /usr/local/bin/inkkiosk is a symlink to it
#   2. config/inkkiosk.toml (or the profile) -> /etc/inkkiosk/inkkiosk.toml, only if there is none yet
#   3. deploy/udev/*.rules -> /etc/udev/rules.d/ (and udev reloads them);
#      deploy/libinput/local-overrides.quirks -> /etc/libinput/ (libinput does not average the
#      pen's positions; an existing file keeps its content and gets our section appended, once);
#      deploy/sysctl.d/50-inkkiosk.conf -> /etc/sysctl.d/ (kernel.sysrq = 0; applied now on a
#      live system, at every boot by systemd-sysctl)
#   4. the system user `inkkiosk` in the groups input, video, tty
#      (deploy/sysusers.d/inkkiosk.conf -> /usr/local/lib/sysusers.d/, applied with systemd-sysusers)
#   5. deploy/systemd/inkkiosk.service -> /etc/systemd/system/, enabled (multi-user.target);
#      getty@tty1.service disabled; deploy/systemd/inkkiosk-cloud.service (the classroom's cloud
#      agent) beside it, enabled too: it exits at once, successfully, while [cloud] sets neither
#      server nor share
#   6. README.md -> /usr/local/share/doc/inkkiosk/ (the unit's Documentation=)
# The system libraries (libinput10, libcairo2, libdrm2, libudev1 and what they pull in) come
# from the distribution: apt-get install libinput10 libcairo2 libdrm2 libudev1.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
DRY=0
NOW=0
PROFILE=inkkiosk
R=
BIN=

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }
while (($#)); do
    case $1 in
        --dry-run) DRY=1 ;;
        --now) NOW=1 ;;
        --profile) shift; [[ $# -gt 0 ]] || { echo "install.sh: --profile needs a name" >&2; exit 2; }; PROFILE=$1 ;;
        --profile=*) PROFILE=${1#--profile=} ;;
        --root) shift; [[ $# -gt 0 ]] || { echo "install.sh: --root needs a directory" >&2; exit 2; }; R=$1 ;;
        --root=*) R=${1#--root=} ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) [[ -z $BIN ]] || { echo "install.sh: one binary only" >&2; exit 2; }; BIN=$1 ;;
    esac
    shift
done
BIN=${BIN:-$REPO/.build/release/inkkiosk}
if [[ -n $R ]]; then
    [[ -d $R ]] || { echo "install.sh: --root $R is not a directory" >&2; exit 2; }
    R=$(cd "$R" && pwd)
    [[ $R != / ]] || R=
fi
((NOW)) && [[ -n $R ]] && { echo "install.sh: --now and --root exclude each other" >&2; exit 2; }
LIVE=$([[ -z $R ]] && echo 1 || echo 0)

say() { echo "install.sh: $*"; }
die() { echo "install.sh: error: $*" >&2; exit 1; }
run() {  # prints the command, runs it unless --dry-run
    printf '+'; printf ' %q' "$@"; printf '\n'
    ((DRY)) || "$@"
}
append() {  # like run, for `cat SRC >> DST`: a blank line between, and a newline first if DST lacks its last
    printf '+ cat %q >> %q\n' "$1" "$2"
    ((DRY)) && return 0
    [[ -z $(tail -c 1 "$2") ]] || echo >>"$2"
    { echo; cat "$1"; } >>"$2"
}

[[ -x $BIN ]] || die "$BIN is not an executable (build it: make release)"
[[ -f $REPO/config/$PROFILE.toml ]] || die "no profile config/$PROFILE.toml (signature or classroom)"
for f in "$REPO/config/inkkiosk.toml" "$HERE/systemd/inkkiosk.service" "$HERE/systemd/inkkiosk-cloud.service" \
         "$HERE/sysusers.d/inkkiosk.conf" "$HERE/sysctl.d/50-inkkiosk.conf" \
         "$HERE/libinput/local-overrides.quirks"; do
    [[ -f $f ]] || die "$f is missing"
done
if ((!DRY)) && [[ $(id -u) -ne 0 ]]; then
    if ((LIVE)) || [[ ! -w $R ]]; then die "run as root (or with --dry-run)"; fi
fi
command -v systemd-sysusers >/dev/null || die "systemd-sysusers is missing (the systemd package)"
command -v systemctl >/dev/null || die "systemctl is missing (the systemd package)"
ROOTOPT=()
[[ -n $R ]] && ROOTOPT=("--root=$R")
((DRY)) && say "dry run: nothing is changed"
say "installing into ${R:-/}"

# 1. the binary and the Swift runtime it links
LIBDIR=/usr/local/lib/inkkiosk
run install -d -m 0755 "$R$LIBDIR" "$R/usr/local/bin"
run install -m 0755 "$BIN" "$R$LIBDIR/inkkiosk"
swiftlibs=()
for lib in $(ldd "$BIN" | awk '/=>/ && $3 ~ /^\// {print $3}'); do
    case $lib in
        /lib/*|/lib64/*|/usr/lib/*|/usr/lib64/*) ;;   # the distribution's libraries
        *) swiftlibs+=("$lib") ;;
    esac
done
if ((${#swiftlibs[@]})); then
    say "${#swiftlibs[@]} libraries from outside the system directories (Swift runtime) go to $LIBDIR"
    for lib in "${swiftlibs[@]}"; do run install -m 0644 "$(readlink -f "$lib")" "$R$LIBDIR/$(basename "$lib")"; done
fi
run ln -sfn ../lib/inkkiosk/inkkiosk "$R/usr/local/bin/inkkiosk"
if ldd "$BIN" | grep -q "not found"; then
    say "warning: $(ldd "$BIN" | grep "not found" | tr -s ' \t' ' ' | paste -sd, -)"
fi

# 2. the configuration, unless there is one
if [[ -e $R/etc/inkkiosk/inkkiosk.toml ]]; then
    say "/etc/inkkiosk/inkkiosk.toml exists: kept"
else
    run install -D -m 0644 "$REPO/config/$PROFILE.toml" "$R/etc/inkkiosk/inkkiosk.toml"
    if [[ $PROFILE == signature ]]; then
        # Sealed by default: the kiosk does not start until [signature] names the host's key.
        say "signature profile: captures are stored encrypted; make the key pair on the host (inkkiosk keygen kiosk-signatures.key),"
        say "  copy kiosk-signatures.pub here as /etc/inkkiosk/signature.pub and uncomment encrypt_to in /etc/inkkiosk/inkkiosk.toml;"
        say "  the kiosk does not start until then (or until store_plaintext = true is written there)"
    fi
fi

# 3. udev rules
run install -d -m 0755 "$R/etc/udev/rules.d"
for rule in "$HERE"/udev/*.rules; do
    run install -m 0644 "$rule" "$R/etc/udev/rules.d/$(basename "$rule")"
done
if ((LIVE)) && udevadm control --ping >/dev/null 2>&1; then
    run udevadm control --reload
    run udevadm trigger --subsystem-match=input --action=change
fi

# libinput quirk: no smoothing of tablet positions. libinput reads local-overrides.quirks after its
# own files, so ours wins; a board's existing overrides stay and ours is appended after them.
QUIRKS=$HERE/libinput/local-overrides.quirks
QUIRKS_SECTION=$(grep -m1 '^\[' "$QUIRKS")
if [[ ! -e $R/etc/libinput/local-overrides.quirks ]]; then
    run install -D -m 0644 "$QUIRKS" "$R/etc/libinput/local-overrides.quirks"
    quirks_changed=1
elif grep -qxF "$QUIRKS_SECTION" "$R/etc/libinput/local-overrides.quirks"; then
    say "/etc/libinput/local-overrides.quirks already has $QUIRKS_SECTION: kept"
    quirks_changed=0
else
    say "/etc/libinput/local-overrides.quirks exists: appending $QUIRKS_SECTION to it"
    append "$QUIRKS" "$R/etc/libinput/local-overrides.quirks"
    quirks_changed=1
fi
if ((LIVE && quirks_changed)); then
    say "libinput reads quirks when it starts: a kiosk running now sees this after systemctl restart inkkiosk"
fi

# SysRq off (the kiosk holds its keyboards exclusively while it runs; this covers boot and restarts)
run install -D -m 0644 "$HERE/sysctl.d/50-inkkiosk.conf" "$R/etc/sysctl.d/50-inkkiosk.conf"
if ((LIVE)) && command -v sysctl >/dev/null; then
    run sysctl -q -p "/etc/sysctl.d/50-inkkiosk.conf" || say "warning: could not apply kernel.sysrq = 0 now; it applies at the next boot"
fi

# 4. the user
if [[ -n $R && ! -s $R/etc/group ]]; then
    say "warning: $R has no /etc/group: input, video and tty are created there with fresh ids, which"
    say "warning: will not match the distribution's (tty is 5, video 44 on Debian). Meant for a full root"
    say "warning: file system (debootstrap & co.); /usr/local/lib/sysusers.d/inkkiosk.conf is installed either way"
fi
run install -D -m 0644 "$HERE/sysusers.d/inkkiosk.conf" "$R/usr/local/lib/sysusers.d/inkkiosk.conf"
run systemd-sysusers "${ROOTOPT[@]}" "$HERE/sysusers.d/inkkiosk.conf"

# 5. the units; tty1's getty off. The cloud agent is enabled whatever the profile: without
# [cloud] server or share it exits 0 at once, so configuring [cloud] later needs no other step.
run install -D -m 0644 "$HERE/systemd/inkkiosk.service" "$R/etc/systemd/system/inkkiosk.service"
run install -D -m 0644 "$HERE/systemd/inkkiosk-cloud.service" "$R/etc/systemd/system/inkkiosk-cloud.service"
if ((LIVE)) && [[ -d /run/systemd/system ]]; then
    run systemctl daemon-reload
fi
run systemctl "${ROOTOPT[@]}" enable inkkiosk.service inkkiosk-cloud.service
getty_state=$(systemctl "${ROOTOPT[@]}" is-enabled getty@tty1.service 2>/dev/null || true)
case $getty_state in
    enabled|enabled-runtime|alias|indirect)
        run systemctl "${ROOTOPT[@]}" disable getty@tty1.service ;;
    *) say "getty@tty1.service is ${getty_state:-not installed}: nothing to disable" ;;
esac

# 6. the documentation the unit points at
run install -D -m 0644 "$REPO/README.md" "$R/usr/local/share/doc/inkkiosk/README.md"

if ((NOW)); then
    run systemctl start inkkiosk.service inkkiosk-cloud.service
    say "started: tty1 shows the kiosk (journalctl -u inkkiosk for its log; -u inkkiosk-cloud for the cloud agent's)"
elif ((LIVE)); then
    say "installed; the kiosk and the cloud agent start on the next boot, or now with: systemctl start inkkiosk.service inkkiosk-cloud.service"
else
    say "installed into $R"
fi
