# SPDX-License-Identifier: Apache-2.0
"""The classroom on the school's cloud, on the real kernel: the kiosk and `inkkiosk cloud-agent`
side by side in the guest, as on a tablet; the school's server (WsgiDAV with TLS and a test CA,
scripts/classroom/school-cloud.py supervise) on the host, reached as 10.0.2.2 through QEMU's user
network. The teacher's part (files in the class folder) is played by writing the server's files,
which the guest sees in the shared work directory; the server is stopped and started through the
supervisor's control files.

The tablet enrols by the QR code, receives a hand-out, the uinput pen writes on it, and it is
handed in while the server is stopped before its answer; then handed in again beside another
tablet's work, then once more after the teacher changed it on the server; the teacher's marked
copy comes back. Then a quiet minute is measured, and the server asks for a remote wipe.

scenario.py imports this; check_cloud.py checks what it left behind (WORK/cloud-results/).
"""
import hashlib
import json
import os
import re
import signal
import subprocess
import time

from scenario import ROOT, WORK, Kiosk, say, shot
from modes import W, H, classroom_buttons, mm
from worksheet_pdf import worksheet_pdf

SERVER = os.path.join(WORK, "cloud")
CONTROL = os.path.join(WORK, "cloud-ctl")
RESULTS = os.path.join(WORK, "cloud-results")
CLASS = os.path.join(SERVER, "files", "home", "Class 7b")
# The tablet's /var/lib/inkkiosk: on the throttled data disk (ext4, 20 writes/s, like a cheap SD
# card), not the shared work directory, where inotify sees nothing (the kiosk and the agent wake
# on each other's files by inotify).
DATA_DISK, MOUNT = "/dev/vda", "/run/cloudtab"
TABLET = os.path.join(MOUNT, "cloudtab")
TITLE = "Algebra"
OWN = f"tablet-07-{TITLE}.pdf"
results = {}


def wait_for(condition, what, timeout=120):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"scenario: cloud: no {what} after {timeout} s")
        time.sleep(0.1)


class SchoolServer:
    """The host's supervisor of the school's server, asked through files (the guest cannot reach
    the host's loopback, where its test endpoints are)."""

    def __init__(self):
        self.asked = 0
        path = os.path.join(SERVER, "server.json")
        self.info = wait_for(lambda: os.path.exists(path) and json.load(open(path)), "server.json from the school's server", 120)

    def __call__(self, command, argument=""):
        self.asked += 1
        name = f"{self.asked:03d}-{command}"
        with open(os.path.join(CONTROL, "." + name), "w") as f:
            f.write(argument)
        os.rename(os.path.join(CONTROL, "." + name), os.path.join(CONTROL, name))
        done = os.path.join(CONTROL, name + ".done")
        wait_for(lambda: os.path.exists(done), f"answer from the school's server to {command}", 90)
        answer = json.load(open(done))
        say(f"school cloud: {command} {argument}: {answer}")
        if "error" in answer:
            raise SystemExit(f"scenario: cloud: the school's server could not {command}: {answer['error']}")
        return answer


class Agent:
    """`inkkiosk cloud-agent` as the systemd unit runs it, beside the kiosk."""

    def __init__(self, binary, config, name):
        self.name = name
        self.log_path = os.path.join(WORK, f"{name}.log")
        self.proc = subprocess.Popen([binary, "cloud-agent", "--config", config],
                                     stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT)

    def text(self):
        return open(self.log_path).read()

    def wait_log(self, accept, what, timeout=120):
        def seen():
            text = self.text()
            if accept(text):
                return text
            if self.proc.poll() is not None:
                raise SystemExit(f"scenario: cloud: the agent exited ({self.proc.returncode}) while waiting for {what}:\n{text}")
            return None
        return wait_for(seen, f"{what} in {self.name}'s log", timeout)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)
        print(self.text(), flush=True)


