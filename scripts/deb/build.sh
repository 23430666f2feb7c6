#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian package of inkkiosk for one architecture from an already built binary.
#
#   scripts/deb/build.sh ARCH BINARY
#
#   ARCH     amd64 or arm64 (must match BINARY's ELF machine)
#   BINARY   the release binary: .build/release/inkkiosk (make release) or out/arm64/inkkiosk
#            (make arm64)
#
# Leaves out/deb/inkkiosk_VERSION_ARCH.deb (VERSION: the upstream version `inkkiosk --version`
# prints, with the Debian revision of deploy/debian/changelog, e.g. 1.0.0-1).
#
# The packaging metadata is in deploy/debian/ (control, changelog, copyright, maintainer scripts,
# tmpfiles.d entry, man page); the other files come from deploy/ and config/ as deploy/install.sh
# uses them, with the units' /usr/local paths changed to /usr. Depends: is computed by
# dpkg-shlibdeps from what BINARY really links: against this machine's libraries for its own
# architecture, and for arm64 against the Debian root the binary was linked with
# (INKKIOSK_DEB_SYSROOT, default out/arm64/root; its /var/lib/dpkg says which package ships each
# library and what their symbols files require).
#
# Environment: INKKIOSK_DEB_OUT (default out/deb), INKKIOSK_DEB_SYSROOT (see above),
# INKKIOSK_VERSION (skip running BINARY --version; must still match the changelog).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
DEB=$REPO/deploy/debian
OUT=${INKKIOSK_DEB_OUT:-$REPO/out/deb}

die() { echo "deb/build.sh: error: $*" >&2; exit 1; }
say() { echo "deb/build.sh: $*"; }

(($# == 2)) || { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
ARCH=$1
BIN=$2
case $ARCH in amd64|arm64) ;; *) die "ARCH must be amd64 or arm64, not $ARCH" ;; esac
[[ -f $BIN && -x $BIN ]] || die "$BIN is not an executable (make release / make arm64)"

deb_need dpkg-dev binutils
MULTIARCH=$(dpkg-architecture -a"$ARCH" -qDEB_HOST_MULTIARCH 2>/dev/null)
GNU_TYPE=$(dpkg-architecture -a"$ARCH" -qDEB_HOST_GNU_TYPE 2>/dev/null)
BUILD_ARCH=$(dpkg-architecture -qDEB_BUILD_ARCH)
STRIP=strip
if [[ $ARCH != "$BUILD_ARCH" ]]; then
    deb_need "binutils-${GNU_TYPE//_/-}"
    STRIP=$GNU_TYPE-strip
fi

# The binary: the right machine, and only the distribution's libraries.
elf_arch=$(deb_elf_arch "$BIN")
[[ $elf_arch == "$ARCH" ]] || die "$BIN is an ELF for ${elf_arch:-an unknown machine}, not $ARCH"
needed=$(LC_ALL=C readelf -d "$BIN" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
toolchain=$(grep -E '^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime)' <<<"$needed" || true)
[[ -z $toolchain ]] || die "$BIN links the Swift runtime dynamically ($(paste -sd' ' <<<"$toolchain")); build it with --static-swift-stdlib (make release)"
say "$ARCH binary links $(paste -sd' ' <<<"$needed")"

# The version: the binary's own, which the changelog's newest entry must carry.
SYSROOT=${INKKIOSK_DEB_SYSROOT:-$REPO/out/arm64/root}
if [[ -n ${INKKIOSK_VERSION:-} ]]; then
    upstream=$INKKIOSK_VERSION
elif [[ $ARCH == "$BUILD_ARCH" ]]; then
    upstream=$("$BIN" --version)
elif [[ $ARCH == arm64 ]] && [[ -d $SYSROOT ]] && deb_need qemu-user-static; then
    upstream=$(qemu-aarch64-static -L "$SYSROOT" "$BIN" --version)
else
    die "cannot run the $ARCH binary for its version (qemu-aarch64-static and $SYSROOT); set INKKIOSK_VERSION"
fi
DEBVERSION=$(dpkg-parsechangelog -l"$DEB/changelog" -SVersion)
[[ ${DEBVERSION%-*} == "$upstream" ]] || die "the binary says $upstream, deploy/debian/changelog's newest entry is $DEBVERSION: add an entry for $upstream-1 (dch -c deploy/debian/changelog -v $upstream-1)"
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l"$DEB/changelog" -STimestamp)
export SOURCE_DATE_EPOCH

