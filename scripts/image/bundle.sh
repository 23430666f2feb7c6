#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a signed RAUC update bundle of the appliance: the slot file system that
# scripts/image/build.sh puts in slots A and B, for a device to install into its other slot.
#
#   scripts/image/bundle.sh [--arch amd64|arm64] [SLOT_IMAGE]   (`make bundle`; default out/image/slot.ext4,
#                                                               out/image-arm64/slot.ext4 for arm64)
#
# Output (BUNDLE_OUT, default out/bundle/):
#   inkkiosk-VERSION-ARCH-BOARD.raucb   format=verity (the payload is checked block by block as it
#                                       is read, against a hash tree the signature covers: a
#                                       truncated or altered bundle fails where it differs);
#                                       compatible "inkkiosk-ARCH-BOARD"; version: the slot's own
#                                       (its /version: the project's, scripts/image/version.sh, or
#                                       IMAGE_VERSION when it was built), or BUNDLE_VERSION
#   info.txt                            `rauc info` of it, checked against the keyring
#
# Keys: BUNDLE_CERT and BUNDLE_KEY (a file or a PKCS#11 URI; the vendor's signing certificate and
# key) and BUNDLE_KEYRING (the CA certificate the devices trust). Without them, a DEVELOPMENT CA
# and signing key are made once in out/keys/development/ (never committed: out/ is ignored) and
# used; a device trusts only the CA certificate its image was built with, so a bundle signed
# with the development key installs only on development images. docs/DEPLOYMENT.md ("Updating")
# says how a vendor makes and keeps its own.
#
# Environment:
#   BUNDLE_OUT        output directory
#   BUNDLE_VERSION    the bundle's version (default: the slot's /version)
#   IMAGE_BOARD       the board named in `compatible` (default qemu)
#   INKKIOSK_KEYS     where the development keys are (default out/keys/development)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ARCH=amd64
case ${1:-} in
    --arch) ARCH=${2:?--arch wants amd64 or arm64}; shift 2 ;;
    --arch=*) ARCH=${1#--arch=}; shift ;;
esac
log() { echo "bundle: $*" >&2; }
die() { log "error: $*"; exit 1; }
case $ARCH in
    amd64) SLOT=${1:-$ROOT/out/image/slot.ext4} ;;
    arm64) SLOT=${1:-$ROOT/out/image-arm64/slot.ext4} ;;
    *) die "unsupported architecture $ARCH (amd64 or arm64)" ;;
esac
OUT=${BUNDLE_OUT:-$ROOT/out/bundle}
BOARD=${IMAGE_BOARD:-qemu}
COMPATIBLE=inkkiosk-$ARCH-$BOARD
[[ -s $SLOT ]] || die "$SLOT is missing; build the image first (make image)"
# The version the slot says it is (scripts/image/build.sh wrote it), unless BUNDLE_VERSION.
VERSION=${BUNDLE_VERSION:-$(debugfs -R "cat /version" "$SLOT" 2>/dev/null)}
[[ -n $VERSION ]] || die "$SLOT has no /version (not made by scripts/image/build.sh?); set BUNDLE_VERSION"

for tool in rauc:rauc mksquashfs:squashfs-tools openssl:openssl; do
    command -v "${tool%%:*}" >/dev/null && continue
    [[ $(id -u) -eq 0 ]] || die "${tool%%:*} is missing: apt-get install ${tool#*:}"
    log "installing ${tool#*:}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${tool#*:}" >&2
done

# --- keys ----------------------------------------------------------------------------------------
if [[ -n ${BUNDLE_CERT:-} || -n ${BUNDLE_KEY:-} || -n ${BUNDLE_KEYRING:-} ]]; then
    [[ -n ${BUNDLE_CERT:-} && -n ${BUNDLE_KEY:-} && -n ${BUNDLE_KEYRING:-} ]] ||
        die "BUNDLE_CERT, BUNDLE_KEY and BUNDLE_KEYRING go together (the signer's certificate and key, the CA the devices trust)"
    CERT=$BUNDLE_CERT KEY=$BUNDLE_KEY KEYRING=$BUNDLE_KEYRING
else
    KEYS=$("$HERE/dev-keys.sh")
    CERT=$KEYS/signing.cert.pem KEY=$KEYS/signing.key.pem KEYRING=$KEYS/ca.cert.pem
    log "signing with the DEVELOPMENT key in $KEYS (a device trusts it only if its image was built with it)"
fi

# --- the bundle ----------------------------------------------------------------------------------
mkdir -p "$OUT"
WORK=$(mktemp -d "$OUT/.bundle.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/content"
cp "$SLOT" "$WORK/content/rootfs.ext4"
build=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)
# One image, for the slot class "rootfs" (system.conf names slots rootfs.0 = A, rootfs.1 = B):
# RAUC writes it into whichever of the two is not running.
cat >"$WORK/content/manifest.raucm" <<EOF
[update]
compatible=$COMPATIBLE
version=$VERSION
description=inkkiosk appliance ($ARCH, $BOARD)
build=$build

[bundle]
format=verity

[image.rootfs]
filename=rootfs.ext4
EOF
name=inkkiosk-$VERSION-$ARCH-$BOARD.raucb
rm -f "$OUT/$name"
# The signer's certificate must be for code signing (extendedKeyUsage codeSigning), as the
# devices check (system.conf: check-purpose=codesign): a certificate the same CA issued for
# anything else (a server's, a device's) cannot sign an update. rauc reads that rule from a
# system.conf, so the checks here get one with only that.
cat >"$WORK/check.conf" <<CONF
[system]
compatible=$COMPATIBLE
bootloader=noop

[keyring]
check-purpose=codesign
CONF
rauc --conf="$WORK/check.conf" bundle --cert="$CERT" --key="$KEY" --keyring="$KEYRING" "$WORK/content" "$WORK/$name" >&2
mv "$WORK/$name" "$OUT/$name"
rauc --conf="$WORK/check.conf" info --keyring="$KEYRING" "$OUT/$name" >"$OUT/info.txt" 2>&1 ||
    { cat "$OUT/info.txt" >&2; die "rauc info does not accept the bundle it just made"; }
log "$OUT/$name: $(stat -c %s "$OUT/$name") bytes; compatible $COMPATIBLE, version $VERSION (slot image $(stat -c %s "$SLOT") bytes)"
echo "$OUT/$name"
