#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what inkkiosk needs to build, test and export on Debian 12 (qpdf judges the signed
# PDFs in the tests, pdfsig and pyHanko their PAdES signatures; libssl-dev is what the signature's
# CMS links, libcurl4-openssl-dev the agents' HTTP client, libexpat1-dev the WebDAV answers' parser, libqrencode-dev the enrolment's QR code, zbarimg reads it back in the tests, openssl makes the tests' X25519 key pairs, util-linux's setpriv and prlimit start the kiosk as another user and with a core limit); with --e2e also what the VM proof needs (QEMU, busybox, udev, python3-evdev,
# libinput's tools, Pillow for the checks, dosfstools and mtools for the USB stick's FAT image,
# the UEFI firmware the disk images boot under: ovmf on x86, qemu-efi-aarch64's AAVMF on arm64).
# Idempotent: prints nothing and touches nothing when everything is already there.
set -euo pipefail

PACKAGES=(pkg-config libcairo2-dev libinput-dev libudev-dev libdrm-dev libssl-dev zlib1g-dev libseccomp-dev libcurl4-openssl-dev
          libexpat1-dev libqrencode-dev zbar-tools librsvg2-bin poppler-utils libpoppler-glib8 fonts-dejavu-core python3 python3-venv qpdf
          openssl util-linux)
if [[ ${1:-} == --e2e ]]; then
    PACKAGES+=(qemu-system-x86 busybox-static udev kmod cpio e2fsprogs libinput-tools
               python3-evdev python3-libevdev python3-yaml python3-pil dosfstools mtools ovmf qemu-efi-aarch64)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if (( ${#missing[@]} > 0 )); then
    if [[ $(id -u) -eq 0 ]]; then
        SUDO=()
    elif command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "install-deps: missing packages: ${missing[*]}" >&2
        echo "install-deps: not root and no sudo; install them as root and run again." >&2
        exit 1
    fi
    echo "install-deps: installing ${missing[*]}"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# pyHanko (PyPI, not packaged by Debian 12), the second independent validator of the PAdES
# signatures in the tests: in a venv of its own in the cache, never into the system's Python
# (Debian 12 refuses pip there, PEP 668). The tests find it at $INKKIOSK_CACHE/pyhanko/bin/python.
# Without network it is not fatal here (a build needs no pyHanko); the PAdES tests then fail, saying so.
# shellcheck source=lib/cache.sh
source "$(dirname "$0")/lib/cache.sh"
PYHANKO_VENV=$INKKIOSK_CACHE/pyhanko
if ! "$PYHANKO_VENV/bin/python" -c 'import pyhanko.sign.validation, pyhanko_certvalidator' >/dev/null 2>&1; then
    echo "install-deps: installing pyHanko (PyPI) into $PYHANKO_VENV"
    rm -rf "$PYHANKO_VENV"
    if ! { /usr/bin/python3 -m venv "$PYHANKO_VENV" &&
           "$PYHANKO_VENV/bin/python" -m pip install -q 'pyhanko>=0.20' pyhanko-certvalidator; }; then
        rm -rf "$PYHANKO_VENV"
        echo "install-deps: warning: pyHanko could not be installed (no network?): the PAdES tests will fail until it is" >&2
    fi
fi

# WsgiDAV and cheroot (PyPI), the school's cloud in the classroom tests (scripts/classroom/school-cloud.py,
# which makes the venv itself when it is missing; made here so that parallel tests never race to make it).
if ! python3 "$(dirname "$0")/classroom/school-cloud.py" venv >/dev/null; then
    echo "install-deps: warning: WsgiDAV could not be installed (no network?): the classroom tests will fail until it is" >&2
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "install-deps: error: 'swift' is not on PATH." >&2
    echo "install-deps: a Swift 6 toolchain is needed (https://www.swift.org/install/linux/);" >&2
    echo "install-deps: install it and put its usr/bin on PATH." >&2
    exit 1
fi
