#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The signature API probed as a careless or hostile host would use it (run inside the VM;
scenario.py calls `session_api_probes` after the signature session, check_api.py judges what
it leaves in WORK). `E2E_ONLY=api scripts/e2e.sh` runs only this part (`api:kill,flood` only
those probes).

The kiosk runs in signature mode with the API on 127.0.0.1 and a soft RLIMIT_NOFILE of 1024
(systemd's LimitNOFILE=1024 in deploy/systemd). Four probes, in this order, each on kiosks of
its own, each writing its figures to WORK/apiprobe-NAME.json:

  kill       kill -9 at moments of the Accept (the tap; .ID.partial/ created, its first and
             fourth file; the rename; the request's record after it), a restart on the same
             outbox, GET /signatures/{id}: a final state, no leftovers, 0700 directories and
             0600 files; then DELETE of the accepted ones. The outbox lies on the VM's
             throttled data disk (inotify sees nothing on the shared work directory) and is
             copied to WORK/apiprobe-kill/outbox at the end.
  load       the same signatures drawn twice: with the API idle, and with 200 keep-alive
             clients hammering GET /health and GET /signatures/latest while a prober asks
             GET /health every 75 ms on a fresh connection (the kiosk's input→flip latency of
             both runs: WORK/apiprobe-idle-latency.json, WORK/apiprobe-load-latency.json)
  malformed  Content-Length: -5, invalid UTF-8 in the path, garbage, a 10 MB Content-Length
             with only the head sent, a client that stalls in its request line; then a 1 MB
             header line, a 1 MB path, 1 MB of headers; the kiosk's RSS and fds around them
  flood      1100 idle connections from 127.0.0.1, past the fd limit: what each one got,
             whether /health (from 127.0.0.1 too, with the token) answers with the flood held
             open and after it closed, POST /signatures after it
  access     DNS rebinding (Host: evil.example), a web page's text/plain POST with its Origin,
             text/plain and form bodies with the token; then a wrong-token storm from 127.0.0.2
             while the real client (127.0.0.1, the right token) asks /health every 100 ms
  lockout    the host signs a contract end to end (POST /documents, the request, the pages read
             and signed with the pen and taps, the long poll, the signed PDF) and asks /health
             every 100 ms, while everything else on the box, all from 127.0.0.1 as the host, tries
             to lock it out: a browser's image requests every 100 ms (half with Sec-Fetch-*), a
             program sending wrong tokens, 64 idle connections kept open, 200 busy clients without
             a token. Every one of the host's requests must succeed

Every socket operation has a time-out and every phase is bounded: about 4 minutes in all in
the VM, at most BUDGET. The same file also runs the load's helper processes:

    api_probes.py --load PORT CLIENTS OUT.json     keep-alive clients until stdin closes
    api_probes.py --prober PORT OUT.json           GET /health on a fresh connection every 75 ms
                                                   from a line "go" on stdin until it closes
    api_probes.py --storm PORT OUT.json PART       the lockout's storm (PART: page, crowd) until
                                                   stdin closes
"""
import ctypes
import json
import math
import os
import re
import resource
import select
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"
WORK = os.environ.get("IK_WORK", "/tmp")

# The server's [api] defaults the probes hold it to (the probes' kiosks use the defaults).
NOFILE = 1024             # the kiosk's soft limit (deploy/systemd: LimitNOFILE=1024)
MAX_CONNECTIONS = 256
REQUEST_TIMEOUT = 10
MAX_REQUEST_LINE = 8192
MAX_HEADER_BYTES = 16384
MAX_BODY_BYTES = 16384

FLOOD = 1100              # idle connections: past NOFILE
FLOOD_SOURCE = HOST       # the flood comes from the host's own address, as any local program's does
MAX_PER_CLIENT = 64       # [api] max_connections_per_client
CLIENTS = 200             # concurrent keep-alive clients of the load
LOAD_SECONDS = 10         # the load lasts at least this long, and while the pen draws
PROBE_EVERY = 0.075       # the prober's pace (s)
BUDGET = 520              # the whole API part, seconds (each phase is bounded on its own too)
PHASES = ("kill", "load", "malformed", "flood", "access", "lockout")
IDLE_HOLDERS = 64         # the lockout's idle connections from 127.0.0.1, reopened when closed
BUSY_CLIENTS = 200        # the lockout's token-less clients, each asking again 100 ms after an answer
STORM_MAX_SECONDS = 240   # the lockout's storm ends by itself after this
# The probes' kiosks read this token from WORK/apiprobe.token ([api] token_file): on TCP a token is
# always asked for. 256 bits as 64 hex characters, as the kiosk makes its own.
TOKEN = "5e0c1f9a7b3d2e4f6a8c0b1d3e5f7a9c2b4d6e8f0a1c3e5b7d9f1a3c5e7b9d0f"
AUTH = f"Authorization: Bearer {TOKEN}"
STORM_SOURCE = "127.0.0.2"   # the wrong-token storm's client: another address on loopback
STORM_SECONDS = 6
MB = 1 << 20


def say(msg):
    print(f"api-probes: {msg}", flush=True)


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 1)


def percentile(values, p):
    """Nearest-rank percentile of values (None for none)."""
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def spread(values):
    return {"n": len(values), "p50": percentile(values, 50), "p99": percentile(values, 99),
            "max": max(values) if values else None}


def save(name, data):
    path = os.path.join(WORK, f"apiprobe-{name}.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
    return path


# --- HTTP by hand: every byte chosen, every operation timed out ------------------------------

def head_end(buf):
    i = buf.find(b"\r\n\r\n")
    return -1 if i < 0 else i + 4


def parse_head(head):
    """(status code, {lower-case name: value}) of a response head (bytes up to the blank line)."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    code = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return code, headers


def response_complete(buf):
    """Whether buf holds a whole response (head and body by Content-Length or chunks); a body
    delimited by the close is complete only at EOF (the caller knows that)."""
    end = head_end(buf)
    if end < 0:
        return False
    code, headers = parse_head(buf[:end])
    body = buf[end:]
    if code in (204, 304) or (code is not None and code < 200):
        return True
    if "content-length" in headers:
        try:
            return len(body) >= int(headers["content-length"])
        except ValueError:
            return True
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return body.endswith(b"0\r\n\r\n")
    return False


def dechunk(body):
    out, i = bytearray(), 0
    while True:
        j = body.find(b"\r\n", i)
        if j < 0:
            return bytes(out)
        size = int(body[i:j].split(b";")[0] or b"0", 16)
        if size == 0:
            return bytes(out)
        out += body[j + 2:j + 2 + size]
        i = j + 2 + size + 2


def split_response(buf):
    """(code, headers, body bytes) of a whole response in buf."""
    end = head_end(buf)
    code, headers = parse_head(buf[:end])
    body = buf[end:]
    if "content-length" in headers and headers["content-length"].isdigit():
        body = body[:int(headers["content-length"])]
    elif "chunked" in headers.get("transfer-encoding", "").lower():
        body = dechunk(body)
    return code, headers, bytes(body)


def request(port, method, path, body=None, timeout=5.0, headers=(), auth=AUTH, host=None,
            content_type="application/json", source=None, keep_body=False):
    """One request on a fresh connection (Connection: close), as a host sends it: the bearer
    token (auth None: none), Host HOST:port, a JSON body. Returns a dict: code, ms (to the
    whole answer), json (the body parsed, or None), error (None, or what went wrong), and with
    keep_body the body's bytes (body)."""
    t0 = time.monotonic()
    deadline = t0 + timeout
    out = {"code": None, "ms": None, "json": None, "error": None}
    data = body.encode() if isinstance(body, str) else body
    head = f"{method} {path} HTTP/1.1\r\nHost: {host or f'{HOST}:{port}'}\r\nConnection: close\r\n"
    if auth:
        head += auth + "\r\n"
    for h in headers:
        head += h + "\r\n"
    if data is not None:
        head += (f"Content-Type: {content_type}\r\n" if content_type else "") + f"Content-Length: {len(data)}\r\n"
    raw = head.encode() + b"\r\n" + (data or b"")
    buf = bytearray()
    try:
        with socket.create_connection((HOST, port), timeout=timeout,
                                      source_address=(source, 0) if source else None) as s:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            s.sendall(raw)
            while not response_complete(buf):
                s.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
    except socket.timeout:
        out["error"] = "timeout"
    except OSError as e:
        out["error"] = type(e).__name__
    out["ms"] = ms(time.monotonic() - t0)
    if head_end(buf) >= 0:
        code, _, content = split_response(buf)
        out["code"] = code
        if keep_body:
            out["body"] = content
        try:
            out["json"] = json.loads(content) if content.strip() else None
        except ValueError:
            out["json"] = None
        if out["error"] == "timeout" and response_complete(buf):
            out["error"] = None
    elif out["error"] is None:
        out["error"] = "closed without an answer"
    return out


def exchange(port, payload, timeout, linger=3.0):
    """Sends payload on a fresh connection, stops sending as soon as the server answers or
    closes, and reads the answer. Returns a dict: code, answer_ms (first byte sent → first byte
    of the answer), sent (bytes), closed_ms (when the server closed, if it did within `linger`
    s after answering, or within `timeout` without one), error."""
    out = {"code": None, "answer_ms": None, "sent": 0, "size": len(payload), "closed_ms": None, "error": None,
           "timeout_s": timeout}
    try:
        s = socket.create_connection((HOST, port), timeout=min(timeout, 5))
    except OSError as e:
        out["error"] = f"connect: {type(e).__name__}"
        return out
    s.setblocking(False)
    t0 = time.monotonic()
    deadline = t0 + timeout
    got = bytearray()
    sending = True
    try:
        while True:
            now = time.monotonic()
            if now >= deadline:
                out["error"] = out["error"] or ("timeout" if not got else "answer incomplete")
                break
            poller = select.poll()
            poller.register(s, select.POLLIN | (select.POLLOUT if sending and out["sent"] < len(payload) else 0))
            events = dict(poller.poll(max(1, int((deadline - now) * 1000))))
            r = events.get(s.fileno(), 0) & (select.POLLIN | select.POLLERR | select.POLLHUP)
            w = events.get(s.fileno(), 0) & select.POLLOUT and not r
            if r:
                try:
                    chunk = s.recv(65536)
                except OSError as e:
                    out["closed_ms"] = ms(time.monotonic() - t0)
                    out["error"] = out["error"] or ("reset" if isinstance(e, ConnectionResetError) else type(e).__name__)
                    break
                if not chunk:
                    out["closed_ms"] = ms(time.monotonic() - t0)
                    break
                if not got:
                    out["answer_ms"] = ms(time.monotonic() - t0)
                    sending = False
                got += chunk
                if response_complete(got) and not out.get("complete"):
                    out["complete"] = True
                    deadline = min(deadline, time.monotonic() + linger)   # now: does it close?
            if w:
                try:
                    out["sent"] += s.send(payload[out["sent"]:out["sent"] + 65536])
                except (ConnectionResetError, BrokenPipeError) as e:
                    out["error"] = f"{type(e).__name__} while sending"
                    sending = False
    finally:
        s.close()
    if head_end(got) >= 0:
        out["code"] = parse_head(got[:head_end(got)])[0]
        out["body"] = bytes(got[head_end(got):][:300]).decode("utf-8", "replace")
        if out["error"] in ("timeout", "answer incomplete") and out.get("complete"):
            out["error"] = None   # answered; it only kept the connection open (closed_ms None)
    elif got:
        out["body"] = bytes(got[:300]).decode("utf-8", "replace")
    return out


# --- the kiosk process seen from outside ------------------------------------------------------

def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def rss_kb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def nofile_of(pid):
    try:
        for line in open(f"/proc/{pid}/limits"):
            if line.startswith("Max open files"):
                soft, hard = line.split()[3:5]
                return [int(soft) if soft.isdigit() else soft, int(hard) if hard.isdigit() else hard]
    except OSError:
        return None
    return None


def settle(pid, fds, within=3.0):
    """The kiosk's RSS and open fds once it is back to `fds` open files (or `within` s passed):
    what a probe left behind after this side closed its connection."""
    deadline = time.monotonic() + within
    while (fd_count(pid) or 0) > fds and time.monotonic() < deadline:
        time.sleep(0.05)   # polls /proc: nothing to wait on
    return {"rss_kb": rss_kb(pid), "fds": fd_count(pid)}


class FdSampler:
    """The kiosk's open file descriptors, counted every 100 ms in a thread: the peak, and a
    coarse timeline."""

    def __init__(self, pid):
        self.pid, self.peak, self.timeline = pid, 0, []
        self.stopped = threading.Event()
        self.t0 = time.monotonic()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        last = -1.0
        while not self.stopped.is_set():
            n = fd_count(self.pid)
            if n is not None:
                self.peak = max(self.peak, n)
                t = time.monotonic() - self.t0
                if t - last >= 0.5:
                    self.timeline.append([round(t, 1), n])
                    last = t
            self.stopped.wait(0.1)

    def stop(self):
        self.stopped.set()
        self.thread.join(timeout=5)


def wait_health(port, until, pace=0.25, timeout=2.0):
    """GET /health on fresh connections until one answers 200 or `until` (monotonic) passes.
    Returns (seconds from the call to the 200 or None, the attempts)."""
    t0 = time.monotonic()
    attempts = []
    while True:
        started = time.monotonic()
        if started >= until:
            return None, attempts
        r = request(port, "GET", "/health", timeout=min(timeout, max(0.1, until - started)))
        attempts.append({"t": round(started - t0, 2), "code": r["code"], "ms": r["ms"], "error": r["error"]})
        if r["code"] == 200:
            return round(time.monotonic() - t0, 2), attempts
        pause = started + pace - time.monotonic()
        if pause > 0:
            time.sleep(pause)   # the pace of the attempts


# --- helper processes of the load phase ---------------------------------------------------------

def from_parent(on_go, on_eof):
    """The parent's signals on stdin: a line "go" calls on_go, EOF calls on_eof (the end)."""
    def watch():
        try:
            for line in sys.stdin.buffer:
                if line.strip() == b"go":
                    on_go()
        except OSError:
            pass
        on_eof()
    threading.Thread(target=watch, daemon=True).start()


def cpu_seconds(pid="self"):
    """User + system CPU time of a process so far (s)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def load_main(port, clients, out, min_seconds=LOAD_SECONDS, max_seconds=40, request_timeout=10.0):
    """`clients` keep-alive connections, each asking GET /health and GET /signatures/latest in
    turn as fast as answers come, from its first connection until stdin closes (at least
    min_seconds after all clients connected, at most max_seconds). Prints "ready" once every
    client has tried its first connection."""
    import asyncio

    paths = ["/health", "/signatures/latest"]
    latencies, codes, errors = [], {}, {"connect": 0, "timeout": 0, "closed": 0, "reset": 0, "bad answer": 0}
    unfinished = []
    state = {"connections": 0, "tried": 0, "done": False}

    async def read_answer(reader):
        head = await reader.readuntil(b"\r\n\r\n")
        code, headers = parse_head(head)
        if "content-length" in headers:
            await reader.readexactly(int(headers["content-length"]))
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip() or b"0", 16)
                await reader.readexactly(size + 2)
                if size == 0:
                    break
        else:
            await reader.read()   # delimited by the close
            return code, False
        return code, headers.get("connection", "").lower() != "close"

    async def client(i, all_tried):
        writer = None
        k = i
        first = True
        while not state["done"]:
            if writer is None:
                try:
                    # 200 clients from 50 loopback addresses: under [api] max_connections_per_client (64)
                    reader, writer = await asyncio.wait_for(asyncio.open_connection(
                        HOST, port, local_addr=(f"127.0.1.{1 + i % 50}", 0)), 5)
                    state["connections"] += 1
                except (OSError, asyncio.TimeoutError):
                    errors["connect"] += 1
                    writer = None
                finally:
                    if first:
                        first = False
                        state["tried"] += 1
                        if state["tried"] == clients:
                            all_tried.set()
                if writer is None:
                    await asyncio.sleep(0.05)   # back off after a refused connection
                    continue
            path = paths[k % 2]
            k += 1
            t = time.monotonic()
            try:
                writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n{AUTH}\r\n\r\n".encode())
                code, keep = await asyncio.wait_for(read_answer(reader), request_timeout)
            except asyncio.CancelledError:
                unfinished.append((time.monotonic() - t) * 1000)
                writer.close()
                raise
            except asyncio.TimeoutError:
                errors["timeout"] += 1
                latencies.append((time.monotonic() - t) * 1000)
                keep = False
            except asyncio.IncompleteReadError:
                errors["closed"] += 1
                keep = False
            except (ConnectionError, OSError):
                errors["reset"] += 1
                keep = False
            except (ValueError, asyncio.LimitOverrunError):
                errors["bad answer"] += 1
                keep = False
            else:
                latencies.append((time.monotonic() - t) * 1000)
                codes[str(code)] = codes.get(str(code), 0) + 1
            if not keep:
                writer.close()
                writer = None

    async def main():
        loop = asyncio.get_running_loop()
        stop, all_tried = asyncio.Event(), asyncio.Event()
        from_parent(lambda: None, lambda: loop.call_soon_threadsafe(stop.set))
        t0 = time.monotonic()
        tasks = [asyncio.create_task(client(i, all_tried)) for i in range(clients)]
        try:
            await asyncio.wait_for(all_tried.wait(), 30)
        except asyncio.TimeoutError:
            pass
        ready = time.monotonic()
        state["cpu_at_ready"] = cpu_seconds()
        print("ready", flush=True)
        try:
            await asyncio.wait_for(stop.wait(), max_seconds)
        except asyncio.TimeoutError:
            pass
        state["stop_seen"] = time.monotonic()
        left = min_seconds - (time.monotonic() - ready)
        if left > 0:
            await asyncio.sleep(left)   # the load lasts at least min_seconds
        state["done"] = True
        end = time.monotonic()
        state["cpu_in_window"] = (cpu_seconds() or 0) - (state["cpu_at_ready"] or 0)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return t0, ready, end

    t0, ready, end = asyncio.run(main())
    answered = sum(codes.values())
    everything = latencies + unfinished
    result = {"clients": clients, "connect_s": round(ready - t0, 2), "seconds": round(end - ready, 2),
              "window": [round(ready, 3), round(end, 3)], "stop_seen": round(state.get("stop_seen", 0), 3),
              "cpu_s": round(state["cpu_in_window"], 2),   # in the window, not the connecting
              "requests": answered, "per_second": round(answered / max(end - t0, 0.001), 1),
              "codes": codes, "errors": errors, "unfinished": len(unfinished),
              "connections": state["connections"],
              "ms": spread([round(v, 1) for v in everything]),
              # In flight when the load ended: an error only when it had waited over a second.
              "unfinished_over_1s": sum(1 for v in unfinished if v > 1000),
              "errors_total": sum(errors.values()) + sum(1 for v in unfinished if v > 1000)
              + sum(n for c, n in codes.items() if not c.startswith(("2", "4")) or c == "408")}
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


def prober_main(port, out, min_seconds=LOAD_SECONDS, max_seconds=40, timeout=5.0):
    """GET /health on a fresh connection every PROBE_EVERY s (never two at once) until stdin
    closes (at least min_seconds, at most max_seconds)."""
    go, stop = threading.Event(), threading.Event()
    from_parent(go.set, lambda: (stop.set(), go.set()))
    print("ready", flush=True)
    go.wait(60)
    t0, cpu0 = time.monotonic(), cpu_seconds()
    samples = []
    while True:
        started = time.monotonic()
        if started - t0 >= max_seconds or (stop.is_set() and started - t0 >= min_seconds):
            break
        r = request(port, "GET", "/health", timeout=timeout)
        samples.append({"t": round(started - t0, 3), "ms": r["ms"], "code": r["code"], "error": r["error"]})
        pause = started + PROBE_EVERY - time.monotonic()
        if pause > 0:
            time.sleep(pause)   # the prober's pace
    good = [s["ms"] for s in samples if s["code"] == 200]
    # A sample that failed counts at the time it took (a time-out: at least `timeout`).
    every = [s["ms"] for s in samples]
    result = {"samples": len(samples), "ok": len(good), "seconds": round(time.monotonic() - t0, 2),
              "window": [round(t0, 3), round(time.monotonic(), 3)], "cpu_s": round((cpu_seconds() or 0) - (cpu0 or 0), 2),
              "timeout_s": timeout, "errors": len(samples) - len(good),
              "within_100ms": sum(1 for s in samples if s["code"] == 200 and s["ms"] <= 100),
              "within_1s": sum(1 for s in samples if s["code"] == 200 and s["ms"] <= 1000),
              "ms": spread(every), "ok_ms": spread(good), "list": samples}
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


# --- inotify, for killing the kiosk at a moment of its Accept -------------------------------------

IN_MODIFY, IN_CLOSE_WRITE, IN_MOVED_TO, IN_CREATE = 0x2, 0x8, 0x80, 0x100


def storm_main(port, out, part, max_seconds=STORM_MAX_SECONDS):
    """Everything on the box but the host, from 127.0.0.1 as the host is, in two parts (two
    processes, so that the crowd's event loop does not slow the page's and the program's pace):
    "page": a browser's image requests every 100 ms (every other one with the Fetch Metadata
    headers a browser sends, the rest as an old browser sends them: no token either way) and a
    program sending wrong tokens every 20 ms; "crowd": IDLE_HOLDERS connections that send
    nothing (reopened 100 ms after the server closes one) and BUSY_CLIENTS clients asking
    /health without a token 100 ms after each answer. Prints "ready" once the idle connections
    are open; ends when stdin closes (or after max_seconds) and writes what each got to OUT."""
    import asyncio

    figures = {"browser_fetch": {}, "browser_plain": {}, "wrong_token": {}} if part == "page" else \
        {"busy": {}, "idle": {"opened": 0, "closed_by_server": 0, "connect_errors": 0}}
    stop = threading.Event()
    from_parent(lambda: None, stop.set)

    def tally(kind, what):
        figures[kind][what] = figures[kind].get(what, 0) + 1

    async def ask(head, timeout=5.0):
        """One request on a fresh connection: its status, or what went wrong."""
        writer = None
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), timeout)
            writer.write(head.encode())
            await writer.drain()
            answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
            return str(parse_head(answer)[0])
        except asyncio.TimeoutError:
            return "timeout"
        except (asyncio.IncompleteReadError, ConnectionResetError):
            return "closed"
        except OSError as e:
            return type(e).__name__
        finally:
            if writer is not None:
                writer.close()

    def head(path, *lines):
        return "".join([f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n", *(line + "\r\n" for line in lines), "\r\n"])

    async def browser():
        i = 0
        while not stop.is_set():
            fetch_metadata = i % 2 == 0
            lines = ["User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "Accept: image/avif,image/webp,*/*",
                     "Referer: https://ads.example/"]
            if fetch_metadata:
                lines += ["Sec-Fetch-Dest: image", "Sec-Fetch-Mode: no-cors", "Sec-Fetch-Site: cross-site"]
            tally("browser_fetch" if fetch_metadata else "browser_plain", await ask(head(f"/signatures/latest?img={i}", *lines)))
            i += 1
            await asyncio.sleep(0.1)

    async def wrong_tokens():
        i = 0
        while not stop.is_set():
            tally("wrong_token", await ask(head("/health", f"Authorization: Bearer guess{i:060d}")))
            i += 1
            await asyncio.sleep(0.02)

    async def busy():
        while not stop.is_set():
            tally("busy", await ask(head("/health")))
            await asyncio.sleep(0.1)

    async def idle():
        while not stop.is_set():
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 5)
            except (OSError, asyncio.TimeoutError):
                figures["idle"]["connect_errors"] += 1
                await asyncio.sleep(0.1)
                continue
            figures["idle"]["opened"] += 1
            try:
                while not stop.is_set():
                    try:
                        if not await asyncio.wait_for(reader.read(4096), 0.5):
                            figures["idle"]["closed_by_server"] += 1
                            break
                    except asyncio.TimeoutError:
                        continue
                    except OSError:
                        figures["idle"]["closed_by_server"] += 1
                        break
            finally:
                writer.close()
            await asyncio.sleep(0.1)

    async def main():
        holders = [asyncio.ensure_future(idle()) for _ in range(IDLE_HOLDERS if part == "crowd" else 0)]
        while part == "crowd" and figures["idle"]["opened"] < IDLE_HOLDERS and not stop.is_set():
            await asyncio.sleep(0.05)
        print("ready", flush=True)
        t0 = time.monotonic()
        others = [asyncio.ensure_future(f()) for f in ([browser, wrong_tokens] if part == "page" else [busy] * BUSY_CLIENTS)]
        while not stop.is_set() and time.monotonic() - t0 < max_seconds:
            await asyncio.sleep(0.1)
        stop.set()
        await asyncio.wait(holders + others, timeout=10)
        figures["seconds"] = round(time.monotonic() - t0, 1)

    asyncio.run(main())
    with open(out, "w") as f:
        json.dump(figures, f, indent=1)


class Inotify:
    def __init__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.paths = {}

    def watch(self, path, mask):
        wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), mask)
        if wd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")
        self.paths[wd] = path

    def events(self, timeout):
        """[(watched path, mask, name)] that arrived within timeout s."""
        r, _, _ = select.select([self.fd], [], [], max(0, timeout))
        if not r:
            return []
        data, out, i = os.read(self.fd, 65536), [], 0
        while i + 16 <= len(data):
            wd, mask, _cookie, size = struct.unpack_from("iIII", data, i)
            name = data[i + 16:i + 16 + size].rstrip(b"\0").decode("utf-8", "replace")
            out.append((self.paths.get(wd), mask, name))
            i += 16 + size
        return out

    def close(self):
        os.close(self.fd)


def audit(outbox):
    """The outbox as a host or an auditor sees it: leftovers of a write, modes, captures."""
    found = {"leftovers": [], "bad_modes": [], "captures": {}, "outbox_mode": None}
    if not os.path.isdir(outbox):
        return found
    found["outbox_mode"] = oct(os.stat(outbox).st_mode & 0o777)
    for root, dirs, files in os.walk(outbox):
        rel = os.path.relpath(root, outbox)
        for d in dirs:
            path = os.path.join(root, d)
            if d.startswith(".") or d.endswith((".partial", ".tmp")):
                found["leftovers"].append(os.path.relpath(path, outbox))
            mode = os.lstat(path).st_mode & 0o777
            if mode != 0o700:
                found["bad_modes"].append([os.path.relpath(path, outbox), oct(mode)])
            if rel == ".":
                found["captures"][d] = sorted(os.listdir(path))
        for f in files:
            path = os.path.join(root, f)
            if ".partial" in f or f.endswith(".tmp") or (f.startswith(".") and not (rel == "." and f == ".requests")):
                found["leftovers"].append(os.path.relpath(path, outbox))
            mode = os.lstat(path).st_mode & 0o777
            if mode != 0o600:
                found["bad_modes"].append([os.path.relpath(path, outbox), oct(mode)])
    return found


def hold_flood(port, n, found, alive=lambda: True):
    """Opens n idle connections at once (sending nothing) and holds them; meanwhile watches what
    each one gets (an answer and its status, a close, a reset) and asks GET /health on fresh
    connections, until every one has ended or request_timeout + 6 s have passed since the last
    was opened. Then closes
    them all and times how long /health takes to answer 200. Fills `found`."""
    socks, sel = [], selectors.DefaultSelector()
    outcome = {}   # socket → [what, seconds after t0]
    t0 = time.monotonic()
    try:
        for i in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            # From the host's own address, 127.0.0.1, as every local program's: the server holds the
            # flood to max_connections_per_client by closing its oldest connections (none has
            # shown the token) for newer ones, and /health, which shows it, gets through.
            s.bind((FLOOD_SOURCE, 0))
            if i % 50 == 49:
                # 50 every 60 ms: a burst of 1100 SYNs overflows the accept queue, and a
                # connection whose last ACK the kernel dropped (SYN cookies) stays "open" on this
                # side without the server ever seeing it (seen in the VM under host load).
                time.sleep(0.06)
            s.setblocking(False)
            err = s.connect_ex((HOST, port))
            socks.append(s)
            if err == 0:
                outcome[s] = ["open", None]
                sel.register(s, selectors.EVENT_READ)
            elif err in (115, 11):   # EINPROGRESS, EAGAIN
                outcome[s] = ["connecting", None]
                sel.register(s, selectors.EVENT_WRITE)
            else:
                outcome[s] = [f"connect error {err}", round(time.monotonic() - t0, 2)]
        found["open_s"] = round(time.monotonic() - t0, 2)
        # /health meanwhile, on fresh connections, until 200 (bounded by request_timeout).
        health = {}
        checker = threading.Thread(target=lambda: health.update(zip(("s", "attempts"), wait_health(
            port, time.monotonic() + REQUEST_TIMEOUT + 5))), daemon=True)
        checker.start()
        deadline = time.monotonic() + REQUEST_TIMEOUT + 6   # from the last connection on
        pending = n
        while time.monotonic() < deadline and (pending or checker.is_alive()):
            for key, _ in sel.select(timeout=min(0.2, max(0, deadline - time.monotonic()))):
                s, now = key.fileobj, round(time.monotonic() - t0, 2)
                if outcome[s][0] == "connecting":
                    err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                    sel.unregister(s)
                    if err:
                        outcome[s] = [f"connect error {err}", now]
                    else:
                        outcome[s] = ["open", None]
                        sel.register(s, selectors.EVENT_READ)
                    continue
                try:
                    data = s.recv(4096)
                except OSError:
                    data = None
                sel.unregister(s)
                if data:
                    code = parse_head(data.split(b"\r\n\r\n")[0] + b"\r\n")[0] if data.startswith(b"HTTP/") else None
                    outcome[s] = [f"HTTP {code}", now]
                else:
                    outcome[s] = ["closed" if data is not None else "reset", now]
                s.close()
            pending = sum(1 for what, _ in outcome.values() if what in ("open", "connecting"))
        checker.join(timeout=REQUEST_TIMEOUT + 8)
        found["alive_with_flood"] = alive()
        found["health_with_flood_s"] = health.get("s")
        found["health_with_flood_attempts"] = health.get("attempts", [])[:80]
        summary = {}
        for what, at in outcome.values():
            entry = summary.setdefault(what, {"n": 0, "times": []})
            entry["n"] += 1
            if at is not None:
                entry["times"].append(at)
        found["outcomes"] = {what: {"n": e["n"], "first_s": min(e["times"]) if e["times"] else None,
                                    "p50_s": percentile(e["times"], 50), "last_s": max(e["times"]) if e["times"] else None}
                             for what, e in summary.items()}
        found["held_open"] = sum(1 for what, _ in outcome.values() if what in ("open", "connecting"))
        found["watched_s"] = round(time.monotonic() - t0, 2)
    finally:
        t1 = time.monotonic()
        for s in socks:
            s.close()
        sel.close()
    found["health_after_close_s"], attempts = wait_health(port, t1 + 10)
    found["health_after_close_attempts"] = attempts[:40]


KILL_MOUNT = "/run/inkkiosk-apiprobe"
DATA_DISK = "/dev/vda"   # scripts/e2e.sh: ext4, writes throttled like a cheap SD card


def mount_outbox_disk():
    """Mounts a file system of the guest's own at KILL_MOUNT; says which."""
    os.makedirs(KILL_MOUNT, exist_ok=True)
    if os.path.exists(DATA_DISK) and subprocess.run(["mount", "-t", "ext4", DATA_DISK, KILL_MOUNT],
                                                    capture_output=True).returncode == 0:
        return "the throttled data disk (ext4, 20 writes/s)"
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m,mode=0755", "tmpfs", KILL_MOUNT], check=True)
    return "tmpfs"


# --- the session in the VM ----------------------------------------------------------------------

class Probes:
    """Runs the four probes against one binary; each kiosk gets a port of its own."""

    def __init__(self, binary, pen, touch, selected=PHASES):
        from scenario import Kiosk, signature_path  # noqa: F401  (the VM side only)
        from modes import session_config, signature_buttons, signature_keys
        self.Kiosk, self.signature_path = Kiosk, signature_path
        self.session_config, self.signature_keys = session_config, signature_keys
        self.binary, self.pen, self.touch = binary, pen, touch
        self.accept = signature_buttons(14, hosted=True)["Accept"]
        self.started = time.monotonic()
        self.ports = iter(range(7310, 7400))
        self.kiosk = None
        self.selected = list(selected)

    # -- kiosks
    def start(self, session, name, port, outbox=None):
        # Sealed, as the signature session's kiosk: the same key (modes.signature_keys).
        config = self.session_config("signature.toml", name, encrypt_to=self.signature_keys(self.binary)[1])
        text = open(config).read()
        if outbox:
            text = re.sub(r'(?m)^outbox = .*$', f'outbox = "{outbox}"', text)
        # The probes' bearer token, in a file of their own (0600), as [api] token_file.
        token_file = os.path.join(WORK, "apiprobe.token")
        fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, (TOKEN + "\n").encode())
        os.close(fd)
        text = text.replace("[api]\n", f'[api]\ntoken_file = "{token_file}"\n', 1)
        with open(config, "w") as f:
            f.write(text)
        try:
            k = self.Kiosk(self.binary, session, "--config", config, "--api", f"{HOST}:{port}", nofile=NOFILE)
        except BaseException:
            failed = self.Kiosk.current   # it never became ready: no later wait may hang on it
            if failed is not None and failed.session == session:
                if failed.proc.poll() is None:
                    failed.proc.kill()
                    failed.proc.wait(timeout=10)
                failed.gone()
            raise
        self.kiosk = k
        say(f"{session}: pid {k.proc.pid}, API on {HOST}:{port}, open files limit {nofile_of(k.proc.pid)}")
        return k

    def finish(self, k):
        """SIGTERM (the latency figures are written on exit), SIGKILL after 10 s."""
        status, note = k.proc.poll(), None
        if status is None:
            k.proc.send_signal(signal.SIGTERM)
            try:
                status = k.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                note = "did not stop within 10 s of SIGTERM: killed"
                k.proc.kill()
                status = k.proc.wait(timeout=10)
        else:
            note = f"had exited by itself with status {status}"
        k.gone()
        if self.kiosk is k:
            self.kiosk = None
        tail = open(k.log_path, errors="replace").read().splitlines()[-12:]
        say(f"{k.session}: exit status {status}{'; ' + note if note else ''}; log ends:\n" + "\n".join(tail))
        return {"status": status, "note": note}

    def left(self):
        return BUDGET - (time.monotonic() - self.started)

    def capture(self, k, port, timeout=600):
        """POST /signatures, then the request on screen. Returns the id (None if refused)."""
        frames = k.wait_idle(what="before the request")
        r = request(port, "POST", "/signatures", json.dumps({"prompt": "API probe", "timeout": timeout}), timeout=10)
        ident = (r["json"] or {}).get("id")
        if r["code"] != 201 or not ident:
            say(f"{k.session}: POST /signatures: {r}")
            return None
        k.wait_idle(frames_above=frames, what="the request on screen")
        return ident

    def sign(self, rounds=4):
        """Signature-like strokes at 100 Hz (the same in every run that compares latency)."""
        rate, self.pen.rate = self.pen.rate, 100.0
        try:
            for i in range(rounds):
                for points in self.signature_path():
                    self.pen.stroke([(x + 0.45 * (i % 2), y - 0.1 + 0.05 * i) for x, y in points], pressure=0.5)
                    self.pen.out()
        finally:
            self.pen.rate = rate

    # -- c. latency with the API idle and under load
    def load(self, found):
        me = os.path.abspath(__file__)
        for label in ("idle", "load"):
            port = next(self.ports)
            k = self.start(f"apiprobe-{label}", f"apiprobe-{label}", port)
            helpers, fds = [], None
            try:
                ident = self.capture(k, port)
                found[f"{label}_capture"] = ident
                if label == "load":
                    prober = subprocess.Popen([sys.executable, me, "--prober", str(port),
                                               os.path.join(WORK, "apiprobe-load-prober.json")],
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                    helpers.append(prober)
                    load = subprocess.Popen([sys.executable, me, "--load", str(port), str(CLIENTS),
                                             os.path.join(WORK, "apiprobe-load-clients.json")],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                    helpers.append(load)
                    found["prober_ready"] = readline(prober, 30)
                    found["load_ready"] = readline(load, 45)   # 200 clients connected and asking
                    prober.stdin.write(b"go\n")
                    prober.stdin.flush()
                    fds = FdSampler(k.proc.pid)
                cpu, t = cpu_seconds(k.proc.pid), time.monotonic()
                self.sign()
                done = time.monotonic()
                found[f"{label}_draw"] = {"s": round(done - t, 2), "window": [round(t, 3), round(done, 3)],
                                          "kiosk_cpu_s": round((cpu_seconds(k.proc.pid) or 0) - (cpu or 0), 2)}
                for h in helpers:
                    h.stdin.close()   # the load and the prober end (after LOAD_SECONDS at least)
                for h in helpers:
                    try:
                        h.wait(timeout=60)
                    except subprocess.TimeoutExpired:
                        found.setdefault("helper_problems", []).append(f"pid {h.pid} killed after 60 s")
                if fds is not None:
                    found["load_kiosk_cpu_s"] = round((cpu_seconds(k.proc.pid) or 0) - (cpu or 0), 2)
                    found["load_fds_peak"] = fds.peak
                    found["load_alive"] = k.proc.poll() is None
                k.wait_idle(what=f"{label}: all ink on screen")
                if ident:
                    found[f"{label}_after"] = request(port, "GET", f"/signatures/{ident}", timeout=10)["code"]
            finally:
                if fds is not None:
                    fds.stop()
                for h in helpers:
                    if h.poll() is None:
                        h.kill()
                        h.wait(timeout=10)
                found[f"{label}_exit"] = self.finish(k)
        for name in ("clients", "prober"):
            path = os.path.join(WORK, f"apiprobe-load-{name}.json")
            found[name] = json.load(open(path)) if os.path.exists(path) else None
        if found.get("prober"):
            found["prober"].pop("list", None)   # kept in its own file

    # -- b. malformed and oversized requests
    def malformed(self, found):
        port = next(self.ports)
        k = self.start("apiprobe-malformed", "apiprobe-malformed", port)
        try:
            pid = k.proc.pid
            for path in ("/health", "/signatures/latest") * 3:   # a server that has answered: warm
                request(port, "GET", path, timeout=5)
            found["before"] = {"rss_kb": rss_kb(pid), "fds": fd_count(pid)}
            # At once, each on its own connection: half a request line, then nothing (closed
            # after request_timeout); and the small ones (answered at once, or not at all).
            small = [
                ("content_length_negative", b"POST /signatures HTTP/1.1\r\nHost: k\r\nContent-Length: -5\r\n\r\n{}"),
                ("path_invalid_utf8", b"GET /signatures/\xff\xfe\xc3\x28 HTTP/1.1\r\nHost: k\r\n\r\n"),
                ("garbage", b"\x00\x01\x02 \xff\xfe garbage \x7f\r\n\r\n"),
                ("content_length_10mb", b"POST /signatures HTTP/1.1\r\nHost: k\r\nContent-Type: application/json\r\n"
                                        b"Content-Length: 10000000\r\n\r\n"),
            ]
            threads = [threading.Thread(target=lambda: found.__setitem__("stall", exchange(
                port, b"GET /hea", timeout=REQUEST_TIMEOUT + 8, linger=1)), daemon=True)]
            threads += [threading.Thread(target=lambda n=n, p=p: found.__setitem__(n, exchange(port, p, timeout=5)), daemon=True)
                        for n, p in small]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=REQUEST_TIMEOUT + 15)
            for name in [n for n, _ in small] + ["stall"]:
                self.report(name, found.get(name) or {}, pid)
            found["small_after"] = settle(pid, found["before"]["fds"])
            # The big ones one after the other, each on a server that answers /health: when it
            # no longer does (stuck on the one before), on a kiosk of its own.
            big = b"a" * MB
            lines = b"".join(b"X-Fill-%05d: %s\r\n" % (i, b"b" * 50) for i in range(MB // 64))
            for name, payload in (
                    ("header_line_1mb", b"GET /health HTTP/1.1\r\nHost: k\r\nX-Big: " + big + b"\r\n\r\n"),
                    ("path_1mb", b"GET /" + big + b" HTTP/1.1\r\nHost: k\r\n\r\n"),
                    ("headers_1mb", b"GET /health HTTP/1.1\r\nHost: k\r\n" + lines + b"\r\n")):
                ready, _ = wait_health(port, time.monotonic() + 5)
                restarted = ready is None
                if restarted:
                    say(f"{name}: the kiosk does not answer /health: a fresh one for this probe")
                    found.setdefault("restarts", []).append({"before": name, "exit": self.finish(k)})
                    port = next(self.ports)
                    k = self.start(f"apiprobe-malformed-{name}", "apiprobe-malformed", port)
                    pid = k.proc.pid
                    ready, _ = wait_health(port, time.monotonic() + 5)
                before = {"rss_kb": rss_kb(pid), "fds": fd_count(pid)}
                r = exchange(port, payload, timeout=12)
                r.update({"health_before_s": ready, "fresh_kiosk": restarted, "before": before,
                          "after": settle(pid, before["fds"])})
                found[name] = r
                self.report(name, r, pid)
            found["health_after"] = request(port, "GET", "/health", timeout=5)
            found["alive"] = k.proc.poll() is None
        finally:
            found["exit"] = self.finish(self.kiosk) if self.kiosk is not None else None

    @staticmethod
    def report(name, r, pid):
        say(f"{name}: HTTP {r.get('code')} after {r.get('answer_ms')} ms, sent {r.get('sent')} of {r.get('size')} bytes, "
            f"closed {r.get('closed_ms')} ms, error {r.get('error')}; kiosk RSS {rss_kb(pid)} kB, fds {fd_count(pid)}")

    # -- a. an idle flood past the fd limit
    def flood(self, found):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = FLOOD + 512
        if soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
        port = next(self.ports)
        k = self.start("apiprobe-flood", "apiprobe-flood", port)
        pid = k.proc.pid
        found.update({"connections": FLOOD, "nofile": nofile_of(pid), "fds_before": fd_count(pid)})
        sampler = FdSampler(pid)
        try:
            hold_flood(port, FLOOD, found, alive=lambda: k.proc.poll() is None)
            found["fds_peak"] = sampler.peak
            sampler.stop()
            found["fds_timeline"] = sampler.timeline
            post = request(port, "POST", "/signatures", json.dumps({"timeout": 60}), timeout=10)
            found["post_after"] = {"code": post["code"], "error": post["error"], "ms": post["ms"]}
            ident = (post["json"] or {}).get("id")
            if ident:
                found["delete_after"] = request(port, "DELETE", f"/signatures/{ident}", timeout=10)["code"]
            found["alive"] = k.proc.poll() is None
            log = open(k.log_path, errors="replace").read()
            emfile = [line for line in log.splitlines() if "too many open files" in line.lower() or "emfile" in line.lower()]
            found["log_emfile_lines"] = len(emfile)
            found["log_emfile_first"] = emfile[0][:300] if emfile else None
        finally:
            sampler.stop()
            found["exit"] = self.finish(k)

    # -- e. who may ask: DNS rebinding, a web page's plain-text POST, a wrong-token storm
    def accesses(self, found):
        port = next(self.ports)
        k = self.start("apiprobe-access", "apiprobe-access", port)
        try:
            frames = k.wait_idle(what="before the refused requests")
            # DNS rebinding: evil.example resolves to 127.0.0.1; the browser sends its own name.
            found["rebinding_get"] = request(port, "GET", "/signatures/latest", host=f"evil.example:{port}", auth=None)
            found["rebinding_post"] = request(port, "POST", "/signatures", json.dumps({"prompt": "rebound"}),
                                              host=f"evil.example:{port}", auth=None)
            # A page's form or fetch without preflight: text/plain, its Origin, no token; and the
            # same type from a client that has the token but no Origin.
            found["page_post"] = request(port, "POST", "/signatures", json.dumps({"prompt": "Sign to win"}), auth=None,
                                         content_type="text/plain;charset=UTF-8", headers=("Origin: http://evil.example",))
            found["plain_post"] = request(port, "POST", "/signatures", json.dumps({"prompt": "Sign to win"}),
                                          content_type="text/plain")
            found["form_post"] = request(port, "POST", "/signatures", "prompt=x", content_type="application/x-www-form-urlencoded")
            found["frames_unchanged"] = k.wait_idle(what="after the refused requests") == frames
            health = request(port, "GET", "/health", timeout=5)
            found["health_after"] = {"code": health["code"], "waiting": (health["json"] or {}).get("waiting", "?")}
            found["latest_after"] = request(port, "GET", "/signatures/latest", timeout=5)["code"]
            # Baseline of the real client, then the same while another client storms wrong tokens.
            found["real_idle"] = self.real_client(port, 2.0)
            storm = {"codes": {}, "n": 0, "retry_after": None}
            stop = threading.Event()

            def storm_loop():
                i = 0
                while not stop.is_set():
                    r = request(port, "GET", "/health", auth=f"Authorization: Bearer wrong{i}", source=STORM_SOURCE, timeout=3)
                    storm["n"] += 1
                    key = str(r["code"] or r["error"])
                    storm["codes"][key] = storm["codes"].get(key, 0) + 1
                    i += 1
            threads = [threading.Thread(target=storm_loop, daemon=True) for _ in range(4)]
            t0 = time.monotonic()
            for t in threads:
                t.start()
            time.sleep(0.5)
            found["real_storm"] = self.real_client(port, STORM_SECONDS)
            held = request(port, "GET", "/health", source=STORM_SOURCE, timeout=3)
            found["storm_right_token"] = held["code"]
            stop.set()
            for t in threads:
                t.join(timeout=10)
            storm["seconds"] = round(time.monotonic() - t0, 2)
            found["storm"] = storm
            log = open(k.log_path, errors="replace").read().splitlines()
            found["log_lines"] = [line[:300] for line in log if "refused" in line][:12]
            found["alive"] = k.proc.poll() is None
        finally:
            found["exit"] = self.finish(k)
        say(f"access: rebinding GET {found['rebinding_get']['code']}, POST {found['rebinding_post']['code']}; page POST "
            f"{found['page_post']['code']}, text/plain with token {found['plain_post']['code']}, form {found['form_post']['code']}; "
            f"storm {found['storm']['codes']}; real client {found['real_storm']}")

    # -- f. the host signs a contract while everything else on the box tries to lock it out
    def lockout(self, found):
        from contract_pdf import FIELDS, contract_pdf
        from documents import page_shown, review_buttons, sign_in, signing_view, writing_box
        port = next(self.ports)
        k = self.start("apiprobe-lockout", "apiprobe-lockout", port)
        contract = os.path.join(WORK, "apiprobe-lockout-contract.pdf")
        contract_pdf(contract)
        host = {"requests": [], "health": []}
        found["host"] = host
        storms = {part: (os.path.join(WORK, f"apiprobe-lockout-{part}.json"), subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--storm", str(port), os.path.join(WORK, f"apiprobe-lockout-{part}.json"), part],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)) for part in ("crowd", "page")}
        stop = threading.Event()

        def ask(name, method, path, body=None, timeout=10.0, **kw):
            r = request(port, method, path, body, timeout=timeout, **kw)
            host["requests"].append({"name": name, "code": r["code"], "ms": r["ms"], "error": r["error"],
                                     "answer": None if r["code"] and r["code"] < 300 else r["json"]})
            return r

        def health():
            while not stop.is_set():
                r = request(port, "GET", "/health", timeout=5)
                host["health"].append({"code": r["code"], "ms": r["ms"], "error": r["error"]})
                stop.wait(0.1)
        watcher = threading.Thread(target=health, daemon=True)
        try:
            frames = k.wait_idle(what="before the storm")
            found["storm_ready"] = [readline(proc, 60) for _, proc in storms.values()]
            t0 = time.monotonic()
            watcher.start()
            time.sleep(1.0)   # the storm at full strength before the host's first request
            buttons = review_buttons()
            posted = ask("POST /documents", "POST", "/documents", open(contract, "rb").read(), content_type="application/pdf")
            document = (posted["json"] or {}).get("id")
            started = ask("POST /signatures", "POST", "/signatures", json.dumps({
                "document": document, "field": "customer", "review": "all-pages", "prompt": "Sign the contract", "timeout": 300}))
            ident = (started["json"] or {}).get("id")
            found["capture"] = ident
            if not ident:
                raise RuntimeError(f"no signature request: {host['requests']}")
            page_shown(k, ident, 1, 2)
            ask("GET /signatures/ID (reading)", "GET", f"/signatures/{ident}")
            time.sleep(0.1)
            self.touch.tap(*buttons["›"])
            page_shown(k, ident, 2, 2)
            time.sleep(0.1)
            self.touch.tap(*buttons["Sign"])
            signing_view(k, ident, "customer")
            time.sleep(0.1)
            sign_in(writing_box(FIELDS["customer"]), self.pen)
            k.wait_idle(frames_above=frames, what="the signature drawn")
            time.sleep(0.1)
            self.touch.tap(*self.accept)
            done = ask("GET /signatures/ID?wait=30", "GET", f"/signatures/{ident}?wait=30", timeout=40)
            found["state"] = (done["json"] or {}).get("state")
            pdf = request(port, "GET", f"/signatures/{ident}/pdf", timeout=30, keep_body=True)
            host["requests"].append({"name": "GET /signatures/ID/pdf", "code": pdf["code"], "ms": pdf["ms"], "error": pdf["error"]})
            found["host_s"] = round(time.monotonic() - t0, 1)
            data = pdf.get("body") or b""
            original = open(contract, "rb").read()
            found["signed_pdf_bytes"] = len(data)
            # The signed file is the contract with an incremental update appended.
            found["signed_pdf_is_update"] = len(data) > len(original) and data.startswith(original) and data.rstrip().endswith(b"%%EOF")
            with open(os.path.join(WORK, "apiprobe-lockout-signed.pdf"), "wb") as f:
                f.write(data)
        finally:
            stop.set()
            if watcher.is_alive():
                watcher.join(timeout=10)
            found["storm"] = {}
            for out, proc in storms.values():
                if proc.poll() is None:
                    proc.stdin.close()
                    try:
                        proc.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait(timeout=10)
                if os.path.exists(out):
                    found["storm"].update(json.load(open(out)))
            log = open(k.log_path, errors="replace").read().splitlines()
            found["log_refused_lines"] = sum(1 for line in log if "refused" in line)
            found["log_room_lines"] = [line[:300] for line in log if "to make room" in line][:6]
            found["alive"] = k.proc.poll() is None
            found["exit"] = self.finish(k)
        times = [r["ms"] for r in host["requests"] + host["health"] if r["code"] and r["code"] < 300]
        found["host_ms"] = spread(times)
        say(f"lockout: the host's {len(host['requests'])} requests {[r['code'] or r['error'] for r in host['requests']]}, "
            f"/health {len(host['health'])} times ({sorted({str(r['code'] or r['error']) for r in host['health']})}), "
            f"p50 {found['host_ms']['p50']} ms p99 {found['host_ms']['p99']} ms; storm {found['storm']}")

    @staticmethod
    def real_client(port, seconds):
        """The POS with the right token: GET /health every 100 ms on fresh connections."""
        codes, times, t_end = {}, [], time.monotonic() + seconds
        while time.monotonic() < t_end:
            r = request(port, "GET", "/health", timeout=5)
            codes[str(r["code"] or r["error"])] = codes.get(str(r["code"] or r["error"]), 0) + 1
            if r["code"] == 200:
                times.append(r["ms"])
            time.sleep(0.1)
        return {"codes": codes, "ms": spread(times)}

    # -- d. kill -9 during Accept
    # The most telling moments first; the later ones only while the phase has time.
    MOMENTS = ["partial", "renamed", "last-file", "tap", "recorded", "first-file"]
    KILL_SECONDS = 110

    def kills(self, found):
        port = next(self.ports)
        name = "apiprobe-kill"
        # The outbox on a disk of the guest's own (inotify sees nothing on the shared work
        # directory): the throttled data disk when there is one, else a tmpfs. Copied into
        # WORK/apiprobe-kill/outbox at the end for the host's look.
        found["outbox_on"] = mount_outbox_disk()
        outbox = os.path.join(KILL_MOUNT, "apiprobe-outbox")
        shutil.rmtree(outbox, ignore_errors=True)
        rounds, acks = [], []
        found.update({"rounds": rounds, "acks": acks})
        began = time.monotonic()
        try:
            k = self.start(f"{name}-0", name, port, outbox=outbox)
            for i, moment in enumerate(self.MOMENTS):
                spent = time.monotonic() - began
                if i >= 4 and (spent > self.KILL_SECONDS - 25 or self.left() < 25):
                    rounds.append({"moment": moment, "skipped": f"out of time ({spent:.0f} s into the phase)"})
                    continue
                ident = self.capture(k, port)
                r = {"moment": moment, "id": ident}
                rounds.append(r)
                if not ident:
                    r["error"] = "no capture started"
                    break
                self.pen.stroke([(0.25 + 0.5 * j / 40, 0.55 - 0.1 * abs(((j % 20) - 10) / 10)) for j in range(41)], pressure=0.6)
                self.pen.out()
                k.wait_idle(what="the signature drawn")
                time.sleep(0.1)   # a hand: 100 ms between the stroke and the tap
                r.update(self.kill_at(k, outbox, ident, moment))
                say(f"kill round {i} ({moment}): {r.get('reached')} {r.get('after_tap_ms')} ms after the tap; "
                    f"on disk then: {r.get('at_kill')}")
                k = self.start(f"{name}-{i + 1}", name, port, outbox=outbox)
                got = request(port, "GET", f"/signatures/{ident}", timeout=10)
                r["get"] = {"code": got["code"], "state": (got["json"] or {}).get("state"),
                            "reason": (got["json"] or {}).get("reason"), "error": got["error"]}
                r["audit"] = audit(outbox)
                say(f"kill round {i}: after the restart GET → {r['get']}; leftovers {r['audit']['leftovers']}, "
                    f"modes off {r['audit']['bad_modes']}")
            # The host acknowledges every accepted capture: 204, its files leave the outbox.
            for r in rounds:
                if (r.get("get") or {}).get("state") == "accepted":
                    d = request(port, "DELETE", f"/signatures/{r['id']}", timeout=10)
                    again = request(port, "GET", f"/signatures/{r['id']}", timeout=10)
                    acks.append({"id": r["id"], "delete": d["code"], "gone": not os.path.exists(os.path.join(outbox, r["id"])),
                                 "get": again["code"], "state": (again["json"] or {}).get("state"),
                                 "acknowledged": (again["json"] or {}).get("acknowledged")})
            found["final"] = audit(outbox)
        finally:
            if self.kiosk is not None:
                found["exit"] = self.finish(self.kiosk)
            copy = os.path.join(WORK, name, "outbox")
            shutil.rmtree(copy, ignore_errors=True)
            if os.path.isdir(outbox):
                shutil.copytree(outbox, copy, copy_function=shutil.copy2)   # modes too
                shutil.rmtree(outbox, ignore_errors=True)
            subprocess.run(["umount", KILL_MOUNT], check=False)

    def kill_at(self, k, outbox, ident, moment, timeout=20):
        """Taps Accept and SIGKILLs the kiosk when `moment` comes: tap (at once), partial
        (.ID.partial/ created), first-file / last-file (its first / fourth entry), renamed (ID/
        appears), recorded (.requests written after the rename)."""
        ino = Inotify()
        ino.watch(outbox, IN_CREATE | IN_MOVED_TO | IN_MODIFY)
        partial = f".{ident}.partial"
        entries, renamed, reached = set(), False, None
        pid = k.proc.pid
        try:
            self.touch.tap(*self.accept)
            t_tap = time.monotonic()
            deadline = t_tap + timeout
            if moment == "tap":
                reached = "tap"
            while reached is None and time.monotonic() < deadline:
                for path, mask, name in ino.events(deadline - time.monotonic()):
                    if path == outbox and name == partial and mask & IN_CREATE:
                        if moment == "partial":
                            reached = "partial"
                            break
                        ino.watch(os.path.join(outbox, partial), IN_CREATE | IN_MOVED_TO)
                        try:
                            entries |= set(os.listdir(os.path.join(outbox, partial)))   # before the watch
                        except FileNotFoundError:
                            pass
                    elif path == outbox and name == ident and mask & (IN_MOVED_TO | IN_CREATE):
                        renamed = True
                    elif path == outbox and name == ".requests" and mask & IN_MODIFY and renamed and moment == "recorded":
                        reached = "recorded"
                    elif path is not None and path.endswith(partial) and mask & (IN_CREATE | IN_MOVED_TO):
                        entries.add(name)
                    if moment == "first-file" and entries:
                        reached = "first-file"
                    elif moment == "last-file" and len(entries) >= 4:
                        reached = "last-file"
                    elif moment == "renamed" and renamed:
                        reached = "renamed"
                    if reached:
                        break
            os.kill(pid, signal.SIGKILL)
            t_kill = time.monotonic()
        finally:
            ino.close()
        k.proc.wait(timeout=10)
        k.gone()
        self.kiosk = None
        on_disk = {}
        for n in sorted(os.listdir(outbox)) if os.path.isdir(outbox) else []:
            p = os.path.join(outbox, n)
            on_disk[n] = sorted(os.listdir(p)) if os.path.isdir(p) else "file"
        return {"reached": reached or f"not seen in {timeout} s (killed then)", "after_tap_ms": ms(t_kill - t_tap),
                "at_kill": {n: v for n, v in on_disk.items() if n != ".requests"},
                "final_dir_at_kill": ident in on_disk}

    # -- all of it
    def run(self):
        result = {"binary": self.binary, "limits": {"nofile": NOFILE, "max_connections": MAX_CONNECTIONS,
                                                    "request_timeout": REQUEST_TIMEOUT, "max_request_line": MAX_REQUEST_LINE,
                                                    "max_header_bytes": MAX_HEADER_BYTES, "max_body_bytes": MAX_BODY_BYTES},
                  "phases": {}}
        result["selected"] = self.selected
        for name, phase, need in (("kill", self.kills, 60), ("load", self.load, 60), ("malformed", self.malformed, 40),
                                  ("flood", self.flood, 40), ("access", self.accesses, 25), ("lockout", self.lockout, 60)):
            if name not in self.selected:
                continue
            if self.left() < need:
                result["phases"][name] = f"skipped: {self.left():.0f} s of the budget left"
                say(f"{name}: skipped, out of time")
                continue
            t = time.monotonic()
            say(f"{name}: start ({self.left():.0f} s of the budget left)")
            found = {}
            try:
                phase(found)
                result["phases"][name] = "done"
            except (Exception, SystemExit) as e:   # a probe that failed leaves its reason, and the others run
                found["failed"] = result["phases"][name] = f"{type(e).__name__}: {e}"
                say(f"{name}: failed: {e}")
                if self.kiosk is not None:
                    try:
                        self.kiosk.killed()
                    except Exception:
                        pass
                    self.kiosk = None
            found["phase_s"] = round(time.monotonic() - t, 1)
            save(name, found)
            say(f"{name}: done in {time.monotonic() - t:.0f} s")
        result["seconds"] = round(time.monotonic() - self.started, 1)
        save("run", result)
        say(f"all done in {result['seconds']} s: {result['phases']}")


def readline(proc, timeout):
    """A helper's first line ("ready"), waiting at most timeout s."""
    r, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline().decode().strip() if r else f"nothing in {timeout} s"


def session_api_probes(binary, pen, touch, selected=PHASES):
    """The probes (all, or those named in `selected`), each on kiosks of its own."""
    unknown = set(selected) - set(PHASES)
    if unknown:
        raise SystemExit(f"api-probes: no such probe {sorted(unknown)} (known: {', '.join(PHASES)})")
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
    # A last resort: a probe stuck past the budget (it should not be) loses its kiosk.
    probes = Probes(binary, pen, touch, selected)
    guard = threading.Timer(BUDGET + 90, lambda: probes.kiosk and probes.kiosk.proc.kill())
    guard.daemon = True
    guard.start()
    try:
        probes.run()
    finally:
        guard.cancel()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--load"]:
        load_main(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif sys.argv[1:2] == ["--prober"]:
        prober_main(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1:2] == ["--storm"]:
        storm_main(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        raise SystemExit(__doc__)
