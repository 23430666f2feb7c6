#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the appliance's disk image: a GPT disk that boots under UEFI, with two root slots (A and
# B) that an update (a RAUC bundle, scripts/image/bundle.sh) replaces one at a time, and the data
# partition that no update touches.
#
#   scripts/image/build.sh [--arch amd64|arm64] [APPLIANCE_DIR]   (`make image`; default out/appliance,
#                                                                  out/appliance-arm64 for arm64)
#
# Layout (1 MiB aligned; sizes in MiB, IMAGE_* below):
#   p1  ESP        vfat (FAT32), 64   \EFI\BOOT\BOOTX64.EFI or BOOTAA64.EFI (GRUB, modules built in, no module
#                                     directory), \EFI\BOOT\grub.cfg (scripts/image/grub.cfg),
#                                     \EFI\BOOT\grubenv (the slot choice: ORDER, A_OK, A_TRY, …)
#   p2  rootfs-a   ext4, 128          slot A: vmlinuz, initramfs.cpio.zst (the appliance's),
#                                     updates.cpio.zst (the update engine: scripts/image/updates.sh),
#                                     slot.cfg (the kernel command line, the initrds), version
#   p3  rootfs-b   ext4, 128          slot B: the same file system, byte for byte
#   p4  inkdata    ext4 "inkdata", 128  /var/lib/inkkiosk (journal, outbox); last, so that a board
#                                     can grow it to the end of its card
#
# Output (IMAGE_OUT, default out/image/ for amd64, out/image-arm64/ for arm64):
#   inkkiosk-ARCH.img    the disk image (sparse; dd it to the board's disk)
#   slot.ext4            the slot file system alone (what scripts/image/bundle.sh puts in a bundle)
#   grubenv              the environment block the image starts with
#   layout.txt           the partition table (sfdisk --dump)
#   updates.manifest.txt every file of the update engine's archive, with its size
#
# Nothing here mounts anything or needs root: the file systems are made from directories
# (mke2fs -d, mtools), the partition table by sfdisk on the image file, the partitions put in
# place with dd at their offsets. Root is only needed to apt-get the host tools when missing.
#
# Environment:
#   IMAGE_OUT        output directory
#   IMAGE_ESP_MB     ESP size (default 64: FAT32 needs at least 65525 clusters)
#   IMAGE_SLOT_MB    size of each root slot (default 128: room for the kernel and an initramfs
#                    about four times today's 31 MB; fixed once devices are in the field)
#   IMAGE_DATA_MB    size of the data partition in the image (default 128)
#   IMAGE_BOARD      the board, in RAUC's compatible "inkkiosk-ARCH-BOARD" (default qemu)
#   IMAGE_KEYRING    the CA certificate whose bundles the device installs (default: the development
#                    CA of scripts/image/dev-keys.sh; a vendor's image names its own)
#   IMAGE_VERSION    the slot's version (default the project's, scripts/image/version.sh)
#   IMAGE_SYSROOT    arm64: the arm64 root RAUC, D-Bus and GRUB come from (default out/arm64/root,
#                    `make arm64`); GRUB's EFI program is made by that root's grub-mkimage (under
#                    qemu-user), so that it matches its modules
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ARCH=amd64
case ${1:-} in
    --arch) ARCH=${2:?--arch wants amd64 or arm64}; shift 2 ;;
    --arch=*) ARCH=${1#--arch=}; shift ;;
esac
log() { echo "image: $*" >&2; }
die() { log "error: $*"; exit 1; }

case $ARCH in
    amd64) APPLIANCE=${1:-$ROOT/out/appliance}; OUT=${IMAGE_OUT:-$ROOT/out/image}
           GRUB_TARGET=x86_64-efi; EFI_NAME=BOOTX64.EFI; GRUB_PKG=grub-efi-amd64-bin ;;
    arm64) APPLIANCE=${1:-$ROOT/out/appliance-arm64}; OUT=${IMAGE_OUT:-$ROOT/out/image-arm64}
           GRUB_TARGET=arm64-efi; EFI_NAME=BOOTAA64.EFI
           export IMAGE_SYSROOT=$(realpath -m "${IMAGE_SYSROOT:-$ROOT/out/arm64/root}") ;;
    *) die "unsupported architecture $ARCH (amd64 or arm64)" ;;
esac
export IMAGE_ARCH=$ARCH
ESP_MB=${IMAGE_ESP_MB:-64}
SLOT_MB=${IMAGE_SLOT_MB:-128}
DATA_MB=${IMAGE_DATA_MB:-128}

for f in vmlinuz initramfs.cpio.zst cmdline.txt; do
    [[ -s $APPLIANCE/$f ]] || die "$APPLIANCE/$f is missing; build the appliance first (make appliance)"
done

