#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The shared libraries an ELF file of another architecture loads, found inside that
architecture's root file system (the arm64 appliance: scripts/appliance/build.sh --arch arm64).
`ldd` runs the program's own loader, which cannot run a foreign ELF; this reads what the loader
would read (the program interpreter, DT_NEEDED, DT_RUNPATH / DT_RPATH with $ORIGIN, the root's
/etc/ld.so.conf and its includes, then /lib and /usr/lib) with binutils' readelf and follows
every path through the root's own symlinks, never the host's.

    rootelf.py ROOT FILE...          FILE: paths inside ROOT (/usr/bin/udevadm) or on the host

Prints one line per library, the interpreter included, each once over all FILEs:
    IMAGE_PATH<TAB>HOST_PATH
IMAGE_PATH is where the loader looks for it (e.g. /lib/aarch64-linux-gnu/libc.so.6), HOST_PATH
the file that is really there (ROOT + its path with every symlink resolved inside ROOT).
    rootelf.py --resolve ROOT PATH   prints HOST_PATH of PATH inside ROOT, symlinks resolved
    rootelf.py --needed FILE         prints FILE's DT_NEEDED names, one a line
Exit status 1, naming the file and the library, when a library is found nowhere in ROOT.
Standard library only (and readelf).
"""

import glob
import os
import posixpath
import re
import subprocess
import sys


def resolve(root, path, hops=40):
    """PATH (absolute, inside ROOT) with every symlink followed inside ROOT: the host path of
    the file, or None when it does not exist there."""
    parts = [p for p in path.split("/") if p]
    real = []
    while parts:
        if hops <= 0:
            return None
        name = parts.pop(0)
        if name == ".":
            continue
        if name == "..":
            if real:
                real.pop()
            continue
        host = os.path.join(root, *real, name)
        if os.path.islink(host):
            hops -= 1
            target = os.readlink(host)
            if target.startswith("/"):
                real = []
            parts = [p for p in target.split("/") if p] + parts
            continue
        if not os.path.lexists(host):
            return None
        real.append(name)
    return os.path.join(root, *real)


def readelf(path):
    """(interpreter or None, [NEEDED], [RUNPATH or RPATH dirs]) of an ELF file."""
    out = subprocess.run(["readelf", "-W", "-l", "-d", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise ValueError(f"{path}: not an ELF file ({out.stderr.strip()})")
    interp = re.search(r"\[Requesting program interpreter: ([^\]]+)\]", out.stdout)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out.stdout)
    runpath = re.findall(r"\(RUNPATH\)\s+Library runpath: \[([^\]]*)\]", out.stdout)
    rpath = re.findall(r"\(RPATH\)\s+Library rpath: \[([^\]]*)\]", out.stdout)
    dirs = [d for entry in (runpath or rpath) for d in entry.split(":") if d]
    return (interp.group(1) if interp else None), needed, dirs


def conf_dirs(root, conf="/etc/ld.so.conf", seen=None):
    """The library directories of the root's ld.so.conf, includes followed."""
    seen = set() if seen is None else seen
    dirs = []
    host = resolve(root, conf)
    if host is None or host in seen:
        return dirs
    seen.add(host)
    for line in open(host, errors="replace"):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("include"):
            pattern = line.split(None, 1)[1]
            if not pattern.startswith("/"):
                pattern = posixpath.join(posixpath.dirname(conf), pattern)
            for inc in sorted(glob.glob(os.path.join(root, pattern.lstrip("/")))):
                dirs += conf_dirs(root, "/" + os.path.relpath(inc, root), seen)
        else:
            dirs.append(line)
    return dirs


def main(argv):
    if len(argv) == 3 and argv[0] == "--resolve":
        host = resolve(os.path.realpath(argv[1]), argv[2])
        if host is None:
            print(f"rootelf: {argv[2]} is not in {argv[1]}", file=sys.stderr)
            return 1
        print(host)
        return 0
    if len(argv) == 2 and argv[0] == "--needed":
        print("\n".join(readelf(argv[1])[1]))
        return 0
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.realpath(argv[0])
    system = conf_dirs(root) + ["/lib", "/usr/lib"]
    done = {}          # soname or interpreter path -> (image path, host path)
    order = []
    queue = []
    for f in argv[1:]:
        real = os.path.realpath(f)
        if real.startswith(root + "/") and os.path.isfile(real):
            host, image_dir = real, "/" + os.path.relpath(os.path.dirname(real), root)
        elif f.startswith("/") and resolve(root, f) is not None:
            host, image_dir = resolve(root, f), posixpath.dirname(f)
        elif os.path.isfile(f):      # a file of the host's (the kiosk's binary): it goes to /usr/bin
            host, image_dir = real, "/usr/bin"
        else:
            print(f"rootelf: {f} is neither a file nor in {root}", file=sys.stderr)
            return 1
        queue.append((f, host, image_dir))
    while queue:
        name, host, image_dir = queue.pop(0)
        interp, needed, dirs = readelf(host)
        if interp and interp not in done:
            ihost = resolve(root, interp)
            if ihost is None:
                print(f"rootelf: {name} wants the interpreter {interp}, which is not in {root}", file=sys.stderr)
                return 1
            done[interp] = (interp, ihost)
            order.append(interp)
        for lib in needed:
            if lib in done:
                continue
            found = None
            for d in [x.replace("$ORIGIN", image_dir).replace("${ORIGIN}", image_dir) for x in dirs] + system:
                cand = posixpath.normpath(posixpath.join(d, lib))
                h = resolve(root, cand)
                if h is not None and os.path.isfile(h):
                    found = (cand, h)
                    break
            if found is None:
                print(f"rootelf: {name} needs {lib}, which is nowhere in {root} "
                      f"(searched {', '.join(dirs + system)})", file=sys.stderr)
                return 1
            done[lib] = found
            order.append(lib)
            queue.append((lib, found[1], posixpath.dirname(found[0])))
    for key in order:
        print(f"{done[key][0]}\t{done[key][1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
