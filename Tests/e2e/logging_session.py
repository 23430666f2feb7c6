# SPDX-License-Identifier: Apache-2.0
"""The kiosk's log levels on the real binary (run inside the VM): `[log] level = "warning"`, a
damaged journal to provoke a warning, run once with JOURNAL_STREAM naming stderr's device and
inode (as systemd sets it when stderr is the journal) and once without. The busybox VM has no
journald: the captured stderr is what journald would read, its `<N>` prefixes the priorities
`journalctl -p warning` filters on. check_logging.py judges the two logs on the host."""
import os
import signal
import subprocess

from scenario import WORK, Notifications, say


def run_once(binary, name, journal_stream):
    config = os.path.join(WORK, "logging.toml")
    with open(config, "w") as f:
        f.write('[log]\nlevel = "warning"\n')
    journal = os.path.join(WORK, f"{name}.inkj")
    with open(journal, "wb") as f:
        f.write(b"not a journal: moved aside with a warning")
    log_path = os.path.join(WORK, f"{name}.log")
    notifications = Notifications(os.path.join("/run", f"inkkiosk-notify-{name}"))
    with open(log_path, "w") as log:
        env = dict(os.environ, NOTIFY_SOCKET=notifications.path)
        env.pop("JOURNAL_STREAM", None)
        if journal_stream:
            st = os.fstat(log.fileno())
            env["JOURNAL_STREAM"] = f"{st.st_dev}:{st.st_ino}"
        proc = subprocess.Popen([binary, "run", "--config", config, "--journal", journal], stdout=log, stderr=log, env=env)
        try:
            ready = notifications.wait(lambda m: m.get("READY") == "1", 60, f"{name}: READY=1")
            say(f"{name}: kiosk ready ({ready.get('STATUS')})")
        finally:
            proc.send_signal(signal.SIGTERM)
            status = proc.wait(timeout=30)
            notifications.close()
    say(f"{name}: exit status {status}")


def session_logging(binary):
    run_once(binary, "logging-journal", journal_stream=True)
    run_once(binary, "logging-plain", journal_stream=False)
