# SPDX-License-Identifier: Apache-2.0
"""The two products in the VM: a signature kiosk driven by a host through the local API (with
curl, from outside the kiosk's process), and a classroom tablet with pages that survive kill -9.
scenario.py imports this; check_modes.py checks what it left behind."""
import json
import os
import re
import signal
import subprocess
import time

from scenario import WORK, ROOT, Kiosk, say, shot, line
from worksheet_pdf import worksheet_pdf

W, H = 1280, 800
PX_PER_MM = 4.0   # the sessions' configs set dpi = 101.6, so the layout below is exact
API = "http://127.0.0.1:7300"


def mm(v):
    return round(v * PX_PER_MM)


def label_width(text, font):
    return len(text) * font * 0.62


def button_width(text, target, font):
    return max(target, round(label_width(text, font) + target * 0.6))


def signature_buttons(button_mm, hosted):
    """Centres of the signature screen's buttons (SignatureScreen.controls), normalised."""
    target, gap = mm(button_mm), mm(2)
    font = round(target * 0.36)
    bar_y = H - (target + 2 * gap)
    labels = (["Cancel"] if hosted else []) + ["Clear", "Accept"]
    x, out = W, {}
    for label in reversed(labels):
        w = max(button_width(label, target, font), mm(32))
        x -= gap * 2 + w
        out[label] = ((x + w / 2) / W, (bar_y + gap + target / 2) / H)
    return out


def classroom_buttons(page_label="1 / 1", hand_in=False):
    """Centres of the classroom toolbar's buttons (ClassroomScreen.layout), normalised; with
    hand_in, the school cloud's Hand in button too. "bottom": the toolbar's lower edge in pixels."""
    target, gap = mm(12), mm(2)
    font = round(target * 0.36)
    cx, cy, out = gap, gap, {}

    def put(name, w):
        nonlocal cx, cy
        if cx + w > W - gap and cx > gap:
            cx, cy = gap, cy + target + gap
        out[name] = ((cx + w / 2) / W, (cy + target / 2) / H)
        cx += w + gap

    for name in ("Pen", "Calligraphy", "Highlighter", "Eraser"):
        put(name, button_width(name, target, font))
    cx += gap * 2
    put("colour", target)
    for i in range(3):
        put(f"width{i}", target)
    cx += gap * 2
    for name in ("Undo", "Redo", "Clear"):
        put(name, button_width(name, target, font))
    cx += gap * 2
    put("previous", target)
    put("page", button_width(page_label, target, font))
    put("next", target)
    put("New page", button_width("New page", target, font))
    cx += gap * 2
    put("Save", button_width("Save", target, font))
    if hand_in:
        put("Hand in", button_width("Hand in", target, font))
    put("Worksheets", button_width("Worksheets", target, font))
    out["bottom"] = cy + target + gap
    return out


def signature_keys(binary):
    """The key pair the signature sessions' captures are encrypted to, made once as a host makes
    it (`inkkiosk keygen`): the kiosks get the public key, the host side decrypts with the
    private one. Returns (private, public)."""
    key, pub = os.path.join(WORK, "signature.key"), os.path.join(WORK, "signature.pub")
    if not os.path.exists(key):
        made = subprocess.run([binary, "keygen", key], capture_output=True, text=True, timeout=60)
        say(f"inkkiosk keygen: {made.returncode} {made.stdout.strip()} {made.stderr.strip()}")
    return key, pub


def session_config(profile, name, extra="", encrypt_to=None):
    """A profile with a fixed dpi (so button positions are known) and work-directory paths; the
    signature profile, which names no key as shipped, gets `encrypt_to`."""
    text = open(os.path.join(ROOT, "config", profile)).read()
    text = text.replace("[ui]\n", "[ui]\ndpi = 101.6\n", 1)
    text = text.replace("/var/lib/inkkiosk", os.path.join(WORK, name))
    if encrypt_to:
        text = text.replace("[signature]\n", f'[signature]\nencrypt_to = "{encrypt_to}"\n', 1)
    text += extra
    path = os.path.join(WORK, f"{name}.toml")
    with open(path, "w") as f:
        f.write(text)
    os.makedirs(os.path.join(WORK, name), exist_ok=True)
    return path


