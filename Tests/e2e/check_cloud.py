# SPDX-License-Identifier: Apache-2.0
"""Host checks of the classroom on the school's cloud (cloud_session.py): the enrolment's QR code as
a phone reads it off the screen, the hand-in on the server as a PDF with the pen's ink (read back
with poppler's tools), exactly one file after the server was stopped mid-hand-in, a resubmission
replacing only its own file, the teacher's change not overwritten, the returned work shown, the
quiet minute's figures, and the remote wipe."""
import json
import os
import subprocess
import tempfile

from PIL import Image

from check_modes import red_banner

OWN = "tablet-07-Algebra.pdf"
OTHER = "tablet-08-Algebra.pdf"


def rendered(pdf):
    """Page 1 at 72 dpi (one pixel per PDF point), as poppler draws it; None if it cannot."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["pdftoppm", "-r", "72", "-f", "1", "-l", "1", "-png", pdf, os.path.join(tmp, "p")],
                             capture_output=True, text=True, timeout=120)
        pages = [n for n in os.listdir(tmp) if n.endswith(".png")]
        if out.returncode != 0 or not pages:
            return None
        return Image.open(os.path.join(tmp, pages[0])).convert("RGB")


def pen_ink(im, original, y):
    """How many points along the pen's line at page height y (x 100…480) are dark blue ink
    (RGBA.ink) where the teacher's worksheet had none."""
    count = 0
    for x in range(110, 471, 4):
        for dy in (-2, -1, 0, 1, 2):
            r, g, b = im.getpixel((x, y + dy))
            if b > r + 20 and b > g + 20 and r < 120 and original.getpixel((x, y + dy)) != (r, g, b):
                count += 1
                break
    return count


def cloud_checks(work, check, shot, ink_count, W, H):
    results_dir = os.path.join(work, "cloud-results")
    path = os.path.join(results_dir, "cloud.json")
    if not os.path.exists(path):
        check(False, "the cloud session left its results (cloud_session.py)", path)
        return
    r = json.load(open(path))
    if not r.get("done"):
        check(False, f"the cloud session ran to its end (it stopped after: {', '.join(r) or 'nothing'}; the guest's log says why)", path)
        return

    # Enrolment.
    im, p = shot("cloud-enrol")
    read = subprocess.run(["zbarimg", "--quiet", "--raw", p], capture_output=True, text=True, timeout=60).stdout.strip()
    check(read == r["loginURL"] and read.startswith(r["server"] + "/index.php/login/v2/flow/"),
          f"enrolment: a phone reads the login URL off the screen's QR code ({read!r})", p)
    check(r["credentialsMode"] == "0o600", f"enrolment: the app password is kept in a file of mode {r['credentialsMode']} (0600)")
    logs = "".join(open(os.path.join(work, n)).read() for n in os.listdir(work)
                   if n.startswith("cloud") and n.endswith(".log"))
    check(r["appPassword"] and r["appPassword"] not in logs, "the app password appears in no log of the kiosk or the agent")

    # The hand-out on the shelf, written on.
    im, p = shot("cloud-shelf")
    if im:
        check(ink_count(im, (40, 200, 700, 300)) > 150, "the hand-out is listed on the shelf", p)
    im, p = shot("cloud-worksheet")
    fit = r["fit"]
    if im:
        line = sum(1 for x in range(110, 471, 4)
                   if any((lambda c: c[2] > c[0] + 20 and c[0] < 120)(im.getpixel((int(fit["left"] + x * fit["scale"]),
                                                                                     int(fit["top"] + 300 * fit["scale"]) + dy)))
                          for dy in range(-2, 3)))
        check(line > 80, f"the pen's line on the hand-out, on screen ({line} of 91 points)", p)

    # Stopped mid-hand-in, then started: one file, once.
    check(list(r["whileStopped"]) == [OWN], f"while the server was stopped, the upload it took is there: {list(r['whileStopped'])}")
    check(list(r["afterFirst"]) == [OWN] and r["afterFirst"][OWN] == r["whileStopped"][OWN],
          f"after the restart exactly one file, the same one: {list(r['afterFirst'])}")
    stats = r["statsAfterFirst"]
    check(stats["put"] == 2 and stats["put_412"] == 1,
          f"the retry found its own upload there (PUTs {stats['put']}, refused as existing {stats['put_412']}) and sent nothing twice")
    original = rendered(os.path.join(results_dir, "hand-out.pdf"))
    first = rendered(os.path.join(results_dir, "first.pdf"))
    check(first is not None, "the hand-in on the server is a PDF poppler reads", os.path.join(results_dir, "first.pdf"))
    if first is not None and original is not None:
        n = pen_ink(first, original, 300)
        check(n > 80, f"the hand-in carries the pen's line over the worksheet ({n} of 91 points)", os.path.join(results_dir, "first.pdf"))
        check(pen_ink(first, original, 360) == 0, "and no ink where the pen did not write", os.path.join(results_dir, "first.pdf"))
    for name in ("cloud-waiting", "cloud-sent"):
        im, p = shot(name)
        if im:
            check(ink_count(im, (200, H - 100, W - 200, H - 10)) > 300, f"{name}: the hand-in's state on the screen", p)

    # The resubmission: its own file replaced, the other tablet's untouched.
    second = r["afterSecond"]
    check(sorted(second) == [OWN, OTHER] and second[OWN] != r["afterFirst"][OWN],
          "a resubmission replaced this tablet's own file")
    check(second.get(OTHER) == r["afterConflict"].get(OTHER) == _sha(os.path.join(results_dir, "other.pdf")),
          "another tablet's hand-in was never touched")
    sec = rendered(os.path.join(results_dir, "second.pdf"))
    if sec is not None and original is not None:
        check(pen_ink(sec, original, 300) > 80 and pen_ink(sec, original, 360) > 80,
              "the resubmission carries both lines", os.path.join(results_dir, "second.pdf"))

    # The teacher's change is not overwritten.
    teacher = _sha(os.path.join(results_dir, "teacher.pdf"))
    check(r["afterConflict"].get(OWN) == teacher, "the file the teacher changed on the server was not overwritten")
    im, p = shot("cloud-conflict")
    if im:
        check(red_banner(im), "the conflict is shown to the pupil, in red", p)

    # Returned work.
    check(r["returnedOnTablet"] == ["tablet-07-Algebra-marked.pdf"],
          f"only this tablet's returned work came to it: {r['returnedOnTablet']}")
    im, p = shot("cloud-returned")
    if im:
        check(ink_count(im, (0, 130, W, H)) > 300, "the returned work is shown", p)

    # The quiet minute.
    for who, q in r["quiet"].items():
        rate = q["wakeups"] / q["seconds"]
        print(f"quiet minute: {who}: {q['wakeups']} wake-ups in {q['seconds']:.1f} s ({rate:.2f}/s), {q['preempted']} preempted, "
              f"{q['cpuSeconds']:.2f} s of CPU, {q['threads']} threads")
        # A count, not a time: what the code asks the kernel for while nothing happens.
        check(rate <= 1.5, f"quiet minute: the {who} wakes at most about once a second ({rate:.2f} wake-ups/s)")

    # Remote wipe.
    w = r["afterWipe"]
    check(w["handOut"] == [] and w["returned"] == [] and not w["credentials"] and not w["ledger"] and w["stats"]["wiped"] == 1,
          f"remote wipe: the class's data is gone from the tablet and the server was told ({w})")


def _sha(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()
