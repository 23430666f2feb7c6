#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the boot-to-kiosk appliance: a kernel and an initramfs whose /init (busybox sh,
# scripts/appliance/init.sh) brings up udev and then execs `inkkiosk run` on tty1. No shell,
# getty or login; nothing else runs but systemd-udevd.
#
#   scripts/appliance/build.sh [INKKIOSK_BINARY]      (default .build/release/inkkiosk; `make appliance`)
#   scripts/appliance/build.sh --arch arm64 [INKKIOSK_BINARY]   (or APPLIANCE_ARCH=arm64; default
#                      binary out/arm64/inkkiosk, output out/appliance-arm64/)
#
# arm64: Debian 13's arm64 kernel (scripts/vm/fetch-kernel.sh --arch arm64) with the modules of
# QEMU's `virt` machine (virtio_gpu instead of bochs), and every program, library and data file
# (busybox-static, e2fsck, udev, libinput's helpers and quirks, libwacom's data, fonts, the
# kiosk's libraries) from the arm64 root APPLIANCE_ROOT (default out/arm64/root, made by
# `make arm64`), never from the host. Libraries are found with scripts/appliance/rootelf.py
# (readelf inside the root: ldd cannot run a foreign ELF); the root's own tools (ldconfig,
# systemd-hwdb, the kiosk's check-config) run under qemu-user (qemu-aarch64-static).
#
# Output (OUT, default out/appliance/):
#   vmlinuz               Debian's kernel (the one scripts/vm/fetch-kernel.sh fetches)
#   initramfs.cpio.zst    everything else (zstd): busybox (only the applets /init uses), the kernel
#                         modules (+ modules.dep, so udevd also autoloads them on hotplug),
#                         e2fsck and its libraries (the data partition's check at boot),
#                         inkkiosk (stripped) and every shared library ldd finds for it, the
#                         Swift runtime included; systemd-udevd/udevadm with the input and DRM
#                         rules, a hwdb compiled from the input sources, libinput's helpers and
#                         quirks, libwacom's tablet data; deploy/udev/*.rules; deploy/libinput's
#                         local-overrides.quirks (no smoothing of pen positions); the config
#   cmdline.txt           the kernel command line to boot it with on a board
#   manifest.txt          every file in the initramfs with its size
#
# Environment:
#   APPLIANCE_OUT      output directory (default out/appliance)
#   APPLIANCE_CONFIG   configuration file to install as /etc/inkkiosk/inkkiosk.toml
#                      (default config/inkkiosk.toml; checked with `inkkiosk check-config`;
#                      its [signature] encrypt_to, when set, is copied into the image at the
#                      same path: a signature kiosk needs that key, or store_plaintext = true)
#   APPLIANCE_MODULES  extra kernel modules for a board, space separated (e.g. "usbhid hid_generic
#                      wacom hid_multitouch xhci_pci i915", and the data partition's disk:
#                      "mmc_block sdhci_pci" for an SD card, "nvme", "ahci sd_mod"; the board's
#                      hardware RNG, e.g. "bcm2835_rng"); their
#                      dependencies come along
#   APPLIANCE_ZSTD_LEVEL  zstd level of the initramfs (default 19)
#   APPLIANCE_WORKSHEETS  1 adds poppler-glib, for a classroom image whose Worksheets list opens PDFs
#   APPLIANCE_SIGNED_MODULES  1 keeps the kernel modules' signatures (a kernel that enforces
#                      them); default: stripped (see the kernel modules below)
#   INKKIOSK_CACHE     kernel cache of scripts/vm (default ~/.cache/inkkiosk)
#   APPLIANCE_ARCH     amd64 (default) or arm64 (as --arch)
#   APPLIANCE_ROOT     arm64 only: the arm64 Debian 13 root the image's files come from
#                      (default out/arm64/root)
#
# Needs root (device nodes in the archive; apt-get for missing host packages) on Debian 12.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ARCH=${APPLIANCE_ARCH:-amd64}
case ${1:-} in
    --arch) ARCH=${2:?--arch wants amd64 or arm64}; shift 2 ;;
    --arch=*) ARCH=${1#--arch=}; shift ;;
esac
case $ARCH in
    amd64)
        BIN=${1:-$ROOT/.build/release/inkkiosk}
        OUT=${APPLIANCE_OUT:-$ROOT/out/appliance} ;;
    arm64)
        BIN=${1:-$ROOT/out/arm64/inkkiosk}
        OUT=${APPLIANCE_OUT:-$ROOT/out/appliance-arm64}
        SYSROOT=$(realpath -m "${APPLIANCE_ROOT:-$ROOT/out/arm64/root}") ;;
    *) echo "appliance: error: unsupported architecture $ARCH (amd64 or arm64)" >&2; exit 1 ;;