def network_up():
    """The guest's side of QEMU's user network: 10.0.2.15, the host's loopback as 10.0.2.2."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
    nics = wait_for(lambda: [n for n in os.listdir("/sys/class/net") if n != "lo"], "network interface", 30)
    for cmd in (["ip", "link", "set", nics[0], "up"], ["ip", "addr", "add", "10.0.2.15/24", "dev", nics[0]],
                ["ip", "route", "add", "default", "via", "10.0.2.2"]):
        subprocess.run(cmd, check=True)
    say(f"cloud: {nics[0]} up as 10.0.2.15")


def teacher_puts(relative, data):
    """A file the teacher put in the class folder (whole, as a finished upload lands)."""
    path = os.path.join(CLASS, relative)
    hidden = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".new")
    with open(hidden, "wb") as f:
        f.write(data)
    os.rename(hidden, path)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def hand_in_folder():
    """The hand-in folder as the teacher sees it (hidden part files left out, as Nextcloud does)."""
    folder = os.path.join(CLASS, "Hand-in")
    return {n: sha256(os.path.join(folder, n)) for n in sorted(os.listdir(folder)) if not n.startswith(".")}


def cloud_config(url, ca, poll, name):
    """classroom.toml with the tablet's files on the data disk and the school's cloud."""
    text = open(os.path.join(ROOT, "config", "classroom.toml")).read()
    text = text.replace("[ui]\n", "[ui]\ndpi = 101.6\n", 1).replace("/var/lib/inkkiosk", TABLET)
    text += f"""
[cloud]
server = "{url}"
device_name = "tablet-07"
hand_out = "Class 7b/Hand-out"
hand_in = "Class 7b/Hand-in"
returned = "Class 7b/Returned"
ca_file = "{ca}"
credentials_file = "{TABLET}/cloud/credentials.json"
state_dir = "{TABLET}/cloud"
hand_out_dir = "{TABLET}/worksheets/class"
returned_dir = "{TABLET}/worksheets/returned"
poll_interval = {poll}
backoff_max = 15
"""
    path = os.path.join(WORK, f"{name}.toml")
    with open(path, "w") as f:
        f.write(text)
    os.makedirs(os.path.join(TABLET, "worksheets"), exist_ok=True)
    return path


def mount_tablet():
    os.makedirs(MOUNT, exist_ok=True)
    subprocess.run(["mount", "-t", "ext4", DATA_DISK, MOUNT], check=True)
    subprocess.run(["rm", "-rf", TABLET], check=True)


def unmount_tablet():
    """The disk as the later sessions expect it: this session's files gone, not mounted."""
    subprocess.run(["rm", "-rf", TABLET], check=False)
    subprocess.run(["umount", MOUNT], check=False)


def decoded_qr(name):
    """What zbarimg reads in a screendump, or None."""
    out = subprocess.run(["zbarimg", "--quiet", "--raw", os.path.join(WORK, "shots", f"{name}.png")],
                         capture_output=True, text=True, timeout=60)
    return out.stdout.strip() or None


def process_costs(pid):
    """Wake-ups (voluntary context switches: each is a sleep that ended), preemptions (involuntary
    ones), both over all threads, and CPU time (clock ticks) of a process so far."""
    wakeups = preempted = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            for line in open(f"/proc/{pid}/task/{task}/status"):
                if line.startswith("voluntary_ctxt_switches"):
                    wakeups += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches"):
                    preempted += int(line.split()[1])
        except FileNotFoundError:
            pass   # a thread that ended meanwhile
    fields = open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()
    ticks = int(fields[11]) + int(fields[12])   # utime, stime
    return wakeups, preempted, ticks, len(os.listdir(f"/proc/{pid}/task"))


def session_cloud(binary, pen, touch):
    os.makedirs(RESULTS, exist_ok=True)
    network_up()
    mount_tablet()
    try:
        run_session(binary, pen, touch)
    finally:
        with open(os.path.join(RESULTS, "cloud.json"), "w") as f:
            json.dump(results, f, indent=1)
        unmount_tablet()


