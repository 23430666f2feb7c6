#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Proves the Debian packages (scripts/deb/build.sh) on clean Debian roots:
#
#   scripts/deb/test.sh [AMD64_BINARY [ARM64_BINARY]]
#
#   AMD64_BINARY  default .build/release/inkkiosk (make release)
#   ARM64_BINARY  default out/arm64/inkkiosk (make arm64); its checks are skipped if it is missing
#
# Builds both packages into out/deb/, then:
#   - lintian: no errors (warnings and info are listed; docs/PACKAGING.md explains them);
#   - both: the cloud agent's unit is in the package, with /usr/bin/inkkiosk and no /usr/local;
#   - amd64: in a clean Debian 12 root (mmdebstrap minbase, made once and kept as a tarball under
#     ${INKKIOSK_CACHE:-~/.cache/inkkiosk}/deb-test/, unpacked afresh for every run) the package's
#     Depends and Recommends install from the registry (apt-get satisfy), then
#     `apt-get install ./inkkiosk_*.deb` installs it; in the root (chroot, own mount namespace)
#     the binary runs, finds its libraries in Debian packages, `inkkiosk devices` runs, the
#     configs check, systemd-analyze verify accepts the units (the kiosk's and the cloud agent's),
#     both are enabled and the kiosk is not running; `dpkg --purge` then leaves the root as it
#     was before the install;
#   - arm64: its Depends and Recommends resolve against trixie's arm64 package lists
#     (apt-get install --simulate with an apt of its own configured for arm64).
# One line per check; the last line is `deb: N passed, N failed`; exit status 1 on any failure.
# Needs root (mounts, chroot). The first run on a machine downloads about 100 MB.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
AMD64_BIN=${1:-$REPO/.build/release/inkkiosk}
ARM64_BIN=${2:-$REPO/out/arm64/inkkiosk}
OUT=${INKKIOSK_DEB_OUT:-$REPO/out/deb}
export INKKIOSK_DEB_OUT=$OUT
# shellcheck source=../lib/cache.sh
source "$HERE/../lib/cache.sh"
CACHE=$INKKIOSK_CACHE/deb-test
MIRROR=${INKKIOSK_DEB_MIRROR:-http://deb.debian.org/debian}
SECURITY=${INKKIOSK_DEB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
T0=$SECONDS

PASSED=0
FAILED=0
LOG=$(mktemp "${TMPDIR:-/tmp}/inkkiosk-deb-test.XXXXXX")
pass() { echo "ok: $*"; PASSED=$((PASSED + 1)); }
fail() {  # fail MESSAGE: the check's line, then the end of its log, indented
    echo "FAIL: $*"
    FAILED=$((FAILED + 1))
    [[ -s $LOG ]] && tail -n 15 "$LOG" | sed 's/^/    | /'
    : >"$LOG"
}
skip() { echo "skipped: $*"; }
note() { echo "note: $*"; }
finish() {
    echo "deb: $PASSED passed, $FAILED failed ($((SECONDS - T0)) s)"
    ((FAILED == 0))
    exit
}
# check MESSAGE COMMAND...: passes when COMMAND succeeds (its output goes to the log).
check() {
    local msg=$1
    shift
    : >"$LOG"
    if "$@" >>"$LOG" 2>&1; then pass "$msg"; else fail "$msg"; fi
}

WORK=
cleanup() {
    rm -f "$LOG"
    [[ -n $WORK && -d $WORK ]] || return 0
    # The chroot's mounts live in namespaces that are gone by now; never delete through a mount.
    if findmnt -rn -o TARGET | grep -q "^$WORK/"; then
        echo "deb: $WORK still has mounts; left in place" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

if [[ $(id -u) -ne 0 ]]; then
    fail "scripts/deb/test.sh needs root (mounts and chroot for the install test)"
    finish
fi
mkdir -p "$CACHE"
: >"$LOG"
if ! deb_need dpkg-dev lintian mmdebstrap libinput-tools debian-archive-keyring >>"$LOG" 2>&1; then
    fail "the test's tools install (dpkg-dev, lintian, mmdebstrap, libinput-tools)"
    finish
fi

# --- the packages ---------------------------------------------------------------------------------
version=$(dpkg-parsechangelog -l"$REPO/deploy/debian/changelog" -SVersion)
AMD64_DEB=$OUT/inkkiosk_${version}_amd64.deb
ARM64_DEB=$OUT/inkkiosk_${version}_arm64.deb
rm -f "$AMD64_DEB" "$ARM64_DEB"
check "amd64: scripts/deb/build.sh amd64 ${AMD64_BIN#"$REPO"/} -> ${AMD64_DEB#"$REPO"/}" \
    "$HERE/build.sh" amd64 "$AMD64_BIN"
HAVE_ARM64=0
if [[ -e $ARM64_BIN ]]; then
    HAVE_ARM64=1
    deb_need qemu-user-static >>"$LOG" 2>&1 || true
    check "arm64: scripts/deb/build.sh arm64 ${ARM64_BIN#"$REPO"/} -> ${ARM64_DEB#"$REPO"/}" \
        "$HERE/build.sh" arm64 "$ARM64_BIN"
else
    skip "arm64: ${ARM64_BIN#"$REPO"/} missing (make arm64)"
fi

# --- lintian ---------------------------------------------------------------------------------------
lint() {  # lint ARCH DEB: passes without errors; the line lists the tags there are
    local out rc e w i p summary
    : >"$LOG"
    out=$(lintian --fail-on error -I --pedantic "$2" 2>&1)
    rc=$?
    out=$(grep -v '^running with root privileges' <<<"$out")
    printf '%s\n' "$out" >"$LOG"
    e=$(grep -c '^E: ' <<<"$out")
    w=$(grep -c '^W: ' <<<"$out")
    i=$(grep -c '^I: ' <<<"$out")
    p=$(grep -c '^P: ' <<<"$out")
    summary="$e errors, $w warnings, $i info, $p pedantic"
    local listed
    listed=$(grep -E '^[EWIP]: ' <<<"$out" | awk '{print $1 " " $3}' | sort | uniq -c \
        | awk '{printf "%s%s%s%s", sep, $2, $3, ($1 > 1 ? " x" $1 : ""); sep=", "}')
    [[ -n $listed ]] && summary+=" ($listed)"
    if ((rc == 0 && e == 0)); then
        pass "$1: lintian: $summary"
    else
        fail "$1: lintian: $summary"
    fi
}
[[ -f $AMD64_DEB ]] && lint amd64 "$AMD64_DEB"
((HAVE_ARM64)) && [[ -f $ARM64_DEB ]] && lint arm64 "$ARM64_DEB"

# --- the cloud agent's unit, read from each package (the kiosk's is checked installed, below) ----
cloud_unit() {  # cloud_unit ARCH DEB
    check "$1: the package has the cloud agent's unit: ExecStart=/usr/bin/inkkiosk cloud-agent … --if-configured, no /usr/local" \
        sh -c 'u=$(dpkg-deb --fsys-tarfile "$1" | tar -xOf - ./usr/lib/systemd/system/inkkiosk-cloud.service) || exit 1
               printf "%s\n" "$u" | grep -q "^ExecStart=/usr/bin/inkkiosk cloud-agent .*--if-configured" || { printf "%s\n" "$u"; exit 1; }
               ! printf "%s\n" "$u" | grep -v "^#" | grep /usr/local' sh "$2"
}
[[ -f $AMD64_DEB ]] && cloud_unit amd64 "$AMD64_DEB"
((HAVE_ARM64)) && [[ -f $ARM64_DEB ]] && cloud_unit arm64 "$ARM64_DEB"

# --- amd64: install, run, purge in a clean Debian 12 root ------------------------------------------
PRISTINE=$CACHE/bookworm-amd64-minbase.tar
ARCHIVES=$CACHE/archives-bookworm-amd64
mkdir -p "$ARCHIVES/partial"

# inroot COMMAND...: runs COMMAND in the root, in a mount namespace of its own: /proc, /sys, /dev
# from the host, /run a fresh tmpfs (as at boot; nothing the test's tools leave there counts),
# apt's downloads in the cache (kept between runs).
inroot() {
    unshare -m --propagation private /bin/sh -c '
        R=$1; A=$2; shift 2
        mount -t proc proc "$R/proc" && mount --rbind /sys "$R/sys" && mount --rbind /dev "$R/dev" &&
        mount -t tmpfs -o mode=0755 tmpfs "$R/run" && mount --bind "$A" "$R/var/cache/apt/archives" &&
        exec chroot "$R" "$@"' inroot "$ROOT" "$ARCHIVES" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
}
# apt_in_root ARGS...: apt-get in the root; on failure (package lists older than the mirror),
# the lists are updated and it runs again.
apt_in_root() {
    inroot apt-get -y -q "$@" || { inroot apt-get -q update && inroot apt-get -y -q "$@"; }
}
# snapshot: every path of the root with its type, mode and owner, and a checksum of every file
# under /etc and /var; not apt's and dpkg's own state, logs and caches.
snapshot() {
    (cd "$ROOT" && find . -xdev \( -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache/apt \
            -o -path ./var/cache/debconf -o -path ./var/log -o -path ./tmp -o -path ./proc -o -path ./sys \
            -o -path ./dev -o -path ./run \) -prune -o -printf '%y %m %u:%g %p\n' | LC_ALL=C sort -k4
     find etc var -xdev \( -path var/lib/dpkg -o -path var/lib/apt -o -path var/cache/apt \
            -o -path var/cache/debconf -o -path var/log \) -prune -o -type f -print0 \
         | LC_ALL=C sort -z | xargs -0 -r md5sum)
}
# systemd-analyze verify on a unit of the installed package, in the root: accepted, with no warning
# that names the package's files.
verify_unit() {
    local unit=$1 verify rc
    : >"$LOG"
    verify=$(inroot systemd-analyze verify "$unit" 2>&1)
    rc=$?
    printf '%s\n' "$verify" >"$LOG"
    if ((rc == 0)) && ! grep -q 'inkkiosk' <<<"$verify"; then
        pass "amd64: systemd-analyze verify $unit: accepted, no warnings"
    else
        fail "amd64: systemd-analyze verify $unit (exit status $rc)"
    fi
}


amd64_install_test() {
    local deps start apt_out
    if [[ ! -s $PRISTINE ]]; then
        start=$SECONDS
        : >"$LOG"
        if mmdebstrap --quiet --format=tar --variant=minbase --skip=cleanup/apt/lists bookworm "$PRISTINE.part" \
               "deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" \
               "deb $SECURITY bookworm-security main" >>"$LOG" 2>&1; then
            mv "$PRISTINE.part" "$PRISTINE"
            note "made the pristine Debian 12 root ${PRISTINE#"$HOME"/} ($((SECONDS - start)) s; kept for the next runs)"
        else
            rm -rf "$PRISTINE.part"
            fail "amd64: mmdebstrap bookworm (a clean Debian 12 root)"
            return
        fi
    fi
    # The root lives in memory when there is room (unpacking it and dpkg's writes are several
    # times faster than on a disk; it is thrown away anyway).
    local base=$CACHE
    if [[ -w /dev/shm ]] && (($(df -Pk /dev/shm | awk 'NR == 2 {print $4}') > 3 * 1024 * 1024)); then base=/dev/shm; fi
    WORK=$(mktemp -d "$base/inkkiosk-deb-test.XXXXXX")
    ROOT=$WORK/root
    export ROOT ARCHIVES
    export -f inroot
    mkdir "$ROOT"
    tar -C "$ROOT" -xf "$PRISTINE" || { fail "amd64: unpack $PRISTINE"; return; }
    cat /etc/resolv.conf >"$ROOT/etc/resolv.conf"
    # No daemon is started in the root by any package's maintainer scripts.
    printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
    chmod 0755 "$ROOT/usr/sbin/policy-rc.d"
    # No fsync after every file: nothing here has to survive a power cut.
    echo force-unsafe-io >"$ROOT/etc/dpkg/dpkg.cfg.d/unsafe-io"
    cp "$AMD64_DEB" "$ROOT/tmp/"
    local deb=/tmp/${AMD64_DEB##*/}

    # The dependencies first, as apt-get install ./deb would pull them, so that what the package
    # itself does (and leaves behind) can be told apart from what they do.
    deps="$(dpkg-deb -f "$AMD64_DEB" Depends), $(dpkg-deb -f "$AMD64_DEB" Recommends)"
    : >"$LOG"
    start=$SECONDS
    if apt_in_root satisfy "$deps" >>"$LOG" 2>&1; then
        pass "amd64: Depends and Recommends install from the registry into clean Debian 12 ($(grep -c '^Setting up ' "$LOG") packages, $((SECONDS - start)) s)"
    else
        fail "amd64: Depends and Recommends install from the registry into clean Debian 12"
        return
    fi
    snapshot >"$WORK/before"
    mkdir "$WORK/accounts"
    cp -p "$ROOT"/etc/{passwd,group,shadow,gshadow} "$WORK/accounts/"

    : >"$LOG"
    apt_out=$(apt_in_root install "$deb" 2>&1)
    local rc=$?
    printf '%s\n' "$apt_out" >"$LOG"
    if ((rc == 0)) && grep -q '^0 upgraded, 1 newly installed, 0 to remove' <<<"$apt_out" \
        && [[ $(inroot dpkg-query -W -f='${Status}' inkkiosk) == "install ok installed" ]]; then
        pass "amd64: apt-get install ./${AMD64_DEB##*/} installs it (and nothing more)"
    else
        fail "amd64: apt-get install ./${AMD64_DEB##*/}"
        return
    fi

    local upstream=${version%-*}
    check "amd64: inkkiosk --version prints $upstream" \
        bash -c '[ "$("$@")" = "'"$upstream"'" ]' bash inroot /usr/bin/inkkiosk --version
    # (On Debian 12 a library's packaged path may be /lib/... or /usr/lib/...: merged /usr.)
    check "amd64: every library inkkiosk loads is in a Debian package (no Swift runtime outside them)" \
        inroot sh -c 'if ldd /usr/bin/inkkiosk | grep "not found"; then exit 1; fi
            for l in $(ldd /usr/bin/inkkiosk | awk "/=> \\// {print \$3}"); do
                r=$(readlink -f "$l"); found=
                for c in "$l" "$r" "${l#/usr}" "${r#/usr}" "/usr$l" "/usr$r"; do
                    dpkg -S "$c" >/dev/null 2>&1 && { found=1; break; }
                done
                [ -n "$found" ] || { echo "$l ($r): in no package"; exit 1; }
            done'
    : >"$LOG"
    local devices
    devices=$(inroot /usr/bin/inkkiosk devices 2>&1)
    rc=$?
    printf '%s\n' "$devices" >"$LOG"
    if ((rc == 0)) && grep -q '^Input devices on seat0:' <<<"$devices" && grep -q '^Displays:' <<<"$devices"; then
        pass "amd64: inkkiosk devices opens the seat (libinput, loaded then, from Depends) and exits 0 with no devices ($(grep -c 'no ' <<<"$devices") \"none\" lines)"
    else
        fail "amd64: inkkiosk devices (exit status $rc)"
    fi
    check "amd64: inkkiosk check-config accepts /etc/inkkiosk/inkkiosk.toml and the classroom profile" \
        inroot sh -c 'for f in /etc/inkkiosk/inkkiosk.toml /usr/share/inkkiosk/profiles/classroom.toml; do
            inkkiosk check-config "$f" || exit 1; done'
    # Sealed by default: the signature profile names no key until one is made (inkkiosk keygen).
    check "amd64: the signature profile is refused until it names a key; with one made by inkkiosk keygen it passes" \
        inroot sh -c 'p=/usr/share/inkkiosk/profiles/signature.toml
            out=$(inkkiosk check-config "$p" 2>&1) && exit 1
            printf "%s\n" "$out" | grep -q "$p:[0-9]*: signature: .*inkkiosk keygen" || { printf "%s\n" "$out"; exit 1; }
            d=$(mktemp -d) && inkkiosk keygen "$d/signature.key" &&
            sed "s|^# encrypt_to = .*|encrypt_to = \"$d/signature.pub\"|" "$p" >"$d/signature.toml" &&
            inkkiosk check-config "$d/signature.toml"; rc=$?; rm -rf "$d"; exit $rc'
    # libcrypto is not linked (the kiosk loads it when it signs): the package's Depends must bring it.
    check "amd64: a device signing identity is made and read back (libcrypto, loaded when needed, from Depends)" \
        inroot sh -c 'd=$(mktemp -d) && inkkiosk keygen --signing "$d/device.pem" >/dev/null &&
            printf "mode = \"signature\"\n[signature]\nstore_plaintext = true\nsign_with = \"%s\"\n" "$d/device.pem" >"$d/s.toml" &&
            inkkiosk check-config "$d/s.toml" | grep -q "PAdES signature by /CN=inkkiosk"; rc=$?; rm -rf "$d"; exit $rc'

    local unit=/usr/lib/systemd/system/inkkiosk.service
    verify_unit "$unit"
    # A control: the same unit with a binary that is not there must be refused, or the check
    # above proves nothing.
    sed 's|^ExecStart=/usr/bin/inkkiosk |ExecStart=/usr/bin/inkkiosk-missing |' "$ROOT$unit" >"$ROOT/tmp/inkkiosk-broken.service"
    check "amd64: systemd-analyze verify refuses the unit with a missing ExecStart binary (control)" \
        bash -c '! "$@"' bash inroot systemd-analyze verify /tmp/inkkiosk-broken.service
    rm -f "$ROOT/tmp/inkkiosk-broken.service"
    check "amd64: the unit runs /usr/bin/inkkiosk and names no /usr/local path" \
        sh -c 'grep -q "^ExecStart=/usr/bin/inkkiosk run " "$1" && ! grep -v "^#" "$1" | grep -q /usr/local' sh "$ROOT$unit"
    check "amd64: the unit is enabled (systemctl is-enabled; multi-user.target.wants link)" \
        bash -c '[ "$("$@" systemctl is-enabled inkkiosk.service)" = enabled ] &&
               [ -L "$ROOT/etc/systemd/system/multi-user.target.wants/inkkiosk.service" ]' bash inroot
    verify_unit /usr/lib/systemd/system/inkkiosk-cloud.service
    # Enabled on every board: without [cloud] server or share it exits 0 at once.
    check "amd64: the cloud agent's unit is enabled (systemctl is-enabled; multi-user.target.wants link)" \
        bash -c '[ "$("$@" systemctl is-enabled inkkiosk-cloud.service)" = enabled ] &&
               [ -L "$ROOT/etc/systemd/system/multi-user.target.wants/inkkiosk-cloud.service" ]' bash inroot
    check "amd64: the unit is not running (no inkkiosk process in the root, no /run/inkkiosk)" \
        sh -c 'for p in $(pgrep -x inkkiosk); do
                   [ "$(readlink "/proc/$p/root")" != "$1" ] || { echo "pid $p runs in the root"; exit 1; }; done
               [ ! -e "$1/run/inkkiosk" ]' sh "$ROOT"
    check "amd64: user inkkiosk in groups input, video, tty; /var/lib/inkkiosk is its own, mode 0710" \
        inroot sh -c 'id -nG inkkiosk | tr " " "\n" | grep -qx input && id -nG inkkiosk | tr " " "\n" | grep -qx video &&
                      id -nG inkkiosk | tr " " "\n" | grep -qx tty &&
                      [ "$(stat -c "%U:%G %a" /var/lib/inkkiosk)" = "inkkiosk:inkkiosk 710" ]'
    check "amd64: conffiles: /etc/inkkiosk/inkkiosk.toml, /etc/libinput/local-overrides.quirks" \
        bash -c 'c=$("$@" dpkg-query -W -f="\${Conffiles}" inkkiosk); echo "$c"
               echo "$c" | grep -q "^ /etc/inkkiosk/inkkiosk.toml " && echo "$c" | grep -q "^ /etc/libinput/local-overrides.quirks "' bash inroot
    check "amd64: sysusers.d, tmpfiles.d, udev rule, sysctl.d, man page, copyright in place" \
        inroot sh -c 'for f in /usr/lib/sysusers.d/inkkiosk.conf /usr/lib/tmpfiles.d/inkkiosk.conf \
            /usr/lib/udev/rules.d/70-inkkiosk-resistive-touch.rules /usr/lib/sysctl.d/50-inkkiosk.conf \
            /usr/share/man/man1/inkkiosk.1.gz /usr/share/doc/inkkiosk/copyright /usr/share/doc/inkkiosk/changelog.Debian.gz; do
            [ -s "$f" ] || { echo "$f missing"; exit 1; }; done'
    # libinput reads its overrides from one path, compiled in: that must be where the quirk is, and
    # the quirk must parse together with the distribution's own quirks (a file with an error
    # makes libinput load no quirks at all).
    rm -rf "$WORK/quirks"
    mkdir "$WORK/quirks"
    cp "$ROOT"/usr/share/libinput/*.quirks "$WORK/quirks/"
    cp "$ROOT/etc/libinput/local-overrides.quirks" "$WORK/quirks/zz-local-overrides.quirks"
    check "amd64: libinput10 reads /etc/libinput/local-overrides.quirks, and the quirk validates (libinput quirks validate)" \
        sh -c 'grep -aq "/etc/libinput/local-overrides.quirks" "$1"/usr/lib/*/libinput.so.10 &&
               libinput quirks validate --data-dir "$2"' sh "$ROOT" "$WORK/quirks"

    # A kiosk that has run: a journal and an outbox, the user's (the purge must remove them too).
    inroot sh -c 'mkdir -p /var/lib/inkkiosk/outbox && echo ink >/var/lib/inkkiosk/journal.inkj &&
                  echo sig >/var/lib/inkkiosk/outbox/1.json && chown -R inkkiosk:inkkiosk /var/lib/inkkiosk'
    : >"$LOG"
    if inroot dpkg --purge inkkiosk >>"$LOG" 2>&1 && [[ -z $(inroot dpkg-query -W -f='${Status}' inkkiosk 2>/dev/null) ]]; then
        pass "amd64: dpkg --purge inkkiosk"
    else
        fail "amd64: dpkg --purge inkkiosk"
        return
    fi
    snapshot >"$WORK/after"
    # The user stays (postrm says why): the account files may differ, and only by it (below);
    # their backups (passwd- & co., systemd-sysusers') by anything.
    local accounts='[0-9a-f]{32}  etc/(passwd|group|shadow|gshadow)-?$'
    : >"$LOG"
    diff "$WORK/before" "$WORK/after" | grep '^[<>]' | grep -Ev "^[<>] $accounts" >"$LOG"
    if [[ ! -s $LOG ]]; then
        pass "amd64: after the purge the root is as before the install (paths, modes, owners, contents under /etc and /var)"
    else
        fail "amd64: the purge left $(grep -c '^>' "$LOG") new or changed paths against the root before the install"
    fi
    : >"$LOG"
    local f rc=0
    for f in passwd group shadow gshadow; do
        diff "$WORK/accounts/$f" <(awk -F: -v OFS=: -v members=$([[ $f == group || $f == gshadow ]] && echo 1 || echo 0) '
            $1 == "inkkiosk" { next }
            members && NF >= 4 { n = split($4, m, ","); $4 = ""
                for (i = 1; i <= n; i++) if (m[i] != "inkkiosk") $4 = $4 ($4 == "" ? "" : ",") m[i] }
            { print }' "$ROOT/etc/$f") >>"$LOG" || rc=1
    done
    if ((rc == 0)) && grep -q '^inkkiosk:' "$ROOT/etc/passwd"; then
        pass "amd64: the accounts differ from before only by the user inkkiosk (kept, as documented), its group and memberships"
    else
        fail "amd64: the account files differ by more than the inkkiosk user"
    fi
    check "amd64: after the purge: no /var/lib/inkkiosk, /etc/inkkiosk, enablement links or deb-systemd-helper state" \
        sh -c '[ ! -e "$1/var/lib/inkkiosk" ] && [ ! -e "$1/etc/inkkiosk" ] &&
               [ ! -e "$1/etc/systemd/system/multi-user.target.wants/inkkiosk.service" ] &&
               [ ! -e "$1/etc/systemd/system/multi-user.target.wants/inkkiosk-cloud.service" ] &&
               ! find "$1/var/lib/systemd" -name "*inkkiosk*" | grep .' sh "$ROOT"
}
if [[ -f $AMD64_DEB ]]; then
    amd64_install_test
else
    fail "amd64: no package to install"
fi

# --- arm64: do the dependencies resolve on Debian 13? ---------------------------------------------
arm64_resolve_test() {
    local A=$CACHE/apt-trixie-arm64 out
    mkdir -p "$A/etc/apt/apt.conf.d" "$A/etc/apt/preferences.d" "$A/var/lib/apt/lists/partial" \
        "$A/var/cache/apt/archives/partial" "$A/var/lib/dpkg"
    echo "deb [arch=arm64 signed-by=$KEYRING] $MIRROR trixie main" >"$A/etc/apt/sources.list"
    # An empty system: every dependency must come from trixie's lists.
    : >"$A/var/lib/dpkg/status"
    local APT=(apt-get -o Dir="$A" -o Dir::State::status="$A/var/lib/dpkg/status"
               -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o Debug::NoLocking=1
               -o Dir::Etc::trusted= -o Dir::Etc::trustedparts=/nonexistent)
    : >"$LOG"
    if ! "${APT[@]}" -q update >>"$LOG" 2>&1; then
        if ls "$A"/var/lib/apt/lists/*_Packages >/dev/null 2>&1; then
            note "arm64: apt-get update of trixie's lists failed; using the lists from $(date -r "$(ls "$A"/var/lib/apt/lists/*_Packages | head -1)" +%F)"
        else
            fail "arm64: trixie arm64 package lists (apt-get update)"
            return
        fi
    fi
    out=$("${APT[@]}" install --simulate "$ARM64_DEB" 2>&1)
    local rc=$?
    printf '%s\n' "$out" >"$LOG"
    if ((rc == 0)) && grep -q '^Inst inkkiosk ' <<<"$out"; then
        pass "arm64: Depends resolve against trixie arm64 ($(grep -c '^Inst ' <<<"$out") packages would install: apt-get install --simulate)"
    else
        fail "arm64: Depends resolve against trixie arm64 (apt-get install --simulate)"
        return
    fi
    local rec
    rec=$(dpkg-deb -f "$ARM64_DEB" Recommends)
    if grep -q '^Inst libpoppler-glib8' <<<"$out"; then
        pass "arm64: Recommends ($rec) resolve: $(grep -o '^Inst libpoppler-glib8[^ ]*' <<<"$out" | cut -d' ' -f2)"
    else
        fail "arm64: Recommends ($rec) resolve on trixie arm64"
    fi
}
if ((HAVE_ARM64)); then
    if [[ -f $ARM64_DEB ]]; then arm64_resolve_test; else fail "arm64: no package to resolve"; fi
else
    skip "arm64: dependency resolution on trixie (${ARM64_BIN#"$REPO"/} missing)"
fi

finish