# --- host tools -------------------------------------------------------------------------------
need() {  # need PACKAGE FILE: installs PACKAGE when FILE is missing
    [[ -e $2 ]] && return 0
    [[ $(id -u) -eq 0 ]] || die "$2 is missing: apt-get install $1"
    log "installing $1"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "$1" >&2
    [[ -e $2 ]] || die "$1 is installed but $2 is still missing"
}
if [[ $ARCH == amd64 ]]; then
    need "$GRUB_PKG" "/usr/lib/grub/$GRUB_TARGET/linux.mod"
    need grub-common /usr/bin/grub-mkimage
    grub_mkimage() { grub-mkimage -d "/usr/lib/grub/$GRUB_TARGET" "$@"; }
else
    [[ -f $IMAGE_SYSROOT/usr/lib/grub/$GRUB_TARGET/linux.mod ]] ||
        die "no GRUB for $GRUB_TARGET in the arm64 root $IMAGE_SYSROOT (make arm64; scripts/arm64/toolchain.sh installs grub-efi-arm64-bin there)"
    need qemu-user-static /usr/bin/qemu-aarch64-static
    # The root's own grub-mkimage: the host's (another GRUB release) may not read its modules.
    grub_mkimage() { QEMU_LD_PREFIX=$IMAGE_SYSROOT qemu-aarch64-static "$IMAGE_SYSROOT/usr/bin/grub-mkimage" \
                         -d "$IMAGE_SYSROOT/usr/lib/grub/$GRUB_TARGET" "$@"; }
fi
need grub-common /usr/bin/grub-editenv
need mtools /usr/bin/mcopy
need dosfstools /usr/sbin/mkfs.fat
need fdisk /usr/sbin/sfdisk
need e2fsprogs /usr/sbin/mke2fs

VERSION=${IMAGE_VERSION:-$("$HERE/version.sh")}
[[ $VERSION =~ ^[A-Za-z0-9.+~_-]+$ ]] || die "version '$VERSION' has characters a kernel command line or GRUB would misread"
BOARD=${IMAGE_BOARD:-qemu}
COMPATIBLE=inkkiosk-$ARCH-$BOARD
if [[ -n ${IMAGE_KEYRING:-} ]]; then
    KEYRING=$IMAGE_KEYRING
else
    KEYRING=$("$HERE/dev-keys.sh")/ca.cert.pem
    log "trusting the DEVELOPMENT CA ($KEYRING): this image installs bundles signed with the development key"
