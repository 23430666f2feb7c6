#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the update engine of the disk image as a second initramfs archive, which GRUB loads
# after the appliance's (the kernel unpacks them in order, into one root): RAUC, a minimal
# D-Bus system bus for it, grub-editenv, the kernel modules an install needs, RAUC's system.conf
# and the CA certificate that update bundles must be signed under. The appliance itself
# (scripts/appliance) is unchanged; /init starts what /usr/lib/inkkiosk/boot.d holds: this engine
# (boot.d/updates.sh) and the classroom's cloud agent (boot.d/cloud.sh), which uses its network.
#
#   scripts/image/updates.sh APPLIANCE_DIR KEYRING COMPATIBLE OUTPUT
#
# It also arms the kiosk for updates: the appliance's /etc/inkkiosk/inkkiosk.toml again with an
# [update] table (the hardware watchdog the kiosk feeds, its ready and busy files in
# /run/inkkiosk), and the appliance's /etc/modules with the watchdog's driver on the board's line,
# so /init loads it before the kiosk starts (IMAGE_WATCHDOG_MODULE, default i6300esb: QEMU's;
# "" for a board whose watchdog is built in; IMAGE_WATCHDOG_TIMEOUT, default 30 s). The engine
# also loads a USB stick's drivers (IMAGE_STICK_MODULES, default QEMU's xhci_pci ehci_pci
# usb_storage uas sd_mod) and the network's (IMAGE_NET_MODULES, default virtio_net), and takes an
# address by DHCP (busybox's udhcpc with udhcpc.script).
#
# A fleet server (docs/DEPLOYMENT.md, "Updating a fleet"): IMAGE_FLEET_SERVER (https://…, its DDI
# base URL), IMAGE_FLEET_TENANT (default DEFAULT) and IMAGE_FLEET_CA (a PEM file of the CA its
# certificate is issued under, when not a public one) go into the [update] table, and libcurl with
# the libraries it needs into this archive (only `inkkiosk update-agent` loads it). The device's
# identity is never in the image: it is written to the data partition at enrolment.
#
# IMAGE_ARCH: amd64 (default: programs and libraries from this machine) or arm64 (from the arm64
# root IMAGE_SYSROOT, default out/arm64/root, found with scripts/appliance/rootelf.py: never the
# host's; the modules from the arm64 kernel's cache).
#
# APPLIANCE_DIR: out/appliance (its manifest.txt says what is there already: nothing is shipped
# twice; its initramfs gives the module index that depmod extends). KEYRING: a CA certificate
# (PEM), the only one whose bundles the device installs. COMPATIBLE: RAUC's compatible, e.g.
# inkkiosk-amd64-qemu: a bundle for another is refused. OUTPUT: the archive (zstd).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
APPLIANCE=${1:?appliance directory}
KEYRING=${2:?keyring (CA certificate)}
COMPATIBLE=${3:?compatible}
OUTPUT=${4:?output archive}
# shellcheck source=../lib/cache.sh
source "$HERE/../lib/cache.sh"
CACHE=$INKKIOSK_CACHE
log() { echo "updates: $*" >&2; }
die() { log "error: $*"; exit 1; }

need() {  # need PACKAGE FILE
    [[ -e $2 ]] && return 0
    [[ $(id -u) -eq 0 ]] || die "$2 is missing: apt-get install $1"
    log "installing $1"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "$1" >&2
}
ARCH=${IMAGE_ARCH:-amd64}
ROOTELF=$HERE/../appliance/rootelf.py
case $ARCH in
    amd64) SYSROOT="" TRIPLET=x86_64-linux-gnu STRIP=strip KERNEL_CACHE=$CACHE/kernel
           need rauc /usr/bin/rauc
           need dbus-daemon /usr/bin/dbus-daemon
           need grub-common /usr/bin/grub-editenv ;;
    arm64) SYSROOT=$(realpath -m "${IMAGE_SYSROOT:-$HERE/../../out/arm64/root}")
           TRIPLET=aarch64-linux-gnu STRIP=aarch64-linux-gnu-strip KERNEL_CACHE=$CACHE/kernel-arm64
           [[ -x $SYSROOT/usr/bin/rauc ]] || die "no rauc in the arm64 root $SYSROOT (scripts/arm64/toolchain.sh puts it there)"
           need binutils-aarch64-linux-gnu /usr/bin/$STRIP ;;
    *) die "unsupported architecture $ARCH (amd64 or arm64)" ;;
