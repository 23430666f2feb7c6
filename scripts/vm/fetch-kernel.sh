#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches and unpacks the Debian kernel that linux-image-amd64 depends on, for the test VM.
# Installs the host tools the VM harness needs when they are missing (Debian 12, as root).
# Idempotent: when the kernel is already unpacked it only prints the path of vmlinuz.
# Usage: scripts/vm/fetch-kernel.sh        (prints /…/kernel/boot/vmlinuz-<version> on stdout)
# Cache: ${INKKIOSK_CACHE:-$HOME/.cache/inkkiosk}/kernel/
#
# Another architecture's kernel (the arm64 appliance, scripts/appliance/build.sh --arch arm64):
#   scripts/vm/fetch-kernel.sh --arch arm64    (or KERNEL_ARCH=arm64)
# fetches the kernel linux-image-arm64 depends on in Debian KERNEL_SUITE (default trixie, the
# boards' Debian 13) through an apt of its own (the host's apt-get with its lists, state and
# cache under ${INKKIOSK_CACHE}/apt-arm64-trixie/: the host's sources and architecture are not
# touched), unpacks it into ${INKKIOSK_CACHE}/kernel-arm64/ and prints its vmlinuz. It installs
# the host tools the arm64 VM needs (qemu-system-arm, qemu-user-static, the aarch64 cross gcc
# and binutils for the test pen and stripping, kmod, cpio, zstd) instead of the x86 ones.
# KERNEL_MIRROR: the Debian archive (default http://deb.debian.org/debian).
set -euo pipefail

ARCH=${KERNEL_ARCH:-amd64}
while (( $# )); do
    case $1 in
        --arch) ARCH=${2:?--arch wants amd64 or arm64}; shift 2 ;;
        --arch=*) ARCH=${1#--arch=}; shift ;;
        *) echo "fetch-kernel: unknown argument $1 (usage: fetch-kernel.sh [--arch amd64|arm64])" >&2; exit 2 ;;
    esac
done
case $ARCH in
    amd64|arm64) ;;
    *) echo "fetch-kernel: unsupported architecture $ARCH (amd64 or arm64)" >&2; exit 2 ;;
esac

# shellcheck source=../lib/cache.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/cache.sh"
CACHE=$INKKIOSK_CACHE
KDIR=$CACHE/kernel
[[ $ARCH == amd64 ]] || KDIR=$CACHE/kernel-$ARCH
export DEBIAN_FRONTEND=noninteractive

log() { echo "fetch-kernel: $*" >&2; }

if [[ $(id -u) -eq 0 ]]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    SUDO=()
fi

# Host tools: qemu, busybox, python3-evdev, libinput tools, udev (systemd-udevd + udevadm,
# which the guest runs from the host root), kmod (modinfo), cpio + gzip (initramfs).
PACKAGES=(qemu-system-x86 busybox-static python3-evdev libinput-tools udev kmod cpio gzip xz-utils)
# arm64: QEMU's aarch64 system emulator (the VM) and user emulator (the arm64 root's tools at
# build time), the cross compiler and binutils (the static test pen; strip), kmod (modinfo,
# depmod on the arm64 modules), cpio + zstd (the image), e2fsprogs (the data disk on the host).
[[ $ARCH == arm64 ]] && PACKAGES=(qemu-system-arm qemu-user-static binfmt-support gcc-aarch64-linux-gnu
                                  binutils-aarch64-linux-gnu libc6-dev-arm64-cross kmod cpio gzip xz-utils zstd
                                  e2fsprogs ipxe-qemu)
