#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The arm64 cross toolchain, from Debian's packages only, made once and cached:
#
#   CACHE/arm64/buildroot/   Debian unstable (amd64) with `swiftlang` 6.2.3: the compiler, which
#                            needs a newer glibc than these Debian 12 machines have, so it runs
#                            in a chroot (unstable does not move: its Release is past Valid-Until)
#   CACHE/arm64/root/        Debian 13 (trixie) arm64, unpacked (root-setup.sh does what its package
#                            scripts would have): the -dev libraries the kiosk links, and
#                            what the appliance and the packages take from (udev, busybox, …).
#                            Linking against it, not unstable's, keeps the binary's glibc need
#                            at what the boards' current releases have (2.41)
#   CACHE/arm64/swift/       unstable's `swiftlang:arm64` unpacked: the aarch64 Swift runtime,
#                            its modules and static libraries (lib/swift, lib/swift_static)
#   CACHE/arm64/sdk/         a Swift SDK bundle that names the three (SwiftPM's --swift-sdk)
#
#   scripts/arm64/toolchain.sh          makes what is missing or out of date; prints CACHE/arm64
#   scripts/arm64/toolchain.sh --run CMD …   runs CMD in the build root (the repo, /opt/swift-packages,
#                                            the root and the runtime mounted where the SDK says)
#
# Each part is remade when its recipe (the package list, the suite; for the root also
# root-setup.sh) changes: a stamp holds it.
# Needs root (chroot, mounts, binfmt for the arm64 root's few one-shot commands) on Debian 12.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=../lib/cache.sh
source "$HERE/../lib/cache.sh"
CACHE=$INKKIOSK_CACHE/arm64
MIRROR=${INKKIOSK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SWIFT_VERSION=6.2.3-1+b1
LIBXML2_VERSION=2.15.4+dfsg-1+b1
TRIPLE=aarch64-unknown-linux-gnu

# What the kiosk links (the -dev packages and the C/C++ runtime that the static Swift runtime
# needs), and what the arm64 appliance and its tests take from the root.
# libssl-dev: libcrypto for the PAdES signature's CMS (trixie's pulls libssl3t64, what the binary then needs).
# libcurl4-openssl-dev: the agents' HTTP client (libcurl4t64 on trixie, loaded when an agent runs).
# libexpat1-dev: the classroom agent's WebDAV answers (cairo's fontconfig links libexpat already);
# libqrencode-dev: the enrolment's QR code on the classroom screen.
# rauc, grub-efi-arm64-bin (with grub-common: grub-mkimage, grub-editenv): the arm64 disk image's
# update engine and boot loader (scripts/image/build.sh --arch arm64); dbus-daemon comes with rauc.
ROOT_PACKAGES=(libinput-dev libdrm-dev libudev-dev libcairo2-dev zlib1g-dev libseccomp-dev libssl-dev libcurl4-openssl-dev libexpat1-dev libqrencode-dev libc6-dev libgcc-14-dev libstdc++-14-dev
               udev busybox-static e2fsprogs libinput-bin libinput-tools libwacom-common libpoppler-glib8 fonts-dejavu-core
               rauc grub-efi-arm64-bin)
BUILDROOT_PACKAGES=(swiftlang libc6-dev git pkg-config ca-certificates)

log() { echo "arm64-toolchain: $*" >&2; }
die() { log "error: $*"; exit 1; }
[[ $(id -u) -eq 0 ]] || die "run as root (chroot, mounts)"

host_packages() {
    local missing=() pkg status
    # arch-test: mmdebstrap only recommends it, and refuses a foreign root without it.
    for pkg in mmdebstrap arch-test qemu-user-static binutils-aarch64-linux-gnu; do
        status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
        [[ $status == "install ok installed" ]] || missing+=("$pkg")
    done
    ((${#missing[@]} == 0)) && return 0
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -o DPkg::Lock::Timeout=600 -y -qq --no-install-recommends "${missing[@]}" >&2 ||
        { apt-get update -qq >&2 && apt-get install -o DPkg::Lock::Timeout=600 -y -qq --no-install-recommends "${missing[@]}" >&2; }
}

# arm64 programs (root-setup.sh's one-shot commands, the unit tests) run through qemu-user: the
# kernel's binfmt_misc must know the interpreter. qemu-user-static ships the entry; register it if nothing has.
binfmt_aarch64() {
    local bm=/proc/sys/fs/binfmt_misc
    [[ -e $bm/register ]] || mount -t binfmt_misc binfmt_misc "$bm" ||
        die "cannot mount binfmt_misc (needed to run the arm64 root's programs)"
    [[ -e $bm/qemu-aarch64 ]] && return 0
    [[ -f /usr/lib/binfmt.d/qemu-aarch64.conf ]] || die "/usr/lib/binfmt.d/qemu-aarch64.conf missing (qemu-user-static)"
    cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$bm/register" || die "cannot register qemu-aarch64 with binfmt_misc"
    log "registered qemu-aarch64 with binfmt_misc"
}

fresh() {  # fresh DIR RECIPE: true when DIR was made from RECIPE
    [[ -f $1.stamp && $(cat "$1.stamp") == "$2" && -d $1 ]]
}
made() { printf '%s' "$2" >"$1.stamp"; }

make_buildroot() {
    local dir=$CACHE/buildroot recipe="sid amd64 ${BUILDROOT_PACKAGES[*]}"
    fresh "$dir" "$recipe" && return 0
    log "making the build root (Debian unstable, swiftlang $SWIFT_VERSION) in $dir"
    rm -rf "$dir" "$dir.stamp"
    local list
    list=$(IFS=,; echo "${BUILDROOT_PACKAGES[*]}")
    mmdebstrap --quiet --variant=minbase --aptopt='Acquire::Check-Valid-Until "false"' \
        --include="$list" sid "$dir.tmp" "$MIRROR" >&2
    mv "$dir.tmp" "$dir"
    mkdir -p "$dir/sdk/root" "$dir/sdk/swift" "$dir/opt/swift-packages"
    # The package mirror, as the host's git finds it.
    git config --system --get-regexp '^url\.' >/dev/null 2>&1 && cp /etc/gitconfig "$dir/etc/gitconfig"
    made "$dir" "$recipe"
}

# The packages of a minbase root (Essential, Priority: required, apt) and ROOT_PACKAGES, with
# their dependencies, unpacked: their maintainer scripts would each run under qemu-user (17 min
# on an idle 2-core machine, 31 to 35 beside the Swift builds). root-setup.sh makes natively, or with a
# few one-shot commands under qemu, what those scripts made that anything here reads (the dpkg
# database, users, fontconfig's links and cache, ld.so.cache, …; 2 min in all, mostly downloads).
make_root() {
    local dir=$CACHE/root recipe
    recipe="trixie arm64 extract, root-setup.sh $(sha256sum <"$HERE/root-setup.sh" | cut -c1-16) ${ROOT_PACKAGES[*]}"
    fresh "$dir" "$recipe" && return 0
    log "making the arm64 root (Debian 13) in $dir"
    rm -rf "$dir" "$dir.stamp" "$dir.tmp"
    local list start=$SECONDS
    list=$(IFS=,; echo "${ROOT_PACKAGES[*]}")
    mmdebstrap --quiet --variant=extract --architectures=arm64 \
        --include='?essential' --include='?priority(required)' --include="apt,$list" \
        --extract-hook="$HERE/root-setup.sh \"\$1\"" trixie "$dir.tmp" "$MIRROR" >&2
    mv "$dir.tmp" "$dir"
    log "made the arm64 root in $((SECONDS - start)) s ($(du -sh "$dir" | cut -f1))"
    made "$dir" "$recipe"
}

make_runtime() {
    local dir=$CACHE/swift recipe="swiftlang $SWIFT_VERSION libxml2-16 $LIBXML2_VERSION arm64"
    fresh "$dir" "$recipe" && return 0
    log "unpacking swiftlang:arm64 $SWIFT_VERSION (the aarch64 Swift runtime) into $dir"
    rm -rf "$dir" "$dir.stamp" "$dir.tmp"
    mkdir -p "$dir.tmp/deb"
    # libxml2-16: FoundationXML's library (the unit tests' InkML check parses with it); Debian 13
    # has libxml2.so.2 only.
    local deb
    for deb in "s/swiftlang/swiftlang_${SWIFT_VERSION}_arm64.deb" "s/swiftlang/libswiftlang_${SWIFT_VERSION}_arm64.deb" \
               "libx/libxml2/libxml2-16_${LIBXML2_VERSION}_arm64.deb"; do
        curl -fsS -o "$dir.tmp/deb/${deb##*/}" "$MIRROR/pool/main/$deb" || die "cannot download $deb from $MIRROR"
        dpkg -x "$dir.tmp/deb/${deb##*/}" "$dir.tmp"
    done
    rm -rf "$dir.tmp/deb"
    mv "$dir.tmp" "$dir"
    made "$dir" "$recipe"
}

# The SDK bundle: paths as the build root sees them (/sdk/root, /sdk/swift are bind mounts).
make_sdk() {
    local dir=$CACHE/buildroot/sdk/bundles/inkkiosk-arm64.artifactbundle
    # The driver looks for swiftrt.o (the runtime's start file) under the SDK root's usr/lib/swift
    # and usr/lib/swift_static, whatever the resource paths say: links there, for the chroot.
    ln -sfn /sdk/swift/usr/libexec/swift/lib/swift_static "$CACHE/root/usr/lib/swift_static"
    ln -sfn /sdk/swift/usr/libexec/swift/lib/swift "$CACHE/root/usr/lib/swift"
    mkdir -p "$dir/$TRIPLE"
    cat >"$dir/info.json" <<EOF
{
  "schemaVersion": "1.0",
  "artifacts": {
    "inkkiosk-arm64": {
      "type": "swiftSDK",
      "version": "$SWIFT_VERSION",
      "variants": [{ "path": "$TRIPLE", "supportedTriples": ["x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu"] }]
    }
  }
}
EOF
    cat >"$dir/$TRIPLE/swift-sdk.json" <<EOF
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "$TRIPLE": {
      "sdkRootPath": "/sdk/root",
      "swiftResourcesPath": "/sdk/swift/usr/libexec/swift/lib/swift",
      "swiftStaticResourcesPath": "/sdk/swift/usr/libexec/swift/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
    cat >"$dir/$TRIPLE/toolset.json" <<'EOF'
{
  "schemaVersion": "1.0",
  "rootPath": "/usr/libexec/swift/bin",
  "linker": { "path": "ld.lld" },
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] }
}
EOF
}

# Runs a command in the build root with the repo at its own path and the SDK's mounts.
run_in_buildroot() {
    local br=$CACHE/buildroot
    mkdir -p "$br$REPO"
    unshare -m --propagation private bash -euc '
        br=$1 repo=$2 cache=$3; shift 3
        mount -t proc proc "$br/proc"
        mount --rbind /dev "$br/dev"
        mount --bind "$repo" "$br$repo"
        mount --bind -o ro "$cache/root" "$br/sdk/root"
        mount --bind -o ro "$cache/swift" "$br/sdk/swift"
        [[ -d /opt/swift-packages ]] && mount --bind -o ro /opt/swift-packages "$br/opt/swift-packages"
        cd "$br$repo"
        exec chroot "$br" env -i HOME=/root PATH=/usr/bin:/bin LANG=C.UTF-8 \
            PKG_CONFIG_SYSROOT_DIR=/sdk/root \
            PKG_CONFIG_PATH=/sdk/root/usr/lib/aarch64-linux-gnu/pkgconfig:/sdk/root/usr/share/pkgconfig \
            bash -c "cd \"\$0\" && exec \"\$@\"" "$repo" "$@"
    ' _ "$br" "$REPO" "$CACHE" "$@"
}

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9   # one maker at a time; a second run waits, then finds it done
host_packages
binfmt_aarch64   # also after a reboot: the unit tests start arm64 children through it
make_buildroot
make_root
make_runtime
make_sdk
if [[ ${1:-} == --run ]]; then
    shift
    run_in_buildroot "$@"
else
    echo "$CACHE"
fi
