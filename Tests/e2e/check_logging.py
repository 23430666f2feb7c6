# SPDX-License-Identifier: Apache-2.0
"""Host-side checks of logging_session.py: with JOURNAL_STREAM naming stderr, every line carries
journald's priority and only warnings and worse pass `[log] level = "warning"` (what
`journalctl -p warning` would show; the VM has no journald); without it, the level is spelled out."""
import os
import re


def logging_checks(work, check):
    journal_path = os.path.join(work, "logging-journal.log")
    plain_path = os.path.join(work, "logging-plain.log")
    journal = open(journal_path).read().splitlines() if os.path.exists(journal_path) else []
    plain = open(plain_path).read().splitlines() if os.path.exists(plain_path) else []
    moved = "moved aside to"
    warnings = [line for line in journal if line.startswith("<4>inkkiosk: ") and moved in line]
    check(len(warnings) == 1, f"under the journal the damaged journal's warning has priority 4 ({len(warnings)} such lines)", journal_path)
    prefixed = [line for line in journal if re.match(r"<[0-7]>", line)]
    check(bool(journal) and len(prefixed) == len(journal),
          f"under the journal every stderr line has a priority prefix ({len(prefixed)} of {len(journal)})", journal_path)
    chatter = [line for line in journal if re.match(r"<[5-7]>", line)]
    check(not chatter, f"level warning: no notice, info or debug lines ({len(chatter)}: {chatter[:2]})", journal_path)
    check(any(line.startswith("warning: inkkiosk: ") and moved in line for line in plain),
          "without JOURNAL_STREAM the same warning reads \"warning: inkkiosk: …\"", plain_path)
    check(bool(plain) and not any(re.match(r"<\d>", line) for line in plain), "without JOURNAL_STREAM no priority prefixes", plain_path)
    quiet = [line for line in plain if line.startswith(("info:", "notice:", "debug:", "trace:"))]
    check(not quiet, f"without JOURNAL_STREAM level warning still drops info and notice lines ({len(quiet)})", plain_path)