def api_auth(home="sig", content_type="application/json"):
    """The headers a host sends: the bearer token the kiosk made at its first start (next to
    its outbox, WORK/HOME/api.token), and the body's type."""
    path = os.path.join(WORK, home, "api.token")
    token = open(path).read().strip() if os.path.exists(path) else "missing"
    return ["-H", f"Authorization: Bearer {token}", "-H", f"Content-Type: {content_type}"]


def curl(name, *args, home="sig", content_type="application/json"):
    """A real HTTP client against the kiosk; the response goes to WORK/api-NAME.json."""
    out = subprocess.run(["curl", "-sS", "--max-time", "40", "-w", "\n%{http_code}", *api_auth(home, content_type), *args],
                         capture_output=True, text=True, timeout=60)
    body, _, code = out.stdout.rpartition("\n")
    try:
        parsed = json.loads(body) if body.strip() else None
    except ValueError:
        parsed = None
    code = int(code) if code.isdigit() else 0
    with open(os.path.join(WORK, f"api-{name}.json"), "w") as f:
        json.dump({"code": code, "body": parsed, "raw": body, "error": out.stderr}, f)
    say(f"curl {name}: HTTP {code} {body.strip()[:300]}")
    return code, parsed


def signature_session(binary, pen, touch):
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
    key, pub = signature_keys(binary)
    config = session_config("signature.toml", "sig", "", encrypt_to=pub)
    # The profile ships with the API off; the host-driven kiosk turns it on with a flag.
    kiosk = Kiosk(binary, "session5", "--config", config, "--api", "127.0.0.1:7300")
    buttons = signature_buttons(14, hosted=True)
    shot("signature-idle")
    frames = kiosk.wait_idle()
    code, status = curl("start", "-X", "POST", f"{API}/signatures",
                        "-d", '{"prompt": "Sign for parcel 4711", "timeout": 120}')
    ident = (status or {}).get("id", "none")
    with open(os.path.join(WORK, "api-id.txt"), "w") as f:
        f.write(ident)
    curl("busy", "-X", "POST", f"{API}/signatures", "-d", "{}")
    shot("signature-request", frames_above=frames)   # the request's prompt is drawn
    # Accept before signing is refused.
    touch.tap(*buttons["Accept"])
    shot("signature-refused")
    # The customer signs with the pen, and presses Accept with a finger.
    time.sleep(0.1)   # a hand: at least 100 ms between a tap and the next stroke
    pen.stroke([(0.25 + 0.5 * i / 60, 0.55 - 0.12 * abs(((i % 20) - 10) / 10)) for i in range(61)], pressure=0.6)
    pen.out()
    shot("signature-signed")
    time.sleep(0.1)
    touch.tap(*buttons["Accept"])
    curl("accepted", f"{API}/signatures/{ident}?wait=20")
    # The host may also fetch the files through the API (it need not share the kiosk's user):
    # encrypted, as stored.
    subprocess.run(["curl", "-sS", "--max-time", "20", *api_auth(), "-o", os.path.join(WORK, "api-download.png.hpke"),
                    f"{API}/signatures/{ident}/png"], check=False, timeout=60)
    # The host opens the capture with its private key (check_modes.py checks the plain files;
    # make demo shows them).
    plain = os.path.join(WORK, "sig-plain")
    opened = subprocess.run([binary, "decrypt", "--key", key, "--out", plain, os.path.join(WORK, "sig", "outbox", ident)],
                            capture_output=True, text=True, timeout=60)
    with open(os.path.join(WORK, "sig-decrypt.json"), "w") as f:
        json.dump({"status": opened.returncode, "stdout": opened.stdout, "stderr": opened.stderr}, f)
    say(f"inkkiosk decrypt: {opened.returncode} {opened.stdout.strip()} {opened.stderr.strip()}")
    shot("signature-accepted")
    # A request nobody signs times out and is cleared.
    frames = kiosk.wait_idle()
    code, status = curl("start2", "-X", "POST", f"{API}/signatures", "-d", '{"timeout": 3}')
    kiosk.wait_idle(frames_above=frames, what="the second request on screen")
    pen.stroke(line(0.45, 0.3, 0.6, 30), pressure=0.6)
    pen.out()
    frames = kiosk.wait_idle(what="the stroke before the time-out")
    curl("timedout", f"{API}/signatures/{(status or {}).get('id', 'none')}?wait=20")
    shot("signature-timedout", frames_above=frames)   # the time-out cleared the ink
    # The host cancels a request.
    code, status = curl("start3", "-X", "POST", f"{API}/signatures", "-d", "{}")
    curl("cancelled", "-X", "DELETE", f"{API}/signatures/{(status or {}).get('id', 'none')}")
    curl("badrequest", "-X", "POST", f"{API}/signatures", "-d", '{"timeout": -5}')
    kiosk.stop()