WORK=$(mktemp -d "${TMPDIR:-/tmp}/inkkiosk-deb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
P=$WORK/root
umask 022

# The files, where a Debian system expects them.
install -D -m 0755 "$BIN" "$P/usr/bin/inkkiosk"
# As dh_strip does for executables: no symbol table or debugging sections (the binary carries
# 60 MB of DWARF), no .comment.
"$STRIP" --remove-section=.comment --remove-section=.note "$P/usr/bin/inkkiosk"
# The units (the kiosk's and the cloud agent's): deploy/install.sh installs the binary and the
# README under /usr/local; the package puts them under /usr. Every /usr/local in a unit must be
# one of these two. postinst and postrm enable and clean up each of them by name.
install -d "$P/usr/lib/systemd/system"
for unit in inkkiosk.service inkkiosk-cloud.service; do
    {
        echo "# Installed by the inkkiosk Debian package (made from deploy/systemd/$unit, with"
        echo "# /usr for /usr/local). Enabled on installation, not started: \`systemctl start ${unit%.service}\`."
        echo "# Changes go in a drop-in: systemctl edit ${unit%.service}."
        sed -e 's|/usr/local/bin/inkkiosk|/usr/bin/inkkiosk|g' \
            -e 's|file:///usr/local/share/doc/inkkiosk/|file:///usr/share/doc/inkkiosk/|g' \
            "$REPO/deploy/systemd/$unit"
    } >"$P/usr/lib/systemd/system/$unit"
    if left=$(grep -n '/usr/local' "$P/usr/lib/systemd/system/$unit" | grep -v '^[0-9]*:#'); then
        die "the packaged $unit still names /usr/local: $left"
    fi
    for script in postinst postrm; do
        grep -qwF "$unit" "$DEB/$script" || die "deploy/debian/$script does not name $unit"
    done
done
install -D -m 0644 "$REPO/deploy/sysusers.d/inkkiosk.conf" "$P/usr/lib/sysusers.d/inkkiosk.conf"
install -D -m 0644 "$DEB/tmpfiles.conf" "$P/usr/lib/tmpfiles.d/inkkiosk.conf"
install -D -m 0644 "$REPO/deploy/sysctl.d/50-inkkiosk.conf" "$P/usr/lib/sysctl.d/50-inkkiosk.conf"
install -d "$P/usr/lib/udev/rules.d"
install -m 0644 "$REPO"/deploy/udev/*.rules "$P/usr/lib/udev/rules.d/"
# libinput reads overrides from /etc/libinput/local-overrides.quirks only: a conffile.
install -D -m 0644 "$REPO/deploy/libinput/local-overrides.quirks" "$P/etc/libinput/local-overrides.quirks"
# The configuration the unit starts with (a conffile), and the two ready profiles to copy over it.
install -D -m 0644 "$REPO/config/inkkiosk.toml" "$P/etc/inkkiosk/inkkiosk.toml"
install -d "$P/usr/share/inkkiosk/profiles"
install -m 0644 "$REPO/config/signature.toml" "$REPO/config/classroom.toml" "$P/usr/share/inkkiosk/profiles/"
# Documentation: the README is the unit's Documentation= (kept uncompressed for that link).
D=$P/usr/share/doc/inkkiosk
install -D -m 0644 "$DEB/copyright" "$D/copyright"
install -m 0644 "$REPO/README.md" "$D/README.md"
# The README points into docs/: the rest of the documentation, beside it (Debian compresses none of it
# here: the links between the files stay valid).
install -d "$D/docs"
install -m 0644 "$REPO"/docs/*.md "$D/docs/"
gzip -9nc "$DEB/changelog" >"$D/changelog.Debian.gz"
install -d "$P/usr/share/man/man1"
gzip -9nc "$DEB/inkkiosk.1" >"$P/usr/share/man/man1/inkkiosk.1.gz"
if [[ -s $DEB/lintian-overrides ]]; then
    install -D -m 0644 "$DEB/lintian-overrides" "$P/usr/share/lintian/overrides/inkkiosk"
fi

# Control area: maintainer scripts, conffiles (everything under /etc), md5sums (the rest).
install -d "$P/DEBIAN"
install -m 0755 "$DEB/postinst" "$DEB/prerm" "$DEB/postrm" "$P/DEBIAN/"
(cd "$P" && find etc -type f | sort | sed 's|^|/|') >"$P/DEBIAN/conffiles"

# Depends: from what the binary links (dpkg-shlibdeps: the packages that ship those libraries
# and, from their symbols files, the oldest versions that have every symbol it uses).
SHLIBDEPS=(dpkg-shlibdeps -T"$WORK/substvars" -e"$P/usr/bin/inkkiosk")
if [[ $ARCH != "$BUILD_ARCH" ]]; then
    [[ -d $SYSROOT/var/lib/dpkg/info ]] || die "no Debian $ARCH root at $SYSROOT (make arm64 builds it; or set INKKIOSK_DEB_SYSROOT)"
    SYSROOT=$(cd "$SYSROOT" && pwd -P)
    # dpkg-shlibdeps finds the libraries under SYSROOT (-l) and asks dpkg-query which package
    # ships each of those paths. The root's database names them without the SYSROOT prefix, so
    # it is given a copy of that database whose file lists carry the prefix; the rest (status,
    # symbols and shlibs files) is the root's own.
    ADMIN=$WORK/admindir
    mkdir -p "$ADMIN/info" "$ADMIN/updates"
    for f in status arch diversions statoverride; do
        [[ -e $SYSROOT/var/lib/dpkg/$f ]] && cp "$SYSROOT/var/lib/dpkg/$f" "$ADMIN/$f"
    done
    for f in "$SYSROOT"/var/lib/dpkg/info/*; do
        case $f in
            *.list) sed "s|^/|$SYSROOT/|" "$f" >"$ADMIN/info/${f##*/}" ;;
            *) ln -s "$f" "$ADMIN/info/${f##*/}" ;;
        esac
    done
    SHLIBDEPS=(env DEB_HOST_ARCH="$ARCH" "${SHLIBDEPS[@]}" --admindir="$ADMIN"
               -l"$SYSROOT/usr/lib/$MULTIARCH" -l"$SYSROOT/lib/$MULTIARCH")
