#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the test VM's initramfs: busybox-static, the kernel modules the VM needs (from the
# kernel package fetch-kernel.sh unpacked) and scripts/vm/guest-init.sh as /init.
# Cached in ${INKKIOSK_CACHE:-$HOME/.cache/inkkiosk}/initramfs-<kernel>-<hash>.cpio.gz; the hash
# covers this script, guest-init.sh, the kernel version and the busybox binary, so editing either
# script rebuilds it. Prints the path of the initramfs on stdout.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/cache.sh
source "$HERE/../lib/cache.sh"
CACHE=$INKKIOSK_CACHE
INIT=$HERE/guest-init.sh

log() { echo "build-initramfs: $*" >&2; }

VMLINUZ=$("$HERE/fetch-kernel.sh")
KVER=${VMLINUZ##*/vmlinuz-}
KDIR=$CACHE/kernel
MODDIR=$KDIR/lib/modules/$KVER
BUSYBOX=/bin/busybox
[[ -x $BUSYBOX ]] || { log "error: $BUSYBOX is missing (apt-get install busybox-static)"; exit 1; }
if ldd "$BUSYBOX" >/dev/null 2>&1; then  # ldd fails on a static binary
    log "error: $BUSYBOX is dynamically linked; install busybox-static"
    exit 1
fi

# Modules the guest loads, in this order after their dependencies (resolved below with modinfo).
WANTED=(virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
        netfs fscache 9pnet 9pnet_virtio 9p evdev uinput
        drm drm_kms_helper ttm drm_ttm_helper drm_vram_helper bochs
        virtio_dma_buf drm_shmem_helper virtio_gpu
        overlay virtio_blk crc32c_generic ext4 virtio_rng
        xhci_pci usb_storage sd_mod vfat nls_cp437 nls_ascii nls_utf8
        virtio_net)
OPTIONAL=" virtio_rng "

mkdir -p "$CACHE"
exec 9>"$CACHE/.initramfs.lock"
flock 9  # one build at a time (parallel runs share the cache)
KEY=$( { cat "${BASH_SOURCE[0]}" "$INIT"; echo "$KVER"; sha256sum "$BUSYBOX"; } | sha256sum | cut -c1-12)
OUT=$CACHE/initramfs-$KVER-$KEY.cpio.gz
if [[ -s $OUT ]]; then
    echo "$OUT"
    exit 0
fi

log "building $(basename "$OUT")"
declare -A PATHS=()
while IFS= read -r f; do
    n=$(basename "$f"); n=${n%%.ko*}; n=${n//-/_}
    PATHS[$n]=$f
done < <(find "$MODDIR/kernel" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz')

is_builtin() {  # module name (underscores) listed in modules.builtin?
    local n=$1
    grep -qE "/(${n}|${n//_/-})\.ko\$" "$MODDIR/modules.builtin"
}

declare -A DONE=()
ORDER=()
visit() {
    local n=${1//-/_} d deps
    [[ -n ${DONE[$n]:-} ]] && return 0
    DONE[$n]=1
    if [[ -z ${PATHS[$n]:-} ]]; then
        if is_builtin "$n"; then
            log "$n is built into the kernel"
            return 0
        fi
        if [[ $OPTIONAL == *" $n "* ]]; then
            log "optional module $n not found; skipped"
            return 0
        fi
        log "error: module $n is neither in $MODDIR nor built in"
        exit 1
    fi
    deps=$(modinfo -F depends "${PATHS[$n]}" | tr ',' ' ')
    for d in $deps; do visit "$d"; done
    ORDER+=("$n")
}
for m in "${WANTED[@]}"; do visit "$m"; done

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE"/{bin,sbin,dev,proc,sys,run,tmp,mnt/host,mnt/work,lib/modules,etc,root}
cp "$BUSYBOX" "$STAGE/bin/busybox"
for applet in $("$BUSYBOX" --list); do
    [[ $applet == busybox ]] && continue
    ln -s busybox "$STAGE/bin/$applet"
done
for n in "${ORDER[@]}"; do
    src=${PATHS[$n]}
    case $src in
        *.ko.xz)  xz -dc "$src" >"$STAGE/lib/modules/$n.ko" ;;
        *.ko.zst) zstd -qdc "$src" >"$STAGE/lib/modules/$n.ko" ;;
        *.ko.gz)  gzip -dc "$src" >"$STAGE/lib/modules/$n.ko" ;;
        *)        cp "$src" "$STAGE/lib/modules/$n.ko" ;;
    esac
done
printf '%s\n' "${ORDER[@]}" >"$STAGE/etc/modules.order"
echo "$KVER" >"$STAGE/etc/kernel-version"
install -m 0755 "$INIT" "$STAGE/init"
# The kernel needs /dev/console in the initramfs to give init a stdout before devtmpfs is up.
mknod -m 600 "$STAGE/dev/console" c 5 1
mknod -m 666 "$STAGE/dev/null" c 1 3

(cd "$STAGE" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0) | gzip -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
# Drop initramfs images built from older versions of the scripts.
for old in "$CACHE"/initramfs-*.cpio.gz; do
    [[ $old == "$OUT" ]] || rm -f "$old"
done
log "modules: ${ORDER[*]}"
echo "$OUT"