def run_session(binary, pen, touch):
    server = SchoolServer()
    url, ca = server.info["url"].replace("127.0.0.1", "10.0.2.2"), server.info["ca"]
    results["server"] = url
    # The teacher's worksheet, in the hand-out folder before the tablet is enrolled.
    worksheet_pdf(os.path.join(RESULTS, "hand-out.pdf"), pages=1, title=TITLE)
    teacher_puts("Hand-out/algebra.pdf", open(os.path.join(RESULTS, "hand-out.pdf"), "rb").read())
    config = cloud_config(url, ca, 5, "cloud")
    kiosk = Kiosk(binary, "cloud", "--config", config)
    agent = Agent(binary, config, "cloud-agent")

    # 1. Enrolment: the login's URL as a QR code on the screen; a teacher logs in with a phone.
    text = kiosk.wait_log(lambda t: "enrolment: the login's QR code on screen" in t, "the enrolment's QR code", timeout=120)
    login = re.search(r"QR code on screen \((\S+)\)", text).group(1)
    results["loginURL"] = login

    def qr_shown():
        shot("cloud-enrol")
        return decoded_qr("cloud-enrol") == login
    wait_for(qr_shown, "QR code on the screen that reads as the login URL", 60)
    server("grant", "tablet-07")
    agent.wait_log(lambda t: "this tablet is enrolled as" in t, "the enrolment")
    credentials = os.path.join(TABLET, "cloud", "credentials.json")
    results["credentialsMode"] = oct(os.stat(credentials).st_mode & 0o777)
    results["appPassword"] = json.load(open(credentials)).get("appPassword")

    # 2. The hand-out arrives and is opened from the shelf; the pen writes on it.
    agent.wait_log(lambda t: "Hand-out: 1 fetched" in t, "the hand-out fetched")
    b = classroom_buttons(hand_in=True)
    gap, target = mm(2), mm(12)
    row_h = round(target * 1.6)

    def row(k):
        return 0.5, (b["bottom"] + 1 + 2 * gap + target + 2 * gap + row_h / 2 + k * (row_h + gap)) / H
    kiosk.wait_idle(what="the enrolment card gone")
    touch.tap(*b["Worksheets"])
    kiosk.wait_log(lambda t: "worksheets: 1 listed" in t, "the hand-out listed")
    shot("cloud-shelf", frames_above=kiosk.wait_idle(what="the list") - 1)
    time.sleep(0.1)
    touch.tap(*row(0))
    text = kiosk.wait_log(lambda t: "algebra.pdf opened" in t, "the hand-out opened")
    aw, ah, ax, ay = (int(v) for v in re.search(r"--page-area (\d+)x(\d+)\+(\d+)\+(\d+)", text).groups())
    scale = min(aw / 595, ah / 842)
    left, top = ax + (aw - 595 * scale) / 2, ay + (ah - 842 * scale) / 2
    results["fit"] = {"scale": scale, "left": left, "top": top}

    def on_page(x, y):
        return (left + x * scale) / W, (top + y * scale) / H

    def write_line(y):
        pen.stroke([on_page(100 + 380 * i / 40, y) for i in range(41)], pressure=0.6)
        pen.out()
    write_line(300)
    shot("cloud-worksheet", accept=lambda status: "page 1 on screen" in status)

    # 3. Handed in while the server is stopped before its answer: the file is there, the tablet
    #    does not know; started again, the tablet finds its own upload there: one file, once.
    server("hold")
    touch.tap(*b["Hand in"])
    held = os.path.join(SERVER, "held")
    wait_for(lambda: os.path.exists(held), "upload held by the server", 120)
    os.unlink(held)
    server("stop")
    kiosk.wait_log(lambda t: f'hand-in "{TITLE}" on screen: Handed in, waiting to be sent' in t, "the hand-in shown waiting")
    shot("cloud-waiting", accept=lambda status: True)
    results["whileStopped"] = hand_in_folder()
    server("start")
    agent.wait_log(lambda t: t.count(": sent") >= 1, "the hand-in sent")
    kiosk.wait_log(lambda t: t.count("on screen: Handed in and sent to the teacher") >= 1, "the hand-in shown sent")
    shot("cloud-sent", accept=lambda status: True)
    results["afterFirst"] = hand_in_folder()
    results["statsAfterFirst"] = server("stats")
    subprocess.run(["cp", os.path.join(CLASS, "Hand-in", OWN), os.path.join(RESULTS, "first.pdf")], check=True)

    # 4. Another tablet's work beside it; this one writes more and hands in again: only its own file changes.
    worksheet_pdf(os.path.join(RESULTS, "other.pdf"), pages=1, title="Another pupil")
    teacher_puts("Hand-in/tablet-08-Algebra.pdf", open(os.path.join(RESULTS, "other.pdf"), "rb").read())
    time.sleep(0.1)
    write_line(360)
    kiosk.wait_idle(what="the second line")
    touch.tap(*b["Hand in"])
    agent.wait_log(lambda t: t.count(": sent") >= 2, "the resubmission sent")
    kiosk.wait_log(lambda t: t.count("on screen: Handed in and sent to the teacher") >= 2, "the resubmission shown sent")
    results["afterSecond"] = hand_in_folder()
    subprocess.run(["cp", os.path.join(CLASS, "Hand-in", OWN), os.path.join(RESULTS, "second.pdf")], check=True)

    # 5. The teacher changes the handed-in file on the server; the tablet's next hand-in must not overwrite it.
    worksheet_pdf(os.path.join(RESULTS, "teacher.pdf"), pages=1, title="Teacher's notes")
    teacher_puts(f"Hand-in/{OWN}", open(os.path.join(RESULTS, "teacher.pdf"), "rb").read())
    time.sleep(0.1)
    write_line(420)
    kiosk.wait_idle(what="the third line")
    touch.tap(*b["Hand in"])
    kiosk.wait_log(lambda t: f'hand-in "{TITLE}" on screen: The hand-in was not accepted' in t, "the conflict shown")
    shot("cloud-conflict", accept=lambda status: True)
    results["afterConflict"] = hand_in_folder()
    results["statsAfterConflict"] = server("stats")

    # 6. The teacher returns marked work: this tablet's own comes back, another pupil's does not.
    worksheet_pdf(os.path.join(RESULTS, "marked.pdf"), pages=1, title="Marked: well done")
    teacher_puts(f"Returned/tablet-07-{TITLE}-marked.pdf", open(os.path.join(RESULTS, "marked.pdf"), "rb").read())
    teacher_puts(f"Returned/tablet-08-{TITLE}-marked.pdf", open(os.path.join(RESULTS, "other.pdf"), "rb").read())
    agent.wait_log(lambda t: "Returned: 1 fetched" in t, "the returned work fetched")
    results["returnedOnTablet"] = sorted(os.listdir(os.path.join(TABLET, "worksheets", "returned")))
    time.sleep(0.1)
    touch.tap(*b["Worksheets"])
    kiosk.wait_log(lambda t: "worksheets: 2 listed" in t, "the returned work listed")
    kiosk.wait_idle(what="the list")
    time.sleep(0.1)
    touch.tap(*row(1))
    kiosk.wait_log(lambda t: f"tablet-07-{TITLE}-marked.pdf opened" in t, "the returned work opened")
    shot("cloud-returned", accept=lambda status: "page 1 on screen" in status)

    # 7. A quiet minute: no pen, nothing to sync, the agent at its shipped poll interval (60 s).
    agent.stop()
    quiet_config = cloud_config(url, ca, 60, "cloud-quiet")
    before = server("stats")
    agent = Agent(binary, quiet_config, "cloud-agent-quiet")
    wait_for(lambda: server("stats")["propfind"] >= before["propfind"] + 2, "quiet agent's first round", 120)
    kiosk.wait_idle(what="quiet")
    time.sleep(2)   # the round's last reply handled
    start = time.monotonic()
    costs = {who: process_costs(p.pid) for who, p in (("kiosk", kiosk.proc), ("agent", agent.proc))}
    time.sleep(60)   # the measurement window (not a wait for a condition)
    seconds = time.monotonic() - start
    after = {who: process_costs(p.pid) for who, p in (("kiosk", kiosk.proc), ("agent", agent.proc))}
    hz = os.sysconf("SC_CLK_TCK")
    results["quiet"] = {who: {"seconds": seconds, "wakeups": after[who][0] - costs[who][0], "preempted": after[who][1] - costs[who][1],
                              "cpuSeconds": (after[who][2] - costs[who][2]) / hz, "threads": after[who][3]}
                        for who in costs}
    for who, q in results["quiet"].items():
        say(f"quiet minute: {who}: {q['wakeups']} wake-ups in {q['seconds']:.1f} s ({q['wakeups'] / q['seconds']:.2f}/s), "
            f"{q['preempted']} preempted, {q['cpuSeconds']:.2f} s of CPU, {q['threads']} threads")
    agent.stop()

    # 8. Remote wipe: an admin wipes the device in Nextcloud; the tablet removes the class's data.
    server("wipe", "tablet-07")
    agent = Agent(binary, config, "cloud-agent-wipe")
    agent.wait_log(lambda t: "remote wipe: done and confirmed" in t, "the remote wipe")
    results["afterWipe"] = {
        "handOut": sorted(os.listdir(os.path.join(TABLET, "worksheets", "class"))),
        "returned": sorted(os.listdir(os.path.join(TABLET, "worksheets", "returned"))),
        "credentials": os.path.exists(credentials),
        "ledger": os.path.exists(os.path.join(TABLET, "cloud", "ledger.json")),
        "stats": server("stats"),
    }
    agent.stop()
    kiosk.stop()
    results["done"] = True
    say("cloud: done")
