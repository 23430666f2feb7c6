# SPDX-License-Identifier: Apache-2.0
# Shared by scripts/deb/build.sh and scripts/deb/test.sh (sourced, not run).

# deb_need PACKAGE...: installs the Debian packages that are missing (apt-get; `apt-get update`
# only when the install fails, e.g. on a machine whose package lists are missing or stale).
deb_need() {
    local missing=() pkg status sudo=()
    for pkg in "$@"; do
        status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
        [[ $status == "install ok installed" ]] || missing+=("$pkg")
    done
    ((${#missing[@]})) || return 0
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || { echo "deb: missing ${missing[*]}; not root and no sudo" >&2; return 1; }
        sudo=(sudo)
    fi
    echo "deb: installing ${missing[*]}" >&2
    local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -qq --no-install-recommends)
    if ! "${apt[@]}" install "${missing[@]}" >/dev/null; then
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -qq update
        "${apt[@]}" install "${missing[@]}" >/dev/null
    fi
}

# deb_elf_arch FILE: the Debian architecture of an ELF file (amd64, arm64), or nothing.
deb_elf_arch() {
    case $(LC_ALL=C readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p') in
        *X86-64*) echo amd64 ;;
        *AArch64*) echo arm64 ;;
    esac
}