def classroom_session(binary, pen, touch):
    config = session_config("classroom.toml", "class")
    kiosk = Kiosk(binary, "session6", "--config", config)
    b = classroom_buttons()
    hand = 0.1   # a hand needs at least 100 ms between a tap and the next stroke
    pen.stroke(line(0.5, 0.2, 0.8, 40), pressure=0.6)
    pen.out()
    time.sleep(hand)
    touch.tap(*b["Highlighter"])
    time.sleep(hand)
    pen.stroke(line(0.6, 0.2, 0.8, 40), pressure=0.6)
    pen.out()
    time.sleep(hand)
    touch.tap(*b["Pen"])
    shot("classroom-page1")
    touch.tap(*b["New page"])
    time.sleep(hand)
    pen.stroke(line(0.7, 0.2, 0.8, 40), pressure=0.6)
    pen.out()
    shot("classroom-page2")
    kiosk.killed()   # kill -9: no clean-up; the journal has every finished stroke
    say("session6: killed; restarting on the same journal")
    kiosk = Kiosk(binary, "session6-restart", "--config", config)
    shot("classroom-restored")
    b = classroom_buttons("2 / 2")
    touch.tap(*b["previous"])
    shot("classroom-restored-page1")
    touch.tap(*b["Save"])
    kiosk.wait_idle(what="the save")
    touch.tap(*b["Clear"])
    shot("classroom-confirm")
    kiosk.stop()


def disk_full_session(binary, pen):
    """The journal's disk fills up: the kiosk keeps drawing and says so on screen; once there
    is room again the kept ink is saved and the warning goes; a kill -9 then loses nothing."""
    full = "/tmp/inkkiosk-full"   # the guest's own /tmp: a tiny tmpfs of its own here
    os.makedirs(full, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full], check=True)
    journal = os.path.join(full, "journal.inkj")
    kiosk = Kiosk(binary, "session8", "--journal", journal)
    filler = os.path.join(full, "filler")
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=4k"], capture_output=True)
    # 150 samples: its journal record spans more than the page the journal file already has.
    pen.stroke(line(0.3, 0.2, 0.8, 150), pressure=0.6)
    pen.out()
    shot("disk-full", accept=lambda status: "cannot save" in status)
    os.remove(filler)
    pen.stroke(line(0.45, 0.2, 0.8, 30), pressure=0.6)
    pen.out()
    shot("disk-freed", accept=lambda status: "cannot save" not in status and "; 0 edits to save" in status)
    kiosk.killed()
    kiosk = Kiosk(binary, "session8-restart", "--journal", journal)
    shot("disk-restored")
    kiosk.stop()
    subprocess.run(["umount", full], check=False)


STICK = "/run/media/usb"   # /run is the guest's own tmpfs (the host root is read-only)


def mount_stick():
    """The USB stick (e2e.sh: FAT, two worksheets) as a board's automounter leaves it: read-only
    at /run/media/usb. The USB bus is enumerated in the background, so its disk may come late."""
    deadline = time.monotonic() + 30
    while not os.path.exists("/dev/sda"):
        if time.monotonic() > deadline:
            raise SystemExit("scenario: the USB stick (/dev/sda) did not appear in 30 s")
        time.sleep(0.05)
    os.makedirs(STICK, exist_ok=True)
    subprocess.run(["mount", "-t", "vfat", "-o", "ro", "/dev/sda", STICK], check=True)


