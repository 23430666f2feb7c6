# SPDX-License-Identifier: Apache-2.0
"""The appliance's data partition as the tests see it from the host (boot-test.py,
powercut-test.py): an ext4 image with the label /init looks for, and what is on it once the VM
is gone, read with e2fsprogs' own tools (e2fsck replays the file system's journal first, as the
next boot would; debugfs copies the files out), never through the kiosk's code.

Standard library only.
"""

import json
import hashlib
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib

LABEL = "inkdata"
MOUNT = "/var/lib/inkkiosk"          # where /init mounts it
JOURNAL_MAGIC = b"INKJOURNAL 1\n"


def tool(name):
    for d in ("/usr/sbin", "/sbin", "/usr/bin"):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    raise SystemExit(f"{name} is missing (apt-get install e2fsprogs)")


def make_image(path, size_mb=32, label=LABEL):
    """A fresh ext4 file system with the label, as `mkfs.ext4 -L inkdata` makes it on a board.
    Inode tables and the journal are zeroed now, not by the guest's ext4lazyinit thread in the
    background, which would compete with the kiosk for a throttled disk."""
    with open(path, "wb") as f:
        f.truncate(size_mb << 20)
    subprocess.run([tool("mkfs.ext4"), "-q", "-F", "-L", label, "-E", "lazy_itable_init=0,lazy_journal_init=0", path],
                   check=True)


def damage(image):
    """Damage the image as a failing card or a bad cut can: two files that claim the same block,
    and the superblock's "errors" state set (as the kernel sets it when it meets damage).
    `e2fsck -p` refuses to repair that alone (exit 4); `e2fsck -y` repairs it. Returns the
    names of the two files."""
    debugfs = tool("debugfs")
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("a file the test damages\n")
        f.flush()
        for name in ("damaged-a", "damaged-b"):
            subprocess.run([debugfs, "-w", "-R", f"write {f.name} {name}", image], check=True, capture_output=True)
    stat = subprocess.run([debugfs, "-R", "stat damaged-a", image], check=True, capture_output=True, text=True).stdout
    block = re.search(r"\(0\):(\d+)", stat)
    if not block:
        raise RuntimeError(f"cannot find the block of damaged-a in {image}")
    # i_block[5] is the first extent's start block (after the extent header and the extent's
    # logical block and length): damaged-b now claims damaged-a's block.
    for req in (f"sif damaged-b block[5] {block.group(1)}", "ssv state 2"):
        subprocess.run([debugfs, "-w", "-R", req, image], check=True, capture_output=True)
    return ["damaged-a", "damaged-b"]


def fsck(image):
    """e2fsck -fy on the image (replays the file system's journal, repairs): (exit status, output).
    0 clean; 1 changed something: after a cut that is the replay of the file system's journal
    ("recovering journal"), or repairs; 4 and up: errors left."""
    r = subprocess.run([tool("e2fsck"), "-fy", image], capture_output=True, text=True)
    return r.returncode, (r.stderr + r.stdout).strip()


def extract(image, dest):
    """Every file of the image into dest (debugfs rdump of /)."""
    os.makedirs(dest, exist_ok=True)
    r = subprocess.run([tool("debugfs"), "-R", f"rdump / {dest}", image], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"debugfs rdump of {image} failed: {r.stderr.strip()}")


def snapshot(image, keep_dir=None):
    """What a reader finds on the image now, without changing it: a copy is checked with
    e2fsck -fy and its files are copied out. Returns (fsck status, fsck output, directory);
    the directory is keep_dir or a temporary one the caller removes."""
    work = tempfile.mkdtemp(prefix="inkkiosk-disk-")
    copy = os.path.join(work, "copy.img")
    shutil.copyfile(image, copy)
    status, output = fsck(copy)
    dest = keep_dir or os.path.join(work, "files")
    if keep_dir and os.path.isdir(keep_dir):
        shutil.rmtree(keep_dir)
    extract(copy, dest)
    os.unlink(copy)
    if keep_dir:
        shutil.rmtree(work, ignore_errors=True)
    return status, output, dest


def read_journal(path):
    """The stroke journal's records, parsed here from the file format (docs/ARCHITECTURE.md: a header line,
    then per record a 4-byte little-endian length, a CRC-32 and a payload: JSON, and for a
    stroke a zero byte and its brush and samples in binary). Returns
    (ops in order, problem or None): a torn or corrupt tail is the problem, as the kiosk would
    cut it off."""
    data = open(path, "rb").read()
    if not data.startswith(JOURNAL_MAGIC):
        return [], "bad header" if data else "empty file"
    ops, at = [], len(JOURNAL_MAGIC)
    while at < len(data):
        if at + 8 > len(data):
            return ops, f"torn record header at byte {at}"
        length, crc = struct.unpack_from("<II", data, at)
        payload = data[at + 8:at + 8 + length]
        if len(payload) != length:
            return ops, f"torn record at byte {at}"
        if zlib.crc32(payload) != crc:
            return ops, f"checksum mismatch at byte {at}"
        try:
            ops.append(json.loads(payload.split(b"\0", 1)[0])["op"])
        except (ValueError, KeyError):
            return ops, f"unreadable record at byte {at}"
        at += 8 + length
    return ops, None


def strokes_in(ops):
    """Strokes a journal of signature mode holds (strokes only; an accepted signature is
    emptied from the file, not cleared in it)."""
    return sum(1 for op in ops if op == "stroke")


def check_outbox(outbox):
    """The outbox as a host sees it: a capture is a directory NAME/ holding NAME.json with the
    SHA-256 of its other three files (NAME.png, NAME.svg, NAME.inkml; encrypted, when the JSON
    says so, NAME.png.hpke, …, each starting with INKSEAL); `.requests` is the
    kiosk's record of requests. Returns (complete capture names, problems with capture
    directories, what is no complete capture: hidden `.NAME.partial/` directories a crash left,
    written as the kiosk's start-up log names them, and any other file)."""
    if not os.path.isdir(outbox):
        return [], [], []
    complete, problems, leftovers = [], [], []
    for name in sorted(os.listdir(outbox)):
        path = os.path.join(outbox, name)
        if name == ".requests":
            continue
        if name.startswith(".") or not os.path.isdir(path):
            leftovers.append(name + "/" if os.path.isdir(path) else name)
            continue
        try:
            meta = json.load(open(os.path.join(path, f"{name}.json")))
        except (OSError, ValueError) as e:
            problems.append(f"{name}/: no readable {name}.json ({e})")
            continue
        bad = []
        sealed = ".hpke" if meta.get("encryption") else ""
        for ext in ("png", "svg", "inkml"):
            f = f"{name}.{ext}{sealed}"
            want = meta.get("sha256", {}).get(f)
            p = os.path.join(path, f)
            if not os.path.isfile(p):
                bad.append(f"{f} missing")
                continue
            data = open(p, "rb").read()
            if want != hashlib.sha256(data).hexdigest():
                bad.append(f"{f} does not match its SHA-256")
            elif sealed and not data.startswith(b"INKSEAL\0"):
                bad.append(f"{f} is not an encrypted inkkiosk file")
        extra = sorted(set(os.listdir(path)) - {f"{name}.{e}{sealed}" for e in ("png", "svg", "inkml")} - {f"{name}.json"})
        if extra:
            bad.append(f"files of no capture: {extra}")
        if bad:
            problems.append(f"{name}/: " + ", ".join(bad))
        else:
            complete.append(name)
    return complete, problems, leftovers
