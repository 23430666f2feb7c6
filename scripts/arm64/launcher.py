#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Starts programs for the arm64 unit tests, natively, outside the emulator.

Under qemu-user, a guest's posix_spawn is a fork of the whole emulator. When the guest has many
threads (the test runner has), the forked copy can deadlock in the emulator's own locks before
it reaches exec, and the test that waits for the program's output waits for ever. So the tests'
`run` (Tests/InkTestSupport/Tools.swift) asks this launcher instead when INKKIOSK_TESTS_LAUNCHER
names its socket: the program is started by a process that is not emulated, and an arm64
program still runs under qemu through binfmt, with the test script's environment.

One request per connection: a JSON line {"argv": [...], "cwd": "..."}; the answer is one JSON
line {"status": N, "stdout": base64, "stderr": base64}, where N is the exit status, or the
signal's number when the program was killed (as Foundation's Process reports it).

    scripts/arm64/launcher.py SOCKET_PATH
"""
import base64
import json
import os
import socketserver
import subprocess
import sys


class Launch(socketserver.StreamRequestHandler):
    def handle(self):
        try:
            request = json.loads(self.rfile.readline())
            done = subprocess.run(request["argv"], cwd=request.get("cwd") or None,
                                  stdin=subprocess.DEVNULL, capture_output=True)
            status = done.returncode if done.returncode >= 0 else -done.returncode
            answer = {"status": status, "stdout": base64.b64encode(done.stdout).decode(),
                      "stderr": base64.b64encode(done.stderr).decode()}
        except (OSError, ValueError, KeyError, TypeError) as error:
            answer = {"error": f"{type(error).__name__}: {error}"}
        self.wfile.write(json.dumps(answer).encode() + b"\n")


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: launcher.py SOCKET_PATH")
    path = sys.argv[1]
    if os.path.exists(path):
        os.unlink(path)
    with Server(path, Launch) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