def pull_stick():
    """The stick pulled out while still mounted, as a hand does it: QEMU removes the USB device."""
    subprocess.run([os.path.join(ROOT, "scripts", "vm", "vm-unplug"), "stick"], check=True)
    deadline = time.monotonic() + 30
    while os.path.exists("/sys/block/sda"):
        if time.monotonic() > deadline:
            raise SystemExit("scenario: the USB stick's disk was still there 30 s after it was pulled")
        time.sleep(0.05)


# What the PDF helper's cage must stop, each tried by `inkkiosk pdf-helper --try` on the guest's kernel
# (check_worksheets.py judges them): the first three kill it (SIGSYS), the others are refused.
CAGE_PROBES = ["socket", "exec", "signal-parent", "read-outside", "write-file", "map-executable", "allocate",
               "fcntl-setsig", "fcntl-setown", "fcntl-async", "ioctl-async", "file-size", "grow-buffer", "shrink-buffer",
               "user", "no-landlock"]


def helper_of(kiosk, other_than=None, timeout=60):
    """The pid of the kiosk's PDF helper (its child `inkkiosk pdf-helper`), once one runs and the
    kiosk has said it started: a helper still starting (after the last one crashed) is not yet
    the one that answers pages, and a fault sent to it then would be a failed start instead."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = open(kiosk.log_path).read()
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
                command = open(f"/proc/{entry}/cmdline", "rb").read().split(b"\0")
            except OSError:
                continue
            if (int(fields[1]) == kiosk.proc.pid and fields[0] != "Z" and b"pdf-helper" in command
                    and int(entry) != other_than and f"pdf helper {entry} started" in log):
                return int(entry)
        time.sleep(0.01)
    raise SystemExit(f"scenario: {kiosk.session}: no PDF helper under the kiosk (pid {kiosk.proc.pid}) in {timeout} s")


def sheets_thread_asking(kiosk):
    """True while the kiosk's worksheet thread ("sheets") waits in poll() for the helper's answer."""
    task = f"/proc/{kiosk.proc.pid}/task"
    for tid in os.listdir(task):
        try:
            if open(f"{task}/{tid}/comm").read().strip() == "sheets":
                return "poll" in open(f"{task}/{tid}/wchan").read()
        except OSError:
            continue
    return False


def fault_in_helper(kiosk, what, turn_page, sig):
    """Stops the kiosk's PDF helper, turns the page (the kiosk asks the helper for a page's
    paper), and once the kiosk's worksheet thread waits for the answer, sends `sig` (None: leaves
    it stopped, as a helper looping on a page). Returns the helper's pid."""
    helper = helper_of(kiosk)
    os.kill(helper, signal.SIGSTOP)
    turn_page()
    deadline = time.monotonic() + 30
    while not sheets_thread_asking(kiosk):
        if time.monotonic() > deadline:
            raise SystemExit(f"scenario: {kiosk.session}: the kiosk never asked its PDF helper for a page ({what})")
        time.sleep(0.005)
    if sig is not None:
        os.kill(helper, sig)
        os.kill(helper, signal.SIGCONT)
    say(f"{kiosk.session}: {what}: helper {helper} {'sent ' + signal.Signals(sig).name if sig else 'left stopped'} "
        "while the kiosk waited for a page from it")
    return helper