fi
mkdir -p "$OUT"
WORK=$(mktemp -d "$OUT/.build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# --- the slot: today's appliance, as one ext4 file system ------------------------------------------
# ext4 (not vfat) because RAUC's ext4 slot type writes the image to the partition and checks it,
# GRUB reads it (its ext2 module), and mke2fs -d makes it from a directory without a mount; the
# kernel never mounts it (the root is the initramfs), so it is read by GRUB only. The image is
# sized to its content, not to the partition: a bundle carries and an install writes only that.
mkdir -p "$WORK/slot"
cp "$APPLIANCE/vmlinuz" "$APPLIANCE/initramfs.cpio.zst" "$WORK/slot/"
"$HERE/updates.sh" "$APPLIANCE" "$KEYRING" "$COMPATIBLE" "$WORK/slot/updates.cpio.zst"
mv "$WORK/slot/updates.manifest.txt" "$OUT/updates.manifest.txt"
cmdline=$(sed 's/#.*//' "$APPLIANCE/cmdline.txt" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')
[[ $cmdline != *'"'* && $cmdline != *'$'* ]] || die "$APPLIANCE/cmdline.txt has a quote or \$ (GRUB would read it as script)"
# slot.cfg: read by grub.cfg with `source`, so the kernel command line and the list of initrds
# travel with the kernel in a bundle (the ESP's grub.cfg is never updated). ik.version: the
# slot's version, for the running system to say (the kernel ignores it).
cat >"$WORK/slot/slot.cfg" <<EOF
# inkkiosk $VERSION ($COMPATIBLE): this slot's kernel command line (grub.cfg adds rauc.slot=)
# and its initrds, unpacked in this order.
set ik_slot_cmdline="$cmdline ik.version=$VERSION"
set ik_slot_initrds="initramfs.cpio.zst updates.cpio.zst"
EOF
echo "$VERSION" >"$WORK/slot/version"
content_kb=$(du -sk --apparent-size "$WORK/slot" | cut -f1)
slot_kb=$(( (content_kb * 11 / 10 + 4096 + 1023) / 1024 * 1024 ))
(( slot_kb <= SLOT_MB * 1024 )) || die "the slot's content (${content_kb} KiB) does not fit a ${SLOT_MB} MiB slot (IMAGE_SLOT_MB)"
# No metadata_csum_seed nor orphan_file: GRUB 2.06 (Debian 12) refuses a file system with them;
# no journal: nothing ever writes to a slot but an install, which writes it whole (4 MB saved).
# A fixed UUID and hash seed: the same appliance makes the same slot (and A and B are identical:
# GRUB addresses them by partition, nothing by UUID).
rm -f "$OUT/slot.ext4"
mke2fs -q -F -t ext4 -b 4096 -L inkslot -U 6b1c0a7e-1d2f-4e3a-9c4b-5a6d7e8f9012 \
    -O ^metadata_csum_seed,^orphan_file,^has_journal -E root_owner=0:0,hash_seed=6b1c0a7e-1d2f-4e3a-9c4b-5a6d7e8f9013 \
    -d "$WORK/slot" "$OUT/slot.ext4" "${slot_kb}k" >/dev/null
e2fsck -fn "$OUT/slot.ext4" >/dev/null 2>&1 || die "e2fsck finds errors in the slot image it just made"

# --- the ESP: GRUB and its environment -------------------------------------------------------------
# Only the modules grub.cfg uses, built into the EFI program: nothing else is read from the ESP
# but grub.cfg and grubenv. The prefix is the ESP's \EFI\BOOT, on the disk GRUB was loaded from.
MODULES=(part_gpt fat ext2 normal configfile linux loadenv test echo regexp sleep efi_gop)
grub_mkimage -O "$GRUB_TARGET" -p /EFI/BOOT -o "$WORK/$EFI_NAME" "${MODULES[@]}"
# The environment block the image starts with: both slots hold the same good appliance; A first.
# (RAUC's grub backend keeps these: an install sets the new slot first in ORDER with X_OK=1
# X_TRY=0; mark-good sets X_OK=1 X_TRY=0; mark-bad X_OK=0.)
grub-editenv "$WORK/grubenv" create
grub-editenv "$WORK/grubenv" set ORDER="A B" A_OK=1 A_TRY=0 B_OK=1 B_TRY=0
cp "$WORK/grubenv" "$OUT/grubenv"
esp="$WORK/esp.vfat"
truncate -s "${ESP_MB}M" "$esp"
mkfs.fat -F 32 -S 512 -s 1 -n ESP "$esp" >/dev/null
mmd -i "$esp" ::/EFI ::/EFI/BOOT
mcopy -i "$esp" "$WORK/$EFI_NAME" "::/EFI/BOOT/$EFI_NAME"
mcopy -i "$esp" "$HERE/grub.cfg" ::/EFI/BOOT/grub.cfg
mcopy -i "$esp" "$WORK/grubenv" ::/EFI/BOOT/grubenv

# --- the data partition ---------------------------------------------------------------------------
data="$WORK/data.ext4"
mke2fs -q -F -t ext4 -L inkdata -E lazy_itable_init=0,lazy_journal_init=0 "$data" "${DATA_MB}M" >/dev/null

# --- the disk ---------------------------------------------------------------------------------------
img="$OUT/inkkiosk-$ARCH.img"
total_mb=$((1 + ESP_MB + 2 * SLOT_MB + DATA_MB + 1))  # + the backup GPT at the end
rm -f "$img"
truncate -s "${total_mb}M" "$img"
# GPT type GUIDs: the ESP's, and "Linux filesystem" for the rest; the partition names are what
# a board's udev shows in /dev/disk/by-partlabel.
sfdisk --quiet --label gpt "$img" <<EOF
start=1MiB, size=${ESP_MB}MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="esp"
size=${SLOT_MB}MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name="rootfs-a"
size=${SLOT_MB}MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name="rootfs-b"
size=${DATA_MB}MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name="inkdata"
EOF
put() {  # put FILE PARTITION_NUMBER: the file system image at the partition's offset
    local start size
    read -r start size < <(sfdisk --json "$img" | python3 -c '
import json, sys
p = json.load(sys.stdin)["partitiontable"]["partitions"][int(sys.argv[1]) - 1]
print(p["start"], p["size"])' "$2")
    (( $(stat -c %s "$1") <= size * 512 )) || die "$1 is larger than partition $2"
    dd if="$1" of="$img" bs=512 seek="$start" conv=notrunc,sparse status=none
}
put "$esp" 1
put "$OUT/slot.ext4" 2
put "$OUT/slot.ext4" 3
put "$data" 4
sfdisk --dump "$img" >"$OUT/layout.txt"

log "$img: $(du -h --apparent-size "$img" | cut -f1) ($(du -h "$img" | cut -f1) on disk, sparse); inkkiosk $VERSION ($COMPATIBLE)"
log "slot.ext4: $(stat -c %s "$OUT/slot.ext4") bytes (content ${content_kb} KiB); ESP ${ESP_MB} MiB, slots 2 x ${SLOT_MB} MiB, data ${DATA_MB} MiB"
echo "boot test (OVMF, GRUB, slot A, then the fallback to B): python3 scripts/image/boot-test.py"
