#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The arm64 root's packages are unpacked, not installed (mmdebstrap --variant=extract): no
# maintainer script runs, since each would run under qemu-user (17 minutes on an idle 2-core
# machine, 31 to 35 when the Swift builds run beside it). This does, natively or as a few one-shot
# commands under qemu, what those scripts made that the root's users read:
#
#   - the dpkg database (status, info/*.list, symbols, shlibs, …), written from the .debs with the
#     host's dpkg-deb: scripts/deb/build.sh's dpkg-shlibdeps asks it which package ships a library
#     and what its symbols file requires;
#   - base-files' first configuration (its postinst, run natively: it honours DPKG_ROOT), the
#     files glibc reads (libc-bin's nsswitch.conf, netbase's hosts and networks), tzdata's
#     /etc/localtime (Etc/UTC, debconf's default), /etc/mtab;
#   - the users and groups: base-passwd's master files, shadowconfig (passwd), systemd-sysusers in
#     the order systemd's, dbus's and udev's postinsts run it (the same ids as an installed root);
#   - fontconfig-config's /etc/fonts/conf.d links from its debconf defaults (hinting: native,
#     slight; sub-pixel: automatic; bitmaps: no), which decide how cairo draws the kiosk's text,
#     and the font cache (fc-cache, fontconfig's trigger);
#   - the loader's cache (ldconfig, libc-bin's trigger).
#
# Left out, as nothing here reads them: udev's hwdb.bin (2 minutes under qemu; the appliance
# compiles its own from the root's hwdb.d), alternatives (awk, pager, which, …), dpkg's
# diversions and statoverrides, systemd's enablement links, PAM's common-* files, /etc/shells,
# Python's bytecode, debconf's database, the MIME, icon, GIO, GSettings and gdk-pixbuf caches.
#
#   scripts/arm64/root-setup.sh ROOT     (mmdebstrap's --extract-hook: the .debs are still in
#                                         ROOT/var/cache/apt/archives)
set -euo pipefail

R=${1:?usage: root-setup.sh ROOT}
log() { echo "arm64-root: $*" >&2; }
die() { log "error: $*"; exit 1; }
in_root() { chroot "$R" "$@"; }   # an arm64 program, through binfmt's qemu-aarch64

shopt -s nullglob
debs=("$R"/var/cache/apt/archives/*.deb)
((${#debs[@]} > 0)) || die "no .deb in $R/var/cache/apt/archives"

# --- the dpkg database -------------------------------------------------------------------------
A=$R/var/lib/dpkg
mkdir -p "$A/info" "$A/updates" "$A/triggers"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/status"
# A package's fields in the order dpkg writes them to status (lib/dpkg/parse.c's fieldinfos), the
# others after them as they came, and the empty line that ends the entry.
STATUS_ORDER='
    /^[ \t]/ { value[name] = value[name] "\n" $0; next }
    { name = substr($0, 1, index($0, ":") - 1); value[name] = $0; seen[++n] = name }
    END {
        k = split("Package Essential Protected Status Priority Section Installed-Size Origin Maintainer Bugs " \
                  "Architecture Multi-Arch Source Version Config-Version Replaces Provides Depends Pre-Depends " \
                  "Recommends Suggests Breaks Conflicts Enhances Conffiles Description Triggers-Pending " \
                  "Triggers-Awaited", known, " ")
        for (i = 1; i <= k; i++) { done[known[i]] = 1; if (known[i] in value) print value[known[i]] }
        for (i = 1; i <= n; i++) if (!(seen[i] in done)) print value[seen[i]]
        print ""
    }'
field() { sed -n "s/^$1: *//p" "$work/control/control"; }
for deb in "${debs[@]}"; do
    rm -rf "$work/control"
    dpkg-deb -e "$deb" "$work/control"
    pkg=$(field Package)
    name=$pkg
    [[ $(field Multi-Arch) == same ]] && name=$pkg:$(field Architecture)
    for f in "$work"/control/*; do
        [[ ${f##*/} == control ]] || cp -p "$f" "$A/info/$name.${f##*/}"
    done
    # As dpkg writes it: "/." for the top, then every path without its leading "." or trailing "/".
    dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' -e 's|^$|/.|' >"$A/info/$name.list"
    {
        cat "$work/control/control"
        echo "Status: install ok installed"
        if [[ -s $work/control/conffiles ]]; then
            echo "Conffiles:"
            # A line is the path, after its flags (remove-on-upgrade); status has them after the sum.
            while read -r -a words; do
                f=${words[-1]} flags=${words[*]:0:${#words[@]}-1} sum=newconffile
                [[ -f $R$f ]] && { sum=$(md5sum <"$R$f"); sum=${sum%% *}; }
                echo " $f $sum${flags:+ $flags}"
            done <"$work/control/conffiles"
        fi
    } | awk "$STATUS_ORDER" >"$work/status/$pkg"
done
(cd "$work/status" && LC_ALL=C ls | while read -r p; do cat "$p"; done) >"$A/status"
echo 1 >"$A/info/format"
echo arm64 >"$A/arch-native"
log "dpkg database: $(ls "$work/status" | wc -l) packages"

# --- base-files, glibc's files, the time zone ------------------------------------------------------
DPKG_ROOT=$R sh "$A/info/base-files.postinst" configure ""
[[ -e $R/etc/nsswitch.conf ]] || cp -p "$R/usr/share/libc-bin/nsswitch.conf" "$R/etc/nsswitch.conf"
[[ -e $R/etc/hosts ]] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n\n' >"$R/etc/hosts"
[[ -e $R/etc/networks ]] || printf 'default\t\t0.0.0.0\nloopback\t127.0.0.0\nlink-local\t169.254.0.0\n\n' >"$R/etc/networks"
ln -sfn /usr/share/zoneinfo/Etc/UTC "$R/etc/localtime"
ln -sfn ../proc/self/mounts "$R/etc/mtab"
: >"$R/etc/machine-id"   # as mmdebstrap leaves systemd's: empty

# --- users and groups -------------------------------------------------------------------------------
install -m 0644 "$R/usr/share/base-passwd/passwd.master" "$R/etc/passwd"
install -m 0644 "$R/usr/share/base-passwd/group.master" "$R/etc/group"
in_root shadowconfig on >/dev/null
in_root systemd-sysusers basic.conf systemd-journal.conf systemd-network.conf
in_root systemd-sysusers dbus.conf
in_root systemd-sysusers debian-udev.conf

# --- fonts --------------------------------------------------------------------------------------------
mkdir -p "$R/usr/local/share/fonts"   # fontconfig-config's, in the cache too
for conf in 10-hinting-slight.conf 70-no-bitmaps-except-emoji.conf; do
    [[ -f $R/usr/share/fontconfig/conf.avail/$conf ]] || die "fontconfig-config has no conf.avail/$conf"
    ln -sfn "/usr/share/fontconfig/conf.avail/$conf" "$R/etc/fonts/conf.d/$conf"
done
in_root fc-cache -s -f

# --- the loader's cache ------------------------------------------------------------------------------
in_root /sbin/ldconfig
rm -f "$R/var/cache/ldconfig/aux-cache"   # as mmdebstrap's cleanup does
[[ -s $R/etc/ld.so.cache ]] || die "ldconfig wrote no /etc/ld.so.cache"