def worksheet_session(binary, pen, touch):
    """A worksheet in the classroom: the list (with a 1000-page and a 50 MB PDF refused on
    screen, and the USB stick's worksheets), a 25 MB scanned worksheet loaded from the stick
    while the pen writes, then its PDF helper crashed and stuck while the kiosk goes on, the
    typed one opened, the stick pulled out, two pages written, kill -9, back with its pages
    and ink, then saved as an annotated PDF."""
    from scenario import signature_path
    mount_stick()
    config = session_config("classroom.toml", "sheet", f'worksheets_usb = "{STICK}"\n')
    # For the stuck helper: stopped after 10 s on one page (a scanned page takes about 1 s in this
    # emulated guest; the default, 20 s, would only make the proof longer).
    stuck_config = os.path.join(WORK, "sheet-stuck.toml")
    with open(stuck_config, "w") as f:
        f.write(open(config).read() + "\n[limits]\nworksheet_stuck_seconds = 10\n")
    folder = os.path.join(WORK, "sheet", "worksheets")
    os.makedirs(folder, exist_ok=True)
    worksheet_pdf(os.path.join(folder, "a-thousand-pages.pdf"), pages=1000, title="Every exercise of the year")
    with open(os.path.join(folder, "b-scanned-book.pdf"), "wb") as f:   # 50 MB: holes cost the disk nothing
        f.write(b"%PDF-1.4\n")
        f.truncate(50 << 20)
    hand = 0.1
    # The rows (ShelfPanel): below the toolbar (121 px) and the list's margin and title bar.
    top, target, gap = 121, mm(12), mm(2)
    row_h = round(target * 1.6)

    def row(k):
        return 0.5, (top + 2 * gap + target + 2 * gap + row_h / 2 + k * (row_h + gap)) / H

    def write_signatures(rounds):
        for _ in range(rounds):
            for points in signature_path():
                pen.stroke(points, pressure=0.5)
        pen.out()

    # The ink alone, for comparison: the same signatures, no PDF anywhere.
    kiosk = Kiosk(binary, "session9-ink", "--config", config)
    write_signatures(3)
    kiosk.wait_idle(what="the signatures")
    kiosk.stop()
    # The ink while the scanned worksheet (25 MB, 18 pages) is copied from the stick, hashed and
    # its first page drawn, all on poppler's thread.
    kiosk = Kiosk(binary, "session9-load", "--config", config)
    b = classroom_buttons()
    touch.tap(*b["Worksheets"])
    kiosk.wait_log(lambda t: "worksheets: 4 listed" in t, "the worksheets listed")
    frames = kiosk.wait_idle(what="the list")
    shot("worksheet-list", frames_above=frames - 1)
    time.sleep(hand)
    touch.tap(*row(0))   # the 1000-page one: refused, on screen
    shot("worksheet-refused", accept=lambda status: True)
    time.sleep(hand)
    touch.tap(*row(3))
    started, rounds = time.monotonic(), 0
    while rounds < 1 or ("scanned-atlas.pdf (" not in open(kiosk.log_path).read() and rounds < 40):
        write_signatures(1)
        rounds += 1
    loaded = time.monotonic() - started
    kiosk.wait_log(lambda t: "scanned-atlas.pdf opened" in t, "the scanned worksheet opened")
    shot("worksheet-atlas", accept=lambda status: "page 1 on screen" in status)
    kiosk.stop()
    with open(os.path.join(WORK, "sheet-load.json"), "w") as f:
        json.dump({"seconds": loaded, "rounds": rounds}, f)
    say(f"session9-load: the scanned worksheet loaded in {loaded:.1f} s while {rounds} rounds of signatures were written")

    # poppler runs in a helper process: a crash there (SIGSEGV, as a poppler bug on a crafted PDF
    # ends it) and a helper stuck on a page (stopped, as one looping) cost the helper, not the
    # kiosk: same kiosk PID, the page refused with a message, a new helper for the next page.
    kiosk = Kiosk(binary, "session9", "--config", stuck_config)
    kiosk.wait_log(lambda t: "scanned-atlas.pdf opened again" in t, "the scanned worksheet opened again")
    kiosk_pid = kiosk.proc.pid
    b18 = classroom_buttons("1 / 18")
    crashed = fault_in_helper(kiosk, "crash", lambda: touch.tap(*b18["next"]), signal.SIGSEGV)
    text = kiosk.wait_log(lambda t: re.search(r"scanned-atlas\.pdf: the PDF reader crashed \(SIGSEGV\) on page \d+", t),
                          "the helper's crash said")
    shot("worksheet-helper-crashed", accept=lambda status: "page 2" in status)
    time.sleep(hand)
    touch.tap(*classroom_buttons("2 / 18")["next"])
    kiosk.wait_idle(what="page 3", accept=lambda status: "page 3" in status)
    started = time.monotonic()
    stuck = fault_in_helper(kiosk, "stuck", lambda: touch.tap(*classroom_buttons("3 / 18")["next"]), None)
    kiosk.wait_log(lambda t: f"pdf helper {stuck} killed: no answer" in t, "the stuck helper killed")
    stuck_seconds = time.monotonic() - started
    shot("worksheet-helper-stuck", accept=lambda status: "page 4" in status)
    time.sleep(hand)
    touch.tap(*classroom_buttons("4 / 18")["next"])
    after = helper_of(kiosk, other_than=stuck)
    kiosk.wait_idle(what="page 5", accept=lambda status: "page 5" in status)
    with open(os.path.join(WORK, "sheet-helper.json"), "w") as f:
        json.dump({"kioskPid": kiosk_pid, "kioskPidAfter": kiosk.proc.pid, "kioskAlive": kiosk.proc.poll() is None,
                   "crashedHelper": crashed, "stuckHelper": stuck, "helperAfter": after,
                   "stuckSeconds": stuck_seconds}, f)
    say(f"session9: kiosk {kiosk_pid} still running; helpers {crashed} (SIGSEGV), {stuck} (stuck, killed after "
        f"{stuck_seconds:.1f} s), now {after}")
    # What the helper's cage refuses, tried on this kernel by the same binary.
    probes = {}
    for probe in CAGE_PROBES:
        r = subprocess.run([binary, "pdf-helper", "--try", probe], capture_output=True, text=True, timeout=60)
        probes[probe] = {"status": r.returncode, "output": (r.stdout + r.stderr).strip()}
    # A kiosk not run as root (the systemd unit's user) on a kernel without Landlock: its helper refuses to run.
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary, "pdf-helper", "--try", "no-landlock"],
                       capture_output=True, text=True, timeout=60)
    probes["no-landlock-not-root"] = {"status": r.returncode, "output": (r.stdout + r.stderr).strip()}
    with open(os.path.join(WORK, "sheet-cage.json"), "w") as f:
        json.dump(probes, f)
    touch.tap(*classroom_buttons("5 / 18")["Worksheets"])
    kiosk.wait_log(lambda t: "worksheets: 4 listed" in t, "the worksheets listed")
    kiosk.wait_idle(what="the list")
    time.sleep(hand)
    touch.tap(*row(2))
    text = kiosk.wait_log(lambda t: "fractions.pdf opened" in t, "the worksheet opened")
    area = re.search(r"--page-area (\d+)x(\d+)\+(\d+)\+(\d+)", text)
    aw, ah, ax, ay = (int(v) for v in area.groups())
    scale = min(aw / 595, ah / 842)
    left = ax + (aw - 595 * scale) / 2
    top_ = ay + (ah - 842 * scale) / 2
    with open(os.path.join(WORK, "sheet-fit.json"), "w") as f:
        json.dump({"scale": scale, "left": left, "top": top_}, f)

    def on_page(x, y):
        return (left + x * scale) / W, (top_ + y * scale) / H

    shot("worksheet-page1-blank", accept=lambda status: "page 1 on screen" in status)
    # The teacher takes the stick to the next tablet; this one's worksheet was copied to it.
    pull_stick()
    say("session9: the USB stick was pulled out")
    time.sleep(hand)
    pen.stroke([on_page(120 + 350 * i / 40, 420) for i in range(41)], pressure=0.6)
    pen.out()
    shot("worksheet-page1", accept=lambda status: "page 1 on screen" in status)
    time.sleep(hand)
    touch.tap(*b["next"])
    time.sleep(hand)
    pen.stroke([on_page(120 + 350 * i / 40, 460) for i in range(41)], pressure=0.6)
    pen.out()
    shot("worksheet-page2", accept=lambda status: "page 2 on screen" in status and "; 0 edits to save" in status)
    kiosk.killed()
    say("session9: killed; restarting on the same journal")
    kiosk = Kiosk(binary, "session9-restart", "--config", config)
    kiosk.wait_log(lambda t: "opened again" in t, "the worksheet opened again")
    shot("worksheet-restored", accept=lambda status: "page 2 on screen" in status)
    b = classroom_buttons("2 / 2")
    touch.tap(*b["Save"])
    kiosk.wait_log(lambda t: "saved 2 pages" in t, "the save")
    kiosk.stop()
