# SPDX-License-Identifier: Apache-2.0
"""The kiosk's log lines: the one place the test harness knows them.

Each pattern below is a line one Swift source writes (found with `grep -rn` in Sources/); change
the two together:

    FIRST_FRAME             Sources/InkKiosk/Kiosk.swift, trace.summary("first frame on screen", …);
                            the wording: StartupTrace.summary, Sources/InkKiosk/StartupTrace.swift
    INPUT_READY             Sources/InkKiosk/Kiosk.swift, trace.followUp("input ready"); the
                            wording: StartupTrace.followUp
    SCREEN, KMS             Sources/InkKiosk/Kiosk.swift, the start-up report (card, mode, dpi;
                            card, driver, display.scanout)
    ATOMIC_PLANES           KMS's detail: Sources/InkDisplay/AtomicScanout.swift's summary
                            (legacy: Sources/InkDisplay/LegacyScanout.swift's)
    INPUT_DEVICE, PEN_ADDED Sources/InkKiosk/Kiosk.swift, readInput
    JOURNAL_RESTORED        Sources/InkKiosk/KioskStartup.swift, restoreJournal
    OUTBOX_SWEPT            Sources/InkKiosk/KioskStartup.swift, the unfinished captures removed
    SIGNATURE_WRITTEN,      Sources/InkKiosk/Screens/SignatureScreen.swift
    SIGNATURE_NOT_WRITTEN
    CANNOT_SAVE_INK         Sources/InkKiosk/Kiosk.swift, the journal's writes failing
    LOCKDOWN_HELD, SYSRQ_OFF  Sources/InkKiosk/Lockdown.swift
    WATCHDOG_ARMED          Sources/InkKiosk/Kiosk.swift, the start-up report's watchdog
    TEST_HANG               Sources/InkKiosk/Kiosk.swift, hangForTest (ik.test.hang=first-frame)
    DOWNGRADE_REFUSED       Sources/inkkiosk/UpdateAgentCommand.swift ("update-agent: \\(refusal)");
                            the wording: Sources/InkUpdateAgent/SlotVersion.swift

How they look: the kiosk writes "LEVEL: inkkiosk: TEXT" ("<N>inkkiosk: TEXT" under journald).
The x86 and arm64 serial consoles show that as it is; the harness's logs put the host's seconds
in front ("   8.664 | info: inkkiosk: …"). So each pattern starts at the tag, wherever it is in
the line, but never inside a path ("/var/lib/inkkiosk: "): use search() or finditer(), on one
line or a whole log alike, not match(). Groups are named.
"""

import re

# Not after a word, a path or a dash: "/var/lib/inkkiosk: " is no kiosk line.
_TAG = r"(?<![\w/.-])inkkiosk: "


def _line(text, tag=_TAG):
    return re.compile(tag + text)


# The uinput pen the VM tests plug in (scripts/appliance/test/ik-pen.c, scripts/vm/uinput_devices.py).
TEST_PEN = "Wacom Intuos5 touch M Pen"

# "first frame on screen 136 ms after main (2.878 s after boot): arguments 4 ms, …" when the
# kiosk is PID 1 (the appliance), "… 968 ms after exec: loader and arguments 707 ms, …" otherwise:
# boot_s is None then.
FIRST_FRAME = _line(r"first frame on screen (?P<ms>\d+) ms after (?:main \((?P<boot_s>\d+\.\d+) s after boot\)|exec)")

# "input ready 1054 ms after main, 397 ms after the first frame" (or "after exec, …").
INPUT_READY = _line(r"input ready (?P<ms>\d+) ms after (?:main|exec)(?:, (?P<step_ms>\d+) ms after the (?P<step>.+))?")

# "/dev/dri/card0 Virtual-1 1280x800@75Hz 102 dpi, seat seat0, draw mode"
SCREEN = _line(r"(?P<card>/dev/dri/\S+) (?P<connector>\S+) (?P<width>\d+)x(?P<height>\d+)@(?P<hz>\d+)Hz (?P<dpi>\d+) dpi, "
               r"seat (?P<seat>[^,\n]+), (?P<mode>\S+) mode")