esac
CONFIG=${APPLIANCE_CONFIG:-$ROOT/config/inkkiosk.toml}
# shellcheck source=../lib/cache.sh
source "$HERE/../lib/cache.sh"
CACHE=$INKKIOSK_CACHE

log() { echo "appliance: $*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "run as root (the archive holds device nodes)"
if [[ $ARCH == arm64 ]]; then
    [[ -x $BIN ]] || die "$BIN is missing; build it with: make arm64"
    [[ -x $SYSROOT/usr/sbin/e2fsck ]] || die "no arm64 root in $SYSROOT (make arm64 makes it; APPLIANCE_ROOT for another)"
else
[[ -x $BIN ]] || die "$BIN is missing; build it with: make release (swift build -c release --static-swift-stdlib)"
fi

# --- host tools -----------------------------------------------------------------------------
# fetch-kernel.sh installs qemu, busybox-static, udev, kmod, cpio, … when missing and prints
# the kernel's path.
if [[ $ARCH == arm64 ]]; then
    # The arm64 kernel; its fetch also installs qemu-user-static, the aarch64 binutils, kmod, …
    VMLINUZ=$("$ROOT/scripts/vm/fetch-kernel.sh" --arch arm64)
    KVER=${VMLINUZ##*/vmlinuz-}
    KMOD=$CACHE/kernel-arm64/usr/lib/modules/$KVER
    [[ -d $KMOD/kernel ]] || KMOD=$CACHE/kernel-arm64/lib/modules/$KVER
    HOST_PACKAGES=(binutils binutils-aarch64-linux-gnu qemu-user-static kmod cpio zstd python3)
else
VMLINUZ=$("$ROOT/scripts/vm/fetch-kernel.sh")
KVER=${VMLINUZ##*/vmlinuz-}
KMOD=$CACHE/kernel/lib/modules/$KVER
    HOST_PACKAGES=(binutils libinput-bin libwacom-common libc-bin e2fsprogs zstd)
fi
[[ -d $KMOD/kernel ]] || die "no modules for $KVER in $KMOD"
for pkg in "${HOST_PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || {
        log "installing $pkg"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >&2
    }
done
if [[ $ARCH == arm64 ]]; then
    # The root's own programs run under qemu-user, their loader and libraries found in the root.
    QEMU_USER=$(command -v qemu-aarch64-static) || die "qemu-aarch64-static is missing (apt-get install qemu-user-static)"
    in_root() { QEMU_LD_PREFIX=$SYSROOT "$QEMU_USER" "$@"; }
    STRIP=aarch64-linux-gnu-strip
    command -v "$STRIP" >/dev/null || die "$STRIP is missing (apt-get install binutils-aarch64-linux-gnu)"
    readelf -h "$BIN" | grep -q 'AArch64' || die "$BIN is not an arm64 (AArch64) program"
    BUSYBOX=$SYSROOT/usr/bin/busybox
    [[ -x $BUSYBOX ]] || die "$BUSYBOX is missing: add busybox-static to the arm64 root"
    readelf -d "$BUSYBOX" 2>/dev/null | grep -q NEEDED && die "$BUSYBOX is dynamically linked; the arm64 root needs busybox-static"
    in_root "$BIN" check-config "$CONFIG" >/dev/null || die "$CONFIG does not pass inkkiosk check-config (run under qemu-user)"
else
    in_root() { "$@"; }
    STRIP=strip
BUSYBOX=/bin/busybox
if ldd "$BUSYBOX" >/dev/null 2>&1; then die "$BUSYBOX is dynamically linked; install busybox-static"; fi
"$BIN" check-config "$CONFIG" >/dev/null || die "$CONFIG does not pass inkkiosk check-config"
fi
# The journal lives on the data partition (/var/lib/inkkiosk, mounted by /init): the config's
# [storage] journal, or journal.inkj there when the config names none.
JOURNAL=$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb")).get("storage", {}).get("journal", ""))' "$CONFIG") ||
    die "cannot read [storage] journal from $CONFIG"
JOURNAL=${JOURNAL:-/var/lib/inkkiosk/journal.inkj}
# The public key signatures are encrypted to: check-config has just read it here.
SEALING_KEY=$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb")).get("signature", {}).get("encrypt_to", ""))' "$CONFIG") ||
    die "cannot read [signature] encrypt_to from $CONFIG"
[[ $JOURNAL == /var/lib/inkkiosk/* ]] ||
    log "warning: the journal $JOURNAL is not on the data partition (/var/lib/inkkiosk): ink lives in RAM only"

STAGE=$(mktemp -d /tmp/inkkiosk-appliance-XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
S=$STAGE

# --- layout (merged /usr, like Debian 12) ---------------------------------------------------
mkdir -p "$S"/usr/{bin,sbin,lib,lib64} "$S"/{dev,proc,sys,run,tmp,etc,root} \
         "$S"/var/lib/inkkiosk "$S"/etc/inkkiosk "$S"/etc/udev/rules.d "$S"/usr/lib/udev/rules.d
chmod 1777 "$S/tmp"
for d in bin sbin lib lib64; do ln -s "usr/$d" "$S/$d"; done
ln -s ../run "$S/var/run"

# Copies a host file to the same path in the image (symlinks resolved: the image gets the
# file under the name it is asked for). Paths through /lib, /bin, … land in /usr.
put() {  # put HOST_PATH [IMAGE_PATH]
    local src=$1 dst=${2:-$1}
    dst=$(realpath -m --no-symlinks "$dst")
    case $dst in /lib/*|/lib64/*|/bin/*|/sbin/*) dst=/usr$dst ;; esac
    mkdir -p "$S$(dirname "$dst")"
    cp -L --preserve=mode "$src" "$S$dst"
}

# Every shared library ldd reports for the given ELF files, into the image. Swift's runtime
# (/opt/swift/usr/lib/swift/linux) goes to /usr/lib/swift/linux, found through ld.so.cache.
declare -A LIBS_DONE=()
put_libs() {
    local f lib
    for f in "$@"; do
        while read -r lib; do
            [[ -n $lib && -z ${LIBS_DONE[$lib]:-} ]] || continue
            LIBS_DONE[$lib]=1
            case $lib in
                */lib/swift/linux/*) put "$lib" "/usr/lib/swift/linux/$(basename "$lib")" ;;
                *) put "$lib" ;;
            esac
        done < <(ldd "$f" | awk '/=>/ && $3 ~ /^\// {print $3} /^\t\/[^ ]*ld-linux/ {print $1}')
        ldd "$f" | grep -q "not found" && die "$f: $(ldd "$f" | grep "not found" | head -n1)"
    done
    return 0
}

if [[ $ARCH == arm64 ]]; then
    # The host path of a path inside the arm64 root, its symlinks followed inside the root.
    in_sysroot() { python3 "$HERE/rootelf.py" --resolve "$SYSROOT" "$1" || die "$1 is not in the arm64 root $SYSROOT"; }
    # A file of the arm64 root to the same path in the image (put's /lib → /usr/lib included).
    rput() { put "$(in_sysroot "$1")" "$1"; }
    # Every shared library an ELF file loads, found in the arm64 root (rootelf.py: readelf and
    # the root's ld.so.conf; ldd cannot run a foreign ELF), into the image.
    put_libs() {
        local image host deps
        deps=$(python3 "$HERE/rootelf.py" "$SYSROOT" "$@") || die "a library of $* is missing from the arm64 root (above)"
        while IFS=$'\t' read -r image host; do
            [[ -n $image && -z ${LIBS_DONE[$image]:-} ]] || continue
            LIBS_DONE[$image]=1
            put "$host" "$image"
        done <<<"$deps"
        return 0
    }
fi

# --- busybox: only the applets /init uses -----------------------------------------------------
cp "$BUSYBOX" "$S/usr/bin/busybox"
for applet in sh mount mkdir modprobe cat sleep findfs; do ln -s busybox "$S/usr/bin/$applet"; done

# --- the data partition's check: e2fsck (Debian's is dynamically linked) ------------------------
if [[ $ARCH == arm64 ]]; then
    E2FSCK=$(in_sysroot /usr/sbin/e2fsck)
else
E2FSCK=$(realpath /usr/sbin/e2fsck)
fi
put "$E2FSCK" /usr/sbin/e2fsck
put_libs "$E2FSCK"
# Boards without a battery-backed clock boot in 1970: e2fsck would take every superblock time
# for one in the future and check the whole card at every boot.
cat >"$S/etc/e2fsck.conf" <<'E2FSCK'
[options]
	broken_system_clock = true
E2FSCK
ln -s ../proc/self/mounts "$S/etc/mtab"

# --- inkkiosk -------------------------------------------------------------------------------
# The kiosk links FoundationEssentials, never Foundation proper: that would bring ICU (39 MB of
# lib_FoundationICU.so) into the image. `make release` links the Swift runtime statically
# (--static-swift-stdlib), so no lib/swift/linux/*.so either; a dynamic build still works here.
if [[ $ARCH == arm64 ]]; then
    KIOSK_LIBS=$(python3 "$HERE/rootelf.py" "$SYSROOT" "$BIN") || die "$BIN needs a library the arm64 root lacks (above)"
else
    KIOSK_LIBS=$(ldd "$BIN")
fi
if grep -E 'lib(Foundation|FoundationInternationalization|_FoundationICU|icu[a-z0-9]*)\.so' <<<"$KIOSK_LIBS" >&2; then
    die "$BIN loads Foundation/ICU (above): some module imports Foundation instead of FoundationEssentials"
fi
"$STRIP" -o "$S/usr/bin/inkkiosk" "$BIN"
install -m 0644 "$CONFIG" "$S/etc/inkkiosk/inkkiosk.toml"
[[ -z $SEALING_KEY ]] || install -D -m 0644 "$SEALING_KEY" "$S$SEALING_KEY"
# Read by /init (sh): where the kiosk's journal goes.
printf 'IK_JOURNAL=%s\n' "$JOURNAL" >"$S/etc/inkkiosk/appliance.env"
put_libs "$BIN"
# A library the kiosk loads with dlopen when first needed (so ldd does not list it), with what it
# needs in turn: ship_library SONAME PACKAGE. From the arm64 root for an arm64 image, else from
# this machine's loader cache.
ship_library() {
    local soname=$1 package=$2 lib
    if [[ $ARCH == arm64 ]]; then
        lib=/usr/lib/aarch64-linux-gnu/$soname
        [[ -e $SYSROOT$lib ]] || die "$soname is missing from the arm64 root ($package)"
        rput "$lib"
    else
        # awk reads to the end: leaving early would kill ldconfig with SIGPIPE, and pipefail the build.
        lib=$(ldconfig -p | awk -v name="$soname" '$1 == name && /x86-64/ && !found {print $NF; found = 1}')
        [[ -n $lib ]] || die "$soname is missing (apt-get install $package)"
        put "$lib"
    fi
    put_libs "$lib"
}
# libinput and its stack (libwacom, glib, gobject, gudev, …): loaded by the seat's thread while
# the first frame is drawn (Sources/CLibInput/libinput.c), so not among the binary's own.
ship_library libinput.so.10 libinput10
# OpenSSL 3's libcrypto: loaded the first time the kiosk signs a PDF or reads its signing
# identity ([signature] sign_with; Sources/COpenSSL/libcrypto.c).
if [[ $ARCH == arm64 ]]; then ship_library libcrypto.so.3 libssl3t64; else ship_library libcrypto.so.3 libssl3; fi
# The Swift runtime ships with its symbol tables; the loader needs only the dynamic ones.
for lib in "$S"/usr/lib/swift/linux/*.so; do [[ -e $lib ]] && "$STRIP" --strip-unneeded "$lib"; done

# --- worksheets (a classroom image): poppler-glib, which the kiosk loads the first time the
# Worksheets list opens; a signature kiosk never does, so by default the image is without it
# (with its dependencies, NSS, gio and image codecs, it is 11 MB before compression).
[[ ${APPLIANCE_WORKSHEETS:-0} != 1 ]] || ship_library libpoppler-glib.so.8 libpoppler-glib8

# --- fonts: the signature and classroom screens write with DejaVu Sans through fontconfig ------
for f in /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf; do
    if [[ $ARCH == arm64 ]]; then
        [[ -e $SYSROOT$f ]] || die "$f is missing from the arm64 root (fonts-dejavu-core)"
        rput "$f"
        continue
    fi
    [[ -f $f ]] || die "$f is missing (apt-get install fonts-dejavu-core)"
    put "$f"
done
mkdir -p "$S/etc/fonts"
cat >"$S/etc/fonts/fonts.conf" <<'FONTS'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>/usr/share/fonts</dir>
  <cachedir>/tmp/fontconfig</cachedir>
</fontconfig>
FONTS

# --- udev -----------------------------------------------------------------------------------
# R: where the udev, libinput and libwacom files come from (the host; arm64: its root).
R=
if [[ $ARCH == arm64 ]]; then
    R=$SYSROOT
    UDEVADM=$(in_sysroot /usr/bin/udevadm)
else
UDEVADM=$(realpath /usr/bin/udevadm)
fi
put "$UDEVADM" /usr/bin/udevadm
mkdir -p "$S/usr/lib/systemd"
ln -s ../../bin/udevadm "$S/usr/lib/systemd/systemd-udevd"
put_libs "$UDEVADM"
# systemd 256 and later load libkmod with dlopen() (udev's kmod builtin, 80-drivers.rules'
# autoloading), not as a NEEDED library: readelf does not list it.
if [[ $ARCH == arm64 ]]; then
    KMODLIB=/usr/lib/aarch64-linux-gnu/libkmod.so.2
    [[ -e $SYSROOT$KMODLIB ]] || die "$KMODLIB is missing from the arm64 root (libkmod2)"
    rput "$KMODLIB"
    put_libs "$KMODLIB"
fi
# The rules that matter for DRM and input; the rest (storage, network, sound, logind's seats
# and uaccess) has nothing to act on here.
RULES=(50-udev-default 60-drm 60-evdev 60-input-id 60-persistent-input 65-libwacom
       70-mouse 70-touchpad 80-drivers 80-libinput-device-groups 90-libinput-fuzz-override)
for r in "${RULES[@]}"; do
    [[ -f $R/usr/lib/udev/rules.d/$r.rules ]] || die "$R/usr/lib/udev/rules.d/$r.rules is missing"
    put "$R/usr/lib/udev/rules.d/$r.rules" "/usr/lib/udev/rules.d/$r.rules"
done
for r in "$ROOT"/deploy/udev/*.rules; do install -m 0644 "$r" "$S/etc/udev/rules.d/"; done
# libinput's udev helpers (called from 80-libinput-device-groups and 90-libinput-fuzz-override).
for h in libinput-device-group libinput-fuzz-extract libinput-fuzz-to-zero; do
    put "$R/usr/lib/udev/$h" "/usr/lib/udev/$h"
    put_libs "$R/usr/lib/udev/$h"
done
# hwdb: compiled from the input sources only (evdev fixes, input ids, mice, touchpads,
# pointing sticks, libwacom's tablets); the vendor/model name databases are left out.
mkdir -p "$S/usr/lib/udev/hwdb.d"
for h in 60-evdev 60-input-id 65-libwacom 70-mouse 70-pointingstick 70-touchpad; do
    [[ -f $R/usr/lib/udev/hwdb.d/$h.hwdb ]] && cp "$R/usr/lib/udev/hwdb.d/$h.hwdb" "$S/usr/lib/udev/hwdb.d/"
done
if [[ $ARCH == arm64 ]]; then
    # The root's own compiler (its udev reads what its systemd-hwdb writes), under qemu-user.
    in_root "$SYSROOT/usr/bin/systemd-hwdb" --root="$S" --usr --strict update
else
systemd-hwdb --root="$S" --usr --strict update
fi
rm -rf "$S/usr/lib/udev/hwdb.d"
[[ -s $S/usr/lib/udev/hwdb.bin ]] || die "systemd-hwdb wrote no $S/usr/lib/udev/hwdb.bin"
# Users and groups the rules name (GROUP="input", "video", …); root runs everything.
cat >"$S/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/usr/sbin/nologin
EOF
cat >"$S/etc/group" <<'EOF'
root:x:0:
tty:x:5:
disk:x:6:
kmem:x:15:
dialout:x:20:
video:x:44:
audio:x:29:
input:x:105:
render:x:106:
kvm:x:107:
sgx:x:108:
EOF

# --- libinput quirks and libwacom's tablet database --------------------------------------------
mkdir -p "$S/usr/share"
cp -r "$R/usr/share/libinput" "$S/usr/share/"
# Ours, read after libinput's own: libinput does not average the pen's positions.
install -D -m 0644 "$ROOT/deploy/libinput/local-overrides.quirks" "$S/etc/libinput/local-overrides.quirks"
cp -r "$R/usr/share/libwacom" "$S/usr/share/"

# --- kernel modules -------------------------------------------------------------------------
# The display and input chain for QEMU's std VGA (bochs) and evdev, the data partition's ext4
# (crc32c first: ext4 and jbd2 only name it as a soft dependency, which busybox's modprobe does
# not follow) on a virtio disk (QEMU's); a board adds its own with APPLIANCE_MODULES. Dependencies are resolved with modinfo; depmod writes modules.dep & co.,
# so /init's modprobe and udevd's autoloading (80-drivers.rules) both find them.
# /etc/modules has one group per line: /init loads the screen's group and the data partition's
# at the same time (no module in both), then the board's own (which may share the screen's
# dependencies, e.g. drm for i915).
read -ra EXTRA_MODULES <<<"${APPLIANCE_MODULES:-}"
SCREEN_MODULES=(evdev bochs)
# arm64: QEMU's virt machine has no VGA; its screen is virtio-gpu (an atomic KMS driver with a
# cursor plane; virtio_pci is built into Debian's arm64 kernel).
[[ $ARCH == arm64 ]] && SCREEN_MODULES=(evdev virtio_gpu)
# virtio_rng: QEMU's hardware RNG, standing in for a board's (bcm2835_rng, rockchip_rng, imx_rngc,
# …: name it in APPLIANCE_MODULES). The kernel's hw_random core feeds it into the CRNG at once,
# so the Swift runtime's getrandom() at the kiosk's start does not wait for entropy.
DATA_MODULES=(virtio_pci virtio_blk crc32c_generic ext4 virtio_rng)
WANTED=("${SCREEN_MODULES[@]}" "${DATA_MODULES[@]}" "${EXTRA_MODULES[@]}")
declare -A MODPATH=()
while IFS= read -r f; do
    n=$(basename "$f"); n=${n%%.ko*}; n=${n//-/_}
    MODPATH[$n]=$f
done < <(find "$KMOD/kernel" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz')
declare -A MOD_DONE=()
MOD_ORDER=()
add_module() {
    local n=${1//-/_} d
    [[ -n ${MOD_DONE[$n]:-} ]] && return 0
    MOD_DONE[$n]=1
    if [[ -z ${MODPATH[$n]:-} ]]; then
        grep -qE "/(${n}|${n//_/-})\.ko\$" "$KMOD/modules.builtin" && return 0
        die "kernel module $n is neither in $KMOD nor built in"
    fi
    for d in $(modinfo -F depends "${MODPATH[$n]}" | tr ',' ' '); do add_module "$d"; done
    local src=${MODPATH[$n]} rel=${MODPATH[$n]#"$KMOD"/}
    rel=${rel%.xz}; rel=${rel%.zst}; rel=${rel%.gz}
    mkdir -p "$S/usr/lib/modules/$KVER/$(dirname "$rel")"
    case $src in
        *.ko.xz)  xz -dc "$src" >"$S/usr/lib/modules/$KVER/$rel" ;;
        *.ko.zst) zstd -qdc "$src" >"$S/usr/lib/modules/$KVER/$rel" ;;
        *.ko.gz)  gzip -dc "$src" >"$S/usr/lib/modules/$KVER/$rel" ;;
        *)        cp "$src" "$S/usr/lib/modules/$KVER/$rel" ;;
    esac
    MOD_ORDER+=("$n")
    echo "$rel" >>"$S/usr/lib/modules/$KVER/modules.order"
}
for m in "${WANTED[@]}"; do add_module "$m"; done
# Without their signatures: checking one (SHA-256 over the module, an RSA verification) took
# 0.2 s of the boot in QEMU for these modules. They come from the same initramfs as /init and the
# kiosk, so a signature proves nothing the image's own integrity (the board's boot chain) does
# not. The kernel notes it once in its log ("module verification failed … tainting kernel", flag
# E); a kernel that enforces signatures (module.sig_enforce, lockdown) needs APPLIANCE_SIGNED_MODULES=1.
[[ ${APPLIANCE_SIGNED_MODULES:-0} == 1 ]] || find "$S/usr/lib/modules" -name "*.ko" -exec "$STRIP" --strip-debug {} +
cp "$KMOD"/modules.builtin "$KMOD"/modules.builtin.modinfo "$S/usr/lib/modules/$KVER/"
depmod -b "$S" "$KVER"
closure() { modprobe -d "$S" -S "$KVER" --show-depends -a "$@" | sed -n 's|^insmod .*/\([^/]*\)\.ko.*|\1|p' | sort -u; }
shared=$(comm -12 <(closure "${SCREEN_MODULES[@]}") <(closure "${DATA_MODULES[@]}"))
[[ -z $shared ]] || die "the screen's and the data partition's modules both need: $shared (/init loads the two groups at once)"
printf '%s\n' "${SCREEN_MODULES[*]}" "${DATA_MODULES[*]}" "${EXTRA_MODULES[*]}" >"$S/etc/modules"

# --- the dynamic loader's cache ----------------------------------------------------------------
if [[ $ARCH == arm64 ]]; then
    # The root's ldconfig (static): the cache's entries carry the architecture's flags.
    printf '%s\n' /usr/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu/systemd >"$S/etc/ld.so.conf"
    "$QEMU_USER" "$SYSROOT/usr/sbin/ldconfig" -r "$S"
else
printf '%s\n' /usr/lib/x86_64-linux-gnu /usr/lib/swift/linux >"$S/etc/ld.so.conf"
ldconfig -r "$S"
fi

# --- /init and the nodes the kernel needs before devtmpfs ----------------------------------------
install -m 0755 "$HERE/init.sh" "$S/init"
mknod -m 600 "$S/dev/console" c 5 1
mknod -m 666 "$S/dev/null" c 1 3

# --- check: every ELF in the image finds its libraries inside the image -----------------------
while IFS= read -r f; do
    if readelf -h "$f" >/dev/null 2>&1 && readelf -d "$f" 2>/dev/null | grep -q NEEDED; then
        for need in $(readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
            [[ -e $S/usr/lib/x86_64-linux-gnu/$need || -e $S/usr/lib/swift/linux/$need || -e $S/usr/lib64/$need ]] ||
                [[ $ARCH == arm64 && ( -e $S/usr/lib/aarch64-linux-gnu/$need || -e $S/usr/lib/aarch64-linux-gnu/systemd/$need ) ]] ||
                die "${f#"$S"} needs $need, which is not in the image"
        done
    fi
done < <(find "$S/usr/bin" "$S/usr/sbin" "$S/usr/lib/udev" "$S/usr/lib/x86_64-linux-gnu" "$S/usr/lib/aarch64-linux-gnu" "$S/usr/lib/swift" -type f 2>/dev/null)
if [[ $ARCH == arm64 ]]; then
    # And the root's loader, run under qemu-user with the IMAGE as its root, finds them all:
    # the same lookup (ld.so.cache, then the default paths) the board's kernel will make.
    while IFS= read -r f; do
        readelf -l "$f" 2>/dev/null | grep -q 'program interpreter' || continue
        out=$(QEMU_LD_PREFIX=$S "$QEMU_USER" "$S/usr/lib/ld-linux-aarch64.so.1" --list "$f" 2>&1) ||
            die "${f#"$S"}: the loader in the image fails on it: $out"
        grep -q 'not found' <<<"$out" && die "${f#"$S"}: $(grep 'not found' <<<"$out" | head -n1)"
    done < <(find "$S/usr/bin" "$S/usr/sbin" "$S/usr/lib/udev" -type f)
fi

# --- archive ------------------------------------------------------------------------------
mkdir -p "$OUT"
# zstd: smaller than gzip -9 and several times faster for the kernel to unpack (CONFIG_RD_ZSTD,
# in Debian's kernel and most boards'); APPLIANCE_ZSTD_LEVEL trades build time for size. A 32 MB
# window (--long=25) finds the repeats across the 22 MB kiosk binary: 0.6 MB smaller than the
# level's own 8 MB window, for 32 MB of RAM while the kernel unpacks it.
rm -f "$OUT/initramfs.cpio.gz"
(cd "$S" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0) |
    zstd -q -"${APPLIANCE_ZSTD_LEVEL:-19}" --long=25 -T0 --check >"$OUT/initramfs.cpio.zst.tmp"
mv "$OUT/initramfs.cpio.zst.tmp" "$OUT/initramfs.cpio.zst"
cp "$VMLINUZ" "$OUT/vmlinuz"
(cd "$S" && find . \( -type f -o -type l \) -printf '%s\t%P\n' | LC_ALL=C sort -k2) >"$OUT/manifest.txt"
# cryptomgr.notests: the kernel's crypto self-tests ran 0.3 s of the boot in QEMU; the kiosk's
# data path uses none of those algorithms but crc32c (ext4), and a FIPS mode is no kiosk's.
cat >"$OUT/cmdline.txt" <<'EOF'
quiet panic=5 vt.global_cursor_default=0 cryptomgr.notests
EOF

total=$(du -sb "$S" | cut -f1)
log "kernel $KVER; modules: ${MOD_ORDER[*]}"
log "journal $JOURNAL; data partition: LABEL=inkdata unless the kernel command line says ik.data=…"
log "$(wc -l <"$OUT/manifest.txt") files, $((total / 1024)) KiB unpacked"
for f in vmlinuz initramfs.cpio.zst; do
    printf '%s\t%s bytes (%s)\n' "$OUT/$f" "$(stat -c %s "$OUT/$f")" "$(du -h --apparent-size "$OUT/$f" | cut -f1)"
done
if [[ $ARCH == arm64 ]]; then
    echo "boot test (qemu-system-aarch64 -M virt; pen, hover, signature API, power cut): python3 scripts/appliance/boot-test-arm64.py"
    exit 0
fi
echo "boot test (QEMU; times kernel -> udev -> kiosk -> first frame): python3 scripts/appliance/boot-test.py"
echo "deploy/ on a real systemd boot (install.sh + inkkiosk.service):  python3 scripts/appliance/service-test.py"