esac
need kmod /usr/sbin/depmod
openssl x509 -in "$KEYRING" -noout 2>/dev/null || die "$KEYRING is not a PEM certificate"

MANIFEST=$APPLIANCE/manifest.txt
[[ -s $MANIFEST ]] || die "$MANIFEST is missing (make appliance)"
KVER=$(awk -F'\t' '$2 ~ /^usr\/lib\/modules\/[^/]+\/modules.dep$/ {split($2, p, "/"); print p[4]}' "$MANIFEST")
[[ -n $KVER ]] || die "no kernel modules in $MANIFEST"
KMOD=$KERNEL_CACHE/lib/modules/$KVER
[[ -d $KMOD/kernel ]] || KMOD=$KERNEL_CACHE/usr/lib/modules/$KVER
[[ -d $KMOD/kernel ]] || die "no modules for $KVER in $KERNEL_CACHE (scripts/vm/fetch-kernel.sh --arch $ARCH)"
declare -A IN_APPLIANCE=()
while IFS=$'\t' read -r _ path; do IN_APPLIANCE[/$path]=1; done <"$MANIFEST"

# Beside the output, not in /tmp: nothing else cleans it up while this runs.
WORK=$(mktemp -d "$(dirname "$OUTPUT")/.updates.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
S=$WORK/root
mkdir -p "$S"

put() {  # put HOST_PATH [IMAGE_PATH]: unless the appliance has it already
    local src=$1 dst=${2:-$1}
    dst=$(realpath -m --no-symlinks "$dst")
    case $dst in /lib/*|/lib64/*|/bin/*|/sbin/*) dst=/usr$dst ;; esac
    [[ -z ${IN_APPLIANCE[$dst]:-} ]] || return 0
    mkdir -p "$S$(dirname "$dst")"
    cp -L --preserve=mode "$src" "$S$dst"
}
put_with_libs() {  # put_with_libs PATH [IMAGE_PATH]: PATH as the system sees it (the arm64 root's for arm64)
    local file libs image host
    if [[ -z $SYSROOT ]]; then
        put "$@"
        while read -r host; do put "$host"; done < <(ldd "$1" | awk '/=>/ && $3 ~ /^\// {print $3}')
        ! ldd "$1" | grep -q "not found" || die "$1: $(ldd "$1" | grep "not found" | head -n1)"
        return 0
    fi
    # ldd cannot run another architecture's loader: rootelf.py reads what it would load, in the root.
    file=$(python3 "$ROOTELF" --resolve "$SYSROOT" "$1") || die "$1 is not in the arm64 root $SYSROOT"
    put "$file" "${2:-$1}"
    libs=$(python3 "$ROOTELF" "$SYSROOT" "$file") || die "a library of $1 is missing from the arm64 root (above)"
    while IFS=$'\t' read -r image host; do put "$host" "$image"; done <<<"$libs"
}

# --- programs -------------------------------------------------------------------------------------
put_with_libs /usr/bin/rauc
put_with_libs /usr/bin/dbus-daemon
# grub-editenv itself goes aside: /usr/bin/grub-editenv (what RAUC calls) is our wrapper, which
# makes the ESP writable only while the environment block changes.
put_with_libs /usr/bin/grub-editenv /usr/lib/inkkiosk/grub-editenv
install -D -m 0755 "$HERE/grub-editenv.sh" "$S/usr/bin/grub-editenv"
# busybox applets RAUC (umount), grub-editenv.sh (sync), boot.d/updates.sh (readlink, renice, ip,
# udhcpc), boot.d/cloud.sh (readlink, renice, ionice), ik-update (reboot), stick-updates (umount,
# readlink) and udhcpc.script (ip, mv) call, beyond /init's own.
for applet in umount sync readlink renice ionice reboot ip udhcpc mv; do
    [[ -n ${IN_APPLIANCE[/usr/bin/$applet]:-} ]] || ln -s busybox "$S/usr/bin/$applet"
done
find "$S" -type f \( -name '*.so*' -o -path '*/bin/*' -o -path '*/lib/inkkiosk/*' \) -exec sh -c \
    'for f; do if head -c4 "$f" | grep -q ELF; then "$0" --strip-unneeded "$f"; fi; done' "$STRIP" {} +

# The fleet's agent: libcurl (OpenSSL's flavour) and what it links, for `inkkiosk update-agent`;
# the kiosk's own process never maps it.
FLEET_SERVER=${IMAGE_FLEET_SERVER:-}
FLEET_TENANT=${IMAGE_FLEET_TENANT:-DEFAULT}
FLEET_CA=${IMAGE_FLEET_CA:-}
if [[ -n $FLEET_SERVER ]]; then
    [[ $FLEET_SERVER =~ ^https://[^[:space:]\"\'?#]+$ ]] || die "IMAGE_FLEET_SERVER=$FLEET_SERVER is not an https URL without a query"
    [[ $FLEET_TENANT =~ ^[A-Za-z0-9._:-]{1,256}$ ]] || die "IMAGE_FLEET_TENANT=$FLEET_TENANT: letters, digits and . _ - : only"
    [[ -z $FLEET_CA ]] || openssl x509 -in "$FLEET_CA" -noout 2>/dev/null || die "IMAGE_FLEET_CA=$FLEET_CA is not a PEM certificate"
    curl_lib=/usr/lib/$TRIPLET/libcurl.so.4
    [[ -n $SYSROOT ]] || need libcurl4 "$curl_lib"
    put_with_libs "$curl_lib"
fi
# --- kernel modules: the bundle's loop device, squashfs and dm-verity; vfat for the ESP -----------
# Only the modules the appliance lacks are added; depmod runs over the appliance's modules and
# these together, and its index files replace the appliance's (the later archive wins).
WATCHDOG_MODULE=${IMAGE_WATCHDOG_MODULE-i6300esb}
WATCHDOG_TIMEOUT=${IMAGE_WATCHDOG_TIMEOUT:-30}
[[ $WATCHDOG_TIMEOUT =~ ^[0-9]+$ ]] || die "IMAGE_WATCHDOG_TIMEOUT=$WATCHDOG_TIMEOUT is not a number of seconds"
# A stick's: the USB host controllers (QEMU's xhci; a board's may be built in or other ones:
# IMAGE_STICK_MODULES), USB mass storage, SCSI disks.
STICK_MODULES=(${IMAGE_STICK_MODULES-xhci_pci ehci_pci usb_storage uas sd_mod})
# The network's (a fleet server): QEMU's virtio-net; a board's NIC driver (IMAGE_NET_MODULES; "" when
# built in).
NET_MODULES=(${IMAGE_NET_MODULES-virtio_net})
UPDATE_MODULES=(loop squashfs dm_verity vfat nls_cp437 nls_ascii nls_utf8 "${STICK_MODULES[@]}" "${NET_MODULES[@]}")
WANTED=("${UPDATE_MODULES[@]}" $WATCHDOG_MODULE)
zstd -dc "$APPLIANCE/initramfs.cpio.zst" | (mkdir -p "$WORK/base" && cd "$WORK/base" &&
    cpio -idm --quiet "usr/lib/modules/*" etc/modules etc/inkkiosk/inkkiosk.toml)
M=$WORK/base/usr/lib/modules/$KVER
[[ -f $M/modules.dep ]] || die "the appliance's initramfs has no usr/lib/modules/$KVER"
declare -A MODPATH=()
while IFS= read -r f; do
    n=$(basename "$f"); n=${n%%.ko*}; n=${n//-/_}; MODPATH[$n]=$f
done < <(find "$KMOD/kernel" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst')
ADDED=()
add_module() {
    local n=${1//-/_} d rel src
    if [[ -z ${MODPATH[$n]:-} ]]; then
        grep -qE "/(${n}|${n//_/-})\.ko\$" "$KMOD/modules.builtin" && return 0
        die "kernel module $n is neither in $KMOD nor built in"
    fi
    src=${MODPATH[$n]}; rel=${src#"$KMOD"/}; rel=${rel%.xz}; rel=${rel%.zst}
    [[ -e $M/$rel ]] && return 0
    for d in $(modinfo -F depends "$src" | tr ',' ' '); do add_module "$d"; done
    mkdir -p "$M/$(dirname "$rel")"
    case $src in
        *.xz) xz -dc "$src" >"$M/$rel" ;;
        *.zst) zstd -qdc "$src" >"$M/$rel" ;;
        *) cp "$src" "$M/$rel" ;;
    esac
    "$STRIP" --strip-debug "$M/$rel"
    echo "$rel" >>"$M/modules.order"
    ADDED+=("$rel")
}
for m in "${WANTED[@]}"; do add_module "$m"; done
ln -s usr/lib "$WORK/base/lib"
depmod -b "$WORK/base" "$KVER"
mkdir -p "$S/usr/lib/modules/$KVER"
for rel in "${ADDED[@]}"; do install -D -m 0644 "$M/$rel" "$S/usr/lib/modules/$KVER/$rel"; done
cp "$M"/modules.* "$S/usr/lib/modules/$KVER/"
echo "${UPDATE_MODULES[*]}" >"$S/usr/lib/inkkiosk/update-modules"
# /etc/modules (scripts/appliance/init.sh: line 3 is the board's, loaded before the kiosk starts):
# the watchdog's driver joins it, so /dev/watchdog is there when the kiosk opens it.
[[ -s $WORK/base/etc/modules ]] || die "the appliance's initramfs has no etc/modules"
{ sed -n 1,2p "$WORK/base/etc/modules"; echo "$(sed -n 3p "$WORK/base/etc/modules") $WATCHDOG_MODULE" | sed 's/^ *//; s/ *$//'; } \
    >"$WORK/modules.image"

# --- configuration ---------------------------------------------------------------------------------
install -D -m 0644 "$KEYRING" "$S/etc/rauc/ca.cert.pem"
[[ -z $FLEET_SERVER || -z $FLEET_CA ]] || install -D -m 0644 "$FLEET_CA" "$S/etc/inkkiosk/fleet-ca.pem"
# Slots by their GPT names (rootfs-a, rootfs-b: scripts/image/build.sh), through the links
# /dev/disk/by-partlabel/* that udev's persistent-storage rules make on a full system and that
# boot.d/updates.sh makes here for the partitions of the disk the data partition is on: the same
# system.conf holds on vda, sda or mmcblk0. RAUC writes the bundle's image into the slot that did
# not boot (rauc.slot= on the kernel command line), makes GRUB boot it next (ORDER, B_OK=1,
# B_TRY=0) and keeps its own records on the data partition (the slots are read-only file systems,
# written whole by an install).
cat >"$S/etc/rauc/system.conf" <<EOF
[system]
compatible=$COMPATIBLE
bootloader=grub
grubenv=/run/esp/EFI/BOOT/grubenv
bundle-formats=-plain
mountprefix=/run/rauc
data-directory=/var/lib/inkkiosk/rauc

[keyring]
path=/etc/rauc/ca.cert.pem
check-purpose=codesign

[handlers]
pre-install=/usr/lib/inkkiosk/rauc-pre-install

[slot.rootfs.0]
device=/dev/disk/by-partlabel/rootfs-a
type=ext4
bootname=A

[slot.rootfs.1]
device=/dev/disk/by-partlabel/rootfs-b
type=ext4
bootname=B
EOF
# The system bus, for root only: RAUC's service and its command line are its only users.
install -D -m 0644 /dev/stdin "$S/etc/dbus-1/system.conf" <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <deny send_destination="*"/>
    <deny own="*"/>
  </policy>
  <policy user="root">
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
install -D -m 0755 "$HERE/boot.d/updates.sh" "$S/usr/lib/inkkiosk/boot.d/50-updates"
install -D -m 0755 "$HERE/boot.d/cloud.sh" "$S/usr/lib/inkkiosk/boot.d/60-cloud"
install -D -m 0644 "$HERE/kiosk-screen.sh" "$S/usr/lib/inkkiosk/kiosk-screen.sh"
install -D -m 0755 "$HERE/ik-update.sh" "$S/usr/bin/ik-update"
install -D -m 0755 "$HERE/rauc-pre-install.sh" "$S/usr/lib/inkkiosk/rauc-pre-install"
install -D -m 0755 "$HERE/stick-updates.sh" "$S/usr/lib/inkkiosk/stick-updates"
install -D -m 0755 "$HERE/udhcpc.script" "$S/usr/lib/inkkiosk/udhcpc.script"
install -D -m 0644 "$WORK/modules.image" "$S/etc/modules"
# The kiosk's config: the appliance's, with the [update] table the update engine relies on
# (boot.d/updates.sh confirms a boot only after the ready file; ik-update waits for the busy
# file to go) in the place of the appliance's own (the shipped config's has the defaults: all off).
CONF=$WORK/base/etc/inkkiosk/inkkiosk.toml
[[ -s $CONF ]] || die "the appliance's initramfs has no etc/inkkiosk/inkkiosk.toml"
mkdir -p "$S/etc/inkkiosk"
awk '/^[[:space:]]*\[/ { skip = ($0 ~ /^[[:space:]]*\[update\][[:space:]]*(#.*)?$/) } !skip' "$CONF" >"$S/etc/inkkiosk/inkkiosk.toml"
cmp -s "$CONF" "$S/etc/inkkiosk/inkkiosk.toml" || log "the appliance's [update] table is replaced by the image's"
{
    echo "[update]"
    echo "# Set by scripts/image/updates.sh for the disk image's update engine (docs/DEPLOYMENT.md, \"Updating\")."
    [[ -z $WATCHDOG_MODULE ]] || printf 'watchdog = "/dev/watchdog"\nwatchdog_timeout = %s\n' "$WATCHDOG_TIMEOUT"
    echo 'ready_file = "/run/inkkiosk/ready"'
    echo 'busy_file = "/run/inkkiosk/busy"'
    if [[ -n $FLEET_SERVER ]]; then
        printf 'server = "%s"\ntenant = "%s"\n' "$FLEET_SERVER" "$FLEET_TENANT"
        [[ -z $FLEET_CA ]] || echo 'ca_file = "/etc/inkkiosk/fleet-ca.pem"'
    fi
} >>"$S/etc/inkkiosk/inkkiosk.toml"
chmod 0644 "$S/etc/inkkiosk/inkkiosk.toml"

(cd "$S" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0) |
    zstd -q -19 --long=25 -T0 --check >"$OUTPUT.tmp"
mv "$OUTPUT.tmp" "$OUTPUT"
(cd "$S" && find . \( -type f -o -type l \) -printf '%s\t%P\n' | LC_ALL=C sort -k2) >"${OUTPUT%.cpio.zst}.manifest.txt"
log "$OUTPUT: $(stat -c %s "$OUTPUT") bytes, $(wc -l <"${OUTPUT%.cpio.zst}.manifest.txt") files ($(du -sk "$S" | cut -f1) KiB unpacked); modules added: ${ADDED[*]}"