# "/dev/dri/card0 (bochs-drm): atomic KMS (primary plane 33, no cursor plane, no damage clips)",
# "/dev/dri/card0 (bochs-drm): legacy KMS ([display] kms = "legacy")". The detail runs to the
# line's last ")": a legacy reason may hold parentheses of its own.
KMS = _line(r"(?P<card>/dev/dri/\S+) \((?P<driver>[^()\n]*)\): (?P<interface>atomic|legacy) KMS \((?P<detail>.*)\)")

# An atomic KMS line's detail (KMS's `detail` group): ATOMIC_PLANES.fullmatch(m["detail"]).
ATOMIC_PLANES = re.compile(r"primary plane (?P<primary>\d+), (?:cursor plane (?P<cursor>\d+)|no cursor plane), "
                           r"(?P<damage>(?:no )?damage clips)")

# "input device 1: Wacom Intuos5 touch M Pen (tablet)", "… ILITEK ILITEK-TP (touch, direct)".
INPUT_DEVICE = _line(r"input device (?P<id>\d+): (?P<name>.+) \((?P<kind>tablet|touch|pad)(?P<direct>, direct)?\)")
# The test pen taken as a tablet.
PEN_ADDED = _line(r"input device (?P<id>\d+): " + re.escape(TEST_PEN) + r" \(tablet\)")

# "journal /var/lib/inkkiosk/journal.inkj: restored 0 edits, 0 strokes"
JOURNAL_RESTORED = _line(r"journal (?P<path>\S+): restored (?P<edits>\d+) edits, (?P<strokes>\d+) strokes")

# "outbox /var/lib/inkkiosk/outbox: removed 1 files of unfinished captures: .ID.partial/"
OUTBOX_SWEPT = _line(r"outbox (?P<outbox>\S+): removed (?P<files>\d+) files of unfinished captures: (?P<names>.*)")

# "signature 20261129T151852Z-6c4de1: 4 files in /var/lib/inkkiosk/outbox"
SIGNATURE_WRITTEN = _line(r"signature (?P<id>\S+): (?P<files>\d+) files in (?P<outbox>\S+)")
# "cannot write signature ID: ERROR": its files were not written (the ink stays on screen)
SIGNATURE_NOT_WRITTEN = _line(r"cannot write signature (?P<id>\S+): (?P<error>.*)")

# "warning: inkkiosk: cannot save ink (No space left on device); 1 edits kept in memory, …":
# a warning (level 4) by design, so the level is part of the pattern.
CANNOT_SAVE_INK = _line(r"cannot save ink \((?P<problem>.*)\); (?P<waiting>\d+) edits kept in memory",
                        tag=r"(?<![\w/.-])(?:<4>|warning: )inkkiosk: ")

# "lockdown: 4 event nodes held exclusively; no service keys", "lockdown: 1 event node held …"
LOCKDOWN_HELD = _line(r"lockdown: (?P<nodes>\d+) event nodes? held exclusively")
# "lockdown: SysRq turned off (kernel.sysrq was 438)"
SYSRQ_OFF = _line(r"lockdown: SysRq turned off \(kernel\.sysrq was (?P<was>\d+)\)")

# "hardware watchdog /dev/watchdog: 30 s, fed from the loop every 7.5 s"
WATCHDOG_ARMED = _line(r"hardware watchdog (?P<path>\S+): (?P<timeout>\d+) s")
# "TEST ONLY: ik.test.hang=first-frame on the kernel command line: the loop stops here; the
# watchdog /dev/watchdog is no longer fed (30 s)"
TEST_HANG = _line(r"TEST ONLY: ik\.test\.hang=first-frame .*the watchdog (?P<watchdog>\S+) is no longer fed \((?P<timeout>\d+) s\)")

# `inkkiosk update-agent --may-install` refusing an older bundle (RAUC's pre-install handler):
# "update-agent: refused: 0.0.1 is older than the running 1.0.0 (a downgrade; …)"
DOWNGRADE_REFUSED = _line(r"update-agent: (?P<refusal>refused: (?P<offered>\S+) is older than the running (?P<running>\S+) .*)")