fi
# (It reads debian/control of the directory it runs in.)
mkdir -p "$WORK/debian"
cp "$DEB/control" "$WORK/debian/control"
(cd "$WORK" && "${SHLIBDEPS[@]}")
grep -q '^shlibs:Depends=.*libc6' "$WORK/substvars" || die "dpkg-shlibdeps found no libc6 dependency: $(cat "$WORK/substvars")"
# dpkg-shlibdeps goes by the symbols the binary imports; a version it needs without importing
# a symbol of it escapes it. lld's packed relative relocations (-z pack-relative-relocs) are
# one: the binary then needs GLIBC_ABI_DT_RELR (glibc 2.36) from libc.so.6, which libc6's
# symbols file lists, but the Depends: above says 2.35. So every version the binary needs from
# libc.so.6 is looked up in libc6's symbols file and the newest goes into Depends: too
# (dpkg-gencontrol keeps the stricter of the two).
if [[ $ARCH == "$BUILD_ARCH" ]]; then
    libc_symbols=$(dpkg-query --control-path "libc6:$ARCH" symbols)
else
    libc_symbols=$SYSROOT/var/lib/dpkg/info/libc6:$ARCH.symbols
fi
[[ -f $libc_symbols ]] || die "no symbols file of libc6:$ARCH ($libc_symbols)"
libc_min=
for v in $(LC_ALL=C readelf -V "$BIN" | awk '/File: libc\.so\.6/ {f=1; next} /File:/ {f=0} f && /Name:/ {print $3}'); do
    ver=$(awk -v s="$v@$v" '$1 == s {print $2; exit}' "$libc_symbols")
    [[ -n $ver ]] || continue
    if [[ -z $libc_min ]] || dpkg --compare-versions "$ver" gt "$libc_min"; then libc_min=$ver; fi
done
[[ -n $libc_min ]] || die "found none of the binary's libc.so.6 versions in $libc_symbols"
# deb-systemd-helper (postinst, postrm); libinput, which the kiosk loads when it opens its seat
# (after its first frame), not at start, so dpkg-shlibdeps does not see it (1.11.1: the oldest its
# symbols file gives for the functions the kiosk calls); OpenSSL 3's libcrypto, which the kiosk
# loads when it signs a PDF or reads or makes a signing identity (check-config and keygen
# --signing too): both dependencies all the same, as signing is part of the signature kiosk
# (trixie's package is libssl3t64). poppler-glib is dlopened when a worksheet
# is opened, so it is recommended, not linked (trixie renamed the package in the 64-bit time_t
# transition); so is libcurl, which only the agents load (`update-agent`, `cloud-agent`), not the kiosk.
{
    echo "misc:Depends=libc6 (>= $libc_min), init-system-helpers (>= 1.54~), libinput10 (>= 1.11.1), libssl3t64 | libssl3 (>= 3.0.0)"
    echo "poppler:Recommends=libpoppler-glib8t64 | libpoppler-glib8, libcurl4t64 | libcurl4"
} >>"$WORK/substvars"

find "$P" -type f ! -path "$P/DEBIAN/*" ! -path "$P/etc/*" -printf '%P\n' | LC_ALL=C sort \
    | (cd "$P" && xargs -d '\n' md5sum) >"$P/DEBIAN/md5sums"
DEB_HOST_ARCH=$ARCH dpkg-gencontrol -pinkkiosk -c"$DEB/control" -l"$DEB/changelog" \
    -T"$WORK/substvars" -P"$P" -f"$WORK/files"
chmod 0644 "$P/DEBIAN/control" "$P/DEBIAN/conffiles" "$P/DEBIAN/md5sums"
find "$P" -depth -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$OUT"
PKG=$OUT/inkkiosk_${DEBVERSION}_${ARCH}.deb
dpkg-deb --root-owner-group -Zxz --build "$P" "$PKG" >/dev/null
say "$PKG ($(du -k "$PKG" | cut -f1) KB)"
say "Depends: $(dpkg-deb -f "$PKG" Depends)"