missing=()
for pkg in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
apt_updated=0
apt_update() {
    if (( ! apt_updated )); then
        log "apt-get update"
        "${SUDO[@]}" apt-get update -qq >&2
        apt_updated=1
    fi
}
if (( ${#missing[@]} > 0 )); then
    log "installing ${missing[*]}"
    if ! "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; then
        apt_update
        "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    fi
fi

# arm64: an apt of its own (lists, state, cache and sources under the cache), the host's apt-get
# told the architecture is arm64; nothing of the host's own apt setup is read or changed.
APT=(apt-get)
APT_CACHE=(apt-cache)
if [[ $ARCH != amd64 ]]; then
    SUITE=${KERNEL_SUITE:-trixie}
    MIRROR=${KERNEL_MIRROR:-http://deb.debian.org/debian}
    ADIR=$CACHE/apt-$ARCH-$SUITE
    mkdir -p "$ADIR"/etc/apt.conf.d "$ADIR"/etc/preferences.d "$ADIR"/etc/sources.list.d \
             "$ADIR"/state/lists/partial "$ADIR"/cache/archives/partial
    : >"$ADIR/state/status"
    KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
    echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main" >"$ADIR/etc/sources.list"
    APT_OPTS=(-o "APT::Architecture=$ARCH" -o "APT::Architectures=$ARCH" -o "Dir::Etc=$ADIR/etc"
              -o "Dir::Etc::sourcelist=$ADIR/etc/sources.list" -o "Dir::Etc::sourceparts=$ADIR/etc/sources.list.d"
              -o "Dir::Etc::parts=$ADIR/etc/apt.conf.d" -o "Dir::Etc::preferencesparts=$ADIR/etc/preferences.d"
              -o "Dir::State=$ADIR/state" -o "Dir::State::status=$ADIR/state/status"
              -o "Dir::Cache=$ADIR/cache" -o "APT::Sandbox::User=root" -o "Acquire::Languages=none")
    APT=(apt-get "${APT_OPTS[@]}")
    APT_CACHE=(apt-cache "${APT_OPTS[@]}")
    arch_updated=0
    apt_update() {
        if (( ! arch_updated )); then
            log "apt-get update ($SUITE $ARCH, $ADIR)"
            "${APT[@]}" update -qq >&2
            arch_updated=1
        fi
    }
fi

# The kernel package linux-image-ARCH points at (e.g. linux-image-6.1.0-56-amd64).
kpkg() { "${APT_CACHE[@]}" depends "linux-image-$ARCH" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n1; }
PKG=$(kpkg || true)
if [[ -z $PKG ]]; then
    apt_update
    PKG=$(kpkg || true)
fi
if [[ -z $PKG ]]; then
    log "error: apt-cache knows no linux-image-$ARCH dependency (is the Debian archive in sources.list?)"
    exit 1
fi
KVER=${PKG#linux-image-}
VMLINUZ=$KDIR/boot/vmlinuz-$KVER
STAMP=$KDIR/.extracted-$PKG

# Debian 13's packages install the modules under usr/lib/modules (merged /usr), Debian 12's under lib/modules.
unpacked() { [[ -f $STAMP && -f $VMLINUZ ]] && [[ -d $KDIR/lib/modules/$KVER || -d $KDIR/usr/lib/modules/$KVER ]]; }
if unpacked; then
    echo "$VMLINUZ"
    exit 0
fi

mkdir -p "$KDIR"
LOCK=$CACHE/.kernel.lock
[[ $ARCH == amd64 ]] || LOCK=$CACHE/.kernel-$ARCH.lock
exec 9>"$LOCK"
flock 9  # parallel runs: one download and unpack; the others wait, then find it done
if unpacked; then
    echo "$VMLINUZ"
    exit 0
fi
DL=$KDIR/deb
mkdir -p "$DL"
if ! ls "$DL"/"${PKG}"_*.deb >/dev/null 2>&1; then
    log "downloading $PKG"
    # apt-get download writes into the current directory; as root it drops privileges to _apt,
    # which must be able to write there, so download into a fresh world-writable temp dir.
    tmp=$(mktemp -d)
    chmod 0777 "$tmp"
    if ! (cd "$tmp" && "${APT[@]}" download -qq "$PKG" >&2); then
        apt_update
        (cd "$tmp" && "${APT[@]}" download -qq "$PKG" >&2)
    fi
    mv "$tmp"/"${PKG}"_*.deb "$DL"/
    rm -rf "$tmp"
fi
DEB=$(ls "$DL"/"${PKG}"_*.deb | head -n1)
log "unpacking $(basename "$DEB")"
rm -f "$KDIR"/.extracted-*
dpkg -x "$DEB" "$KDIR"
if [[ ! -f $VMLINUZ ]]; then
    log "error: $VMLINUZ is not in $DEB"
    exit 1
fi
touch "$STAMP"
echo "$VMLINUZ"
