#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Joins standard input and output to a TCP port of this machine, both ways, until either side
closes: what QEMU's user network runs for each connection a guest opens to a guestfwd address
(`guestfwd=tcp:10.0.2.100:443-cmd:python3 tcp-relay.py PORT`), so that the image's fixed fleet
server address reaches a server on whatever port the test gave it.

    python3 scripts/image/tcp-relay.py PORT [HOST]      (HOST default 127.0.0.1)
"""
import os
import selectors
import socket
import sys


def end_guest_output(fd):
    """Tells the guest the server has finished (a half-close, when fd is the socket QEMU gave)."""
    try:
        socket.socket(fileno=os.dup(fd)).shutdown(socket.SHUT_WR)
    except OSError:
        os.close(fd)


def main():
    port = int(sys.argv[1])
    host = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
    try:
        peer = socket.create_connection((host, port), timeout=10)
    except OSError as e:
        print(f"tcp-relay: cannot connect to {host}:{port}: {e}", file=sys.stderr)
        return 1
    peer.settimeout(None)
    # QEMU gives the guest's connection as fd 0 (and 1): one socket, read and written.
    guest_in, guest_out = 0, 1
    sel = selectors.DefaultSelector()
    sel.register(guest_in, selectors.EVENT_READ, "guest")
    sel.register(peer, selectors.EVENT_READ, "peer")
    open_sides = 2
    while open_sides:
        for key, _ in sel.select():
            if key.data == "guest":
                data = os.read(guest_in, 1 << 16)
                if not data:
                    sel.unregister(guest_in)
                    open_sides -= 1
                    peer.shutdown(socket.SHUT_WR)
                    continue
                peer.sendall(data)
            else:
                data = peer.recv(1 << 16)
                if not data:
                    sel.unregister(peer)
                    open_sides -= 1
                    end_guest_output(guest_out)
                    continue
                view = memoryview(data)
                while view:
                    view = view[os.write(guest_out, view):]
    return 0


if __name__ == "__main__":
    sys.exit(main())
