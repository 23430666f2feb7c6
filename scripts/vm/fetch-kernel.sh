#!/usr/bin/env bash
# Fetches and unpacks the Debian kernel that linux-image-amd64 depends on, for the test VM.
# Installs the host tools the VM harness needs when they are missing (Debian 12, as root).
# Idempotent: when the kernel is already unpacked it only prints the path of vmlinuz.
# Usage: scripts/vm/fetch-kernel.sh        (prints /…/kernel/boot/vmlinuz-<version> on stdout)
# Cache: ${INKKIOSK_CACHE:-$HOME/.cache/inkkiosk}/kernel/
set -euo pipefail

CACHE=${INKKIOSK_CACHE:-$HOME/.cache/inkkiosk}
KDIR=$CACHE/kernel
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

# The kernel package linux-image-amd64 points at (e.g. linux-image-6.1.0-56-amd64).
kpkg() { apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n1; }
PKG=$(kpkg || true)
if [[ -z $PKG ]]; then
    apt_update
    PKG=$(kpkg || true)
fi
if [[ -z $PKG ]]; then
    log "error: apt-cache knows no linux-image-amd64 dependency (is the Debian archive in sources.list?)"
    exit 1
fi
KVER=${PKG#linux-image-}
VMLINUZ=$KDIR/boot/vmlinuz-$KVER
STAMP=$KDIR/.extracted-$PKG

if [[ -f $STAMP && -f $VMLINUZ && -d $KDIR/lib/modules/$KVER ]]; then
    echo "$VMLINUZ"
    exit 0
fi

mkdir -p "$KDIR"
exec 9>"$CACHE/.kernel.lock"
flock 9  # parallel runs: one download and unpack; the others wait, then find it done
if [[ -f $STAMP && -f $VMLINUZ && -d $KDIR/lib/modules/$KVER ]]; then
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
    if ! (cd "$tmp" && apt-get download -qq "$PKG" >&2); then
        apt_update
        (cd "$tmp" && apt-get download -qq "$PKG" >&2)
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
