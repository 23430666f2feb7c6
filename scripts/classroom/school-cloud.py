#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A school's cloud for the tests: WsgiDAV (PyPI) serving folders at Nextcloud's WebDAV paths over
TLS, with a small stand-in for Nextcloud's Login Flow v2 and remote wipe.

    python3 scripts/classroom/school-cloud.py venv               # makes the virtualenv if missing; prints its python
    python3 scripts/classroom/school-cloud.py serve DIR [--port N] [--address IP]… [--ca-dir CA_DIR] [--plain]
    python3 scripts/classroom/school-cloud.py grant DIR          # a teacher logs in on the open login flow
    python3 scripts/classroom/school-cloud.py wipe DIR LOGIN      # an admin asks for the device's wipe
    python3 scripts/classroom/school-cloud.py stats DIR           # the server's counts, JSON
    python3 scripts/classroom/school-cloud.py hold DIR            # the next upload's answer never comes
    python3 scripts/classroom/school-cloud.py supervise DIR --control CTL_DIR [serve's options]

`serve` makes DIR/files/<login>/… (the accounts' homes), a certificate for 127.0.0.1 (and
--address) issued by CA_DIR's CA or by one of its own (fleet-server.py's), and runs until stopped;
DIR/server.json says where (url, ca, pid) once it answers. --plain: http on 127.0.0.1 (a
loopback test of the client's rules). Its WebDAV is WsgiDAV's, with what Nextcloud does that
the tablet relies on:

- `/remote.php/dav/files/<login>/` with HTTP Basic and the app passwords the login flow issued;
  `/public.php/webdav/` with a share's token as user and its password;
- a folder's ETag changes when anything in it changes (WsgiDAV has none for folders), a file's
  is its content's digest;
- an upload goes to a hidden part file and is renamed into place when complete (a cut upload
  leaves nothing under the name), `If-Match` on a missing file is 412;
- POST /index.php/login/v2 starts a flow; `grant` stands for the teacher's login in a browser;
  the poll answers 404 until then, the app password once, then 404 again;
- POST /index.php/core/wipe/check answers {"wipe": true} for a password an admin marked (`wipe`),
  which no longer opens WebDAV (401), and /index.php/core/wipe/success records the wipe.

Not imitated: Nextcloud's share permissions and file-drop renaming, its chunked uploads, its
checksums, quotas, locking, the login page itself, OCS, brute-force throttling.

`supervise` is `serve` for a VM proof, whose guest shares a work directory with the host but not
its loopback: the guest writes a file CTL_DIR/<n>-<command> (grant, hold, stats, wipe: the
argument in the file; stop: the server killed, as a power cut ends it; start: started again on
the same port; end), the answer appears as CTL_DIR/<n>-<command>.done (JSON).

WsgiDAV lives in a virtualenv in the cache, made when missing: $INKKIOSK_CACHE/school-cloud
(default ~/.cache/inkkiosk).
"""
import argparse
import hashlib
import importlib.util
import json
import os
import secrets
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))  # the harness's shared modules
import cache  # noqa: E402

WSGIDAV = "wsgidav==4.4.0"
CHEROOT = "cheroot==11.1.2"
VENV = cache.path("school-cloud")
ACCOUNTS = ("tablet-07", "tablet-08", "teacher")
SHARE_TOKEN = "Class7bShare"
SHARE_PASSWORD = "share-password-7b"


def log(message):
    print(f"school-cloud: {message}", file=sys.stderr, flush=True)


def ensure_venv():
    python = os.path.join(VENV, "bin", "python")
    check = [python, "-c", "import importlib.metadata as m; assert m.version('wsgidav') == '4.4.0'; import cheroot"]
    if os.path.exists(python) and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    log(f"installing {WSGIDAV} {CHEROOT} (PyPI) into {VENV}")
    subprocess.run(["rm", "-rf", VENV], check=True)
    subprocess.run(["/usr/bin/python3", "-m", "venv", VENV], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", WSGIDAV, CHEROOT], check=True)
    return python


def fleet_server():
    spec = importlib.util.spec_from_file_location("ik_fleet_server", os.path.join(HERE, "..", "image", "fleet-server.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- the server (in the venv)

class Accounts:
    """App passwords by login, the open login flows, the wipes asked for; counts for `stats`. Kept
    in DIR/accounts.json, so that a server stopped and started again knows its devices (as
    Nextcloud's database does)."""

    def __init__(self, directory):
        self.directory = directory
        self.lock = threading.Lock()
        self.passwords = {}      # app password -> login
        self.flows = {}          # poll token -> {"granted": login or None, "delivered": bool}
        self.wipe_asked = set()  # app passwords
        self.hold_next_put = False
        self.put_ms = []         # each PUT's time in the server, request to answer (the load check's server side)
        self.puts_now = self.puts_peak = 0
        self.counts = {"put": 0, "put_412": 0, "propfind": 0, "get": 0, "wiped": 0, "polls": 0}
        path = os.path.join(directory, "accounts.json")
        if os.path.exists(path):
            with open(path) as f:
                kept = json.load(f)
            self.passwords, self.flows = kept["passwords"], kept["flows"]
            self.wipe_asked, self.counts = set(kept["wipe_asked"]), kept["counts"]

    def save(self):
        with open(os.path.join(self.directory, "accounts.json.new"), "w") as f:
            json.dump({"passwords": self.passwords, "flows": self.flows, "wipe_asked": sorted(self.wipe_asked),
                       "counts": self.counts}, f)
        os.replace(os.path.join(self.directory, "accounts.json.new"), os.path.join(self.directory, "accounts.json"))


def make_app(directory, base_url):
    from wsgidav import util
    from wsgidav.fs_dav_provider import FileResource, FilesystemProvider, FolderResource
    from wsgidav.wsgidav_app import WsgiDAVApp

    def content_etag(self):
        digest = hashlib.sha256()
        with open(self._file_path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()[:32]

    def folder_etag(self):
        state = hashlib.sha256()
        for root, dirs, files in os.walk(self._file_path):
            dirs.sort()
            for name in sorted(files):
                if name.startswith("."):
                    continue
                info = os.stat(os.path.join(root, name))
                state.update(f"{os.path.relpath(os.path.join(root, name), self._file_path)}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
        return state.hexdigest()[:32]

    def hidden_members(original):
        def get_member_names(self):
            return [n for n in original(self) if not n.startswith(".")]
        return get_member_names

    class PartWriter:
        """Writes to a hidden part file; renamed over the real name only when the body is whole."""

        def __init__(self, final):
            self.final = final
            self.part = os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.part-{secrets.token_hex(4)}")
            self.file = open(self.part, "wb")

        def write(self, data):
            return self.file.write(data)

        def close(self):
            self.file.close()

    def begin_write(self, *, content_type=None):
        self._writer = PartWriter(self._file_path)
        return self._writer

    def end_write(self, *, with_errors):
        writer = getattr(self, "_writer", None)
        if writer is None:
            return
        if with_errors:
            os.unlink(writer.part)
        else:
            with open(writer.part, "rb") as f:
                os.fsync(f.fileno())
            os.replace(writer.part, writer.final)
        self._writer = None

    class PendingFile(FileResource):
        """A new file's resource before its body is whole: nothing under its name yet."""

        def __init__(self, path, environ, final):
            self._final_path = final
            super().__init__(path, environ, os.path.dirname(final))  # stat of the folder, replaced below
            self._file_path = final
            self.name = os.path.basename(final)

        def get_content_length(self):
            return 0

        def get_etag(self):
            return content_etag(self) if os.path.exists(self._file_path) else None

    def create_empty_resource(self, name):
        path = util.join_uri(self.path, name)
        return PendingFile(path, self.environ, self.provider._loc_to_file_path(path, self.environ))

    FileResource.get_etag = content_etag
    FileResource.begin_write = begin_write
    FileResource.end_write = end_write
    FolderResource.get_etag = folder_etag
    FolderResource.get_member_names = hidden_members(FolderResource.get_member_names)
    FolderResource.create_empty_resource = create_empty_resource

    accounts = Accounts(directory)
    files = os.path.join(directory, "files")
    # Every account sees the same home: the class folder is the teacher's, shared with the tablets.
    mounts = {f"/remote.php/dav/files/{login}": FilesystemProvider(os.path.join(files, "home")) for login in ACCOUNTS}
    mounts["/public.php/webdav"] = FilesystemProvider(os.path.join(files, "home", "Class 7b"))
    dav = WsgiDAVApp({
        "provider_mapping": mounts,
        "http_authenticator": {"domain_controller": None, "accept_basic": True, "accept_digest": False, "default_to_digest": False},
        "simple_dc": {"user_mapping": {"*": True}},
        "verbose": 1,
        "logging": {"enable": False},
        "property_manager": True,
        "lock_storage": True,
        "dir_browser": {"enable": False},
    })

    def answer(start_response, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        start_response(status, [("Content-Type", content_type), ("Content-Length", str(len(data)))])
        return [data]

    def form(environ):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        return urllib.parse.parse_qs(environ["wsgi.input"].read(length).decode())

    def basic(environ):
        header = environ.get("HTTP_AUTHORIZATION", "")
        if not header.startswith("Basic "):
            return None, None
        import base64
        try:
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except Exception:
            return None, None
        return user, password

    def app(environ, start_response):
        path = environ.get("PATH_INFO", "")
        method = environ["REQUEST_METHOD"]
        if path == "/index.php/login/v2" and method == "POST":
            token = secrets.token_urlsafe(32)
            with accounts.lock:
                accounts.flows[token] = {"granted": None, "delivered": False}
                accounts.save()
            return answer(start_response, "200 OK", {
                "poll": {"token": token, "endpoint": f"{base_url}/index.php/login/v2/poll"},
                "login": f"{base_url}/index.php/login/v2/flow/{token[:16]}"})
        if path == "/index.php/login/v2/poll" and method == "POST":
            token = (form(environ).get("token") or [""])[0]
            with accounts.lock:
                accounts.counts["polls"] += 1
                accounts.save()
                flow = accounts.flows.get(token)
                if not flow or not flow["granted"] or flow["delivered"]:
                    return answer(start_response, "404 Not Found", {})
                flow["delivered"] = True
                password = secrets.token_urlsafe(48)
                accounts.passwords[password] = flow["granted"]
                accounts.save()
            return answer(start_response, "200 OK", {"server": base_url, "loginName": flow["granted"], "appPassword": password})
        if path == "/_test/grant" and method == "POST":
            login = (form(environ).get("login") or ["tablet-07"])[0]
            with accounts.lock:
                open_flows = [f for f in accounts.flows.values() if not f["granted"]]
                for flow in open_flows:
                    flow["granted"] = login
                accounts.save()
            return answer(start_response, "200 OK", {"granted": len(open_flows)})
        if path == "/_test/wipe" and method == "POST":
            login = (form(environ).get("login") or [""])[0]
            with accounts.lock:
                marked = [p for p, who in accounts.passwords.items() if who == login]
                accounts.wipe_asked.update(marked)
                accounts.save()
            return answer(start_response, "200 OK", {"marked": len(marked)})
        if path == "/_test/hold-next-put" and method == "POST":
            with accounts.lock:
                accounts.hold_next_put = True
            return answer(start_response, "200 OK", {})
        if path == "/_test/stats":
            with accounts.lock:
                times = sorted(accounts.put_ms)
                at = (lambda q: round(times[min(len(times) - 1, round(q * (len(times) - 1)))], 1) if times else None)
                return answer(start_response, "200 OK", dict(accounts.counts, flows=len(accounts.flows), put_ms_median=at(0.5),
                                                             put_ms_p99=at(0.99), put_ms_max=at(1.0), puts_at_once_max=accounts.puts_peak))
        if path in ("/index.php/core/wipe/check", "/index.php/core/wipe/success") and method == "POST":
            token = (form(environ).get("token") or [""])[0]
            with accounts.lock:
                if token not in accounts.wipe_asked:
                    return answer(start_response, "404 Not Found", {})
                if path.endswith("/success"):
                    accounts.wipe_asked.discard(token)
                    accounts.passwords.pop(token, None)
                    accounts.counts["wiped"] += 1
                    accounts.save()
                    return answer(start_response, "200 OK", {})
            return answer(start_response, "200 OK", {"wipe": True})
        user, password = basic(environ)
        if path.startswith("/remote.php/dav/files/"):
            login = path.split("/")[4] if len(path.split("/")) > 4 else ""
            with accounts.lock:
                ok = accounts.passwords.get(password) == login == user and password not in accounts.wipe_asked
        elif path.startswith("/public.php/webdav"):
            ok = user == SHARE_TOKEN and password == SHARE_PASSWORD
        else:
            return answer(start_response, "404 Not Found", {})
        if not ok:
            start_response("401 Unauthorized", [("WWW-Authenticate", 'Basic realm="Nextcloud"'), ("Content-Length", "0")])
            return [b""]
        with accounts.lock:
            key = method.lower()
            if key in accounts.counts:
                accounts.counts[key] += 1
                accounts.save()
        if method == "PUT" and "HTTP_IF_MATCH" in environ:
            # Nextcloud: If-Match on a file that is not there fails; WsgiDAV would create it.
            mount = next(m for m in mounts if path.startswith(m + "/"))
            target = mounts[mount]._loc_to_file_path(path[len(mount):], environ)
            if not os.path.exists(target):
                with accounts.lock:
                    accounts.counts["put_412"] += 1
                    accounts.save()
                return answer(start_response, "412 Precondition Failed", {})

        def counting(status, headers, exc_info=None):
            if method == "PUT" and status.startswith("412"):
                with accounts.lock:
                    accounts.counts["put_412"] += 1
                    accounts.save()
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)
        # WsgiDAV's answer is a generator: the request is carried out as it is read.
        began = time.monotonic()
        if method == "PUT":
            with accounts.lock:
                accounts.puts_now += 1
                accounts.puts_peak = max(accounts.puts_peak, accounts.puts_now)
        try:
            body = list(dav(environ, counting))
        finally:
            if method == "PUT":
                with accounts.lock:
                    accounts.puts_now -= 1
                    accounts.put_ms.append((time.monotonic() - began) * 1000)
        if method == "PUT":
            with accounts.lock:
                hold, accounts.hold_next_put = accounts.hold_next_put, False
            if hold:
                # The file is in place; its answer never leaves (the server is stopped meanwhile).
                with open(os.path.join(directory, "held"), "w") as f:
                    f.write(path)
                threading.Event().wait()
        return body

    return app


def serve_in_venv(config_path):
    from cheroot import wsgi
    from cheroot.ssl.builtin import BuiltinSSLAdapter
    with open(config_path) as f:
        config = json.load(f)
    app = make_app(config["directory"], config["url"])
    server = wsgi.Server(("127.0.0.1", config["port"]), app, numthreads=40, request_queue_size=64)
    if config.get("cert"):
        server.ssl_adapter = BuiltinSSLAdapter(config["cert"], config["key"])
    server.prepare()
    with open(config["ready"], "w") as f:
        f.write(str(os.getpid()))
    server.serve()


# ---------------------------------------------------------------- the host side

def prepare_files(directory):
    """The class folder every account sees (the teacher's, shared with the tablets)."""
    for sub in ("Hand-out", "Hand-in", "Returned"):
        os.makedirs(os.path.join(directory, "files", "home", "Class 7b", sub), exist_ok=True)


def start(directory, port=None, addresses=("127.0.0.1",), ca_dir=None, plain=False, public_host=None):
    python = ensure_venv()
    os.makedirs(directory, exist_ok=True)
    prepare_files(directory)
    port = port or fleet_server().free_port()
    host = public_host or addresses[0]
    config = {"directory": directory, "port": port, "ready": os.path.join(directory, "ready")}
    if plain:
        config["url"] = f"http://127.0.0.1:{port}"
        ca = None
    else:
        ca, key, cert = fleet_server().make_tls(directory, ca_dir, addresses)
        config.update(cert=cert, key=key, url=f"https://{host}:{port}")
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(config, f)
    if os.path.exists(config["ready"]):
        os.unlink(config["ready"])
    logfile = open(os.path.join(directory, "server.log"), "a")
    process = subprocess.Popen([python, os.path.abspath(__file__), "_serve", os.path.join(directory, "config.json")],
                               cwd=directory, stdout=logfile, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not os.path.exists(config["ready"]):
        if process.poll() is not None:
            raise SystemExit(f"school-cloud: the server ended with {process.returncode}; its log: {directory}/server.log")
        if time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"school-cloud: the server was not ready within 60 s; its log: {directory}/server.log")
        time.sleep(0.05)
    info = {"url": config["url"], "local": f"{'http' if plain else 'https'}://127.0.0.1:{port}", "ca": ca,
            "pid": process.pid, "port": port, "class": os.path.join(directory, "files", "home", "Class 7b"),
            "share": f"{config['url']}/s/{SHARE_TOKEN}", "share_password": SHARE_PASSWORD}
    with open(os.path.join(directory, "server.json"), "w") as f:
        json.dump(info, f)
    log(f"WsgiDAV at {info['url']} (the class folder: {info['class']}); log {directory}/server.log")
    return process, info


def test_request(directory, path, fields):
    import ssl
    import urllib.request
    with open(os.path.join(directory, "server.json")) as f:
        info = json.load(f)
    context = ssl.create_default_context(cafile=info["ca"]) if info["ca"] else None
    req = urllib.request.Request(info["local"] + path, data=urllib.parse.urlencode(fields).encode(), method="POST")
    if context:
        context.check_hostname = False
    with urllib.request.urlopen(req, context=context, timeout=30) as answer:
        return json.loads(answer.read())


def supervise(directory, control, port, addresses, ca_dir, public_host, timeout):
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))   # the server goes with us (finally)
    os.makedirs(control, exist_ok=True)
    process, info = start(directory, port, addresses, ca_dir, False, public_host)
    print(json.dumps(info), flush=True)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            asked = sorted(n for n in os.listdir(control) if not n.startswith(".") and not n.endswith(".done"))
            if not asked:
                time.sleep(0.1)   # a test harness's poll: the guest has no other way to reach us
                continue
            name = asked[0]
            path = os.path.join(control, name)
            with open(path) as f:
                argument = f.read().strip()
            os.unlink(path)
            command = name.partition("-")[2]
            try:
                if command == "grant":
                    answer = test_request(directory, "/_test/grant", {"login": argument or "tablet-07"})
                elif command == "wipe":
                    answer = test_request(directory, "/_test/wipe", {"login": argument})
                elif command == "hold":
                    answer = test_request(directory, "/_test/hold-next-put", {})
                elif command == "stats":
                    answer = test_request(directory, "/_test/stats", {})
                elif command == "stop":
                    process.kill()
                    answer = {"stopped": process.wait()}
                elif command == "start":
                    process, _ = start(directory, info["port"], addresses, ca_dir, False, public_host)
                    answer = {"started": process.pid}
                elif command == "end":
                    break
                else:
                    answer = {"error": f"unknown command {command!r}"}
            except (OSError, SystemExit) as e:
                answer = {"error": str(e)}
            log(f"{command} {argument}: {json.dumps(answer)}")
            with open(path + ".tmp", "w") as f:
                json.dump(answer, f)
            os.rename(path + ".tmp", path + ".done")
    finally:
        process.kill()
        process.wait()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "_serve":
        serve_in_venv(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("venv")
    p = sub.add_parser("serve")
    p.add_argument("dir")
    p.add_argument("--port", type=int)
    p.add_argument("--address", action="append", default=[])
    p.add_argument("--ca-dir")
    p.add_argument("--public-host", help="the host name or address the tablets use in URLs")
    p.add_argument("--plain", action="store_true")
    p = sub.add_parser("supervise")
    p.add_argument("dir")
    p.add_argument("--control", required=True)
    p.add_argument("--port", type=int)
    p.add_argument("--address", action="append", default=[])
    p.add_argument("--ca-dir")
    p.add_argument("--public-host")
    p.add_argument("--timeout", type=float, default=3600, help="ends after this many seconds whatever happens")
    p = sub.add_parser("grant")
    p.add_argument("dir")
    p.add_argument("--login", default="tablet-07")
    p = sub.add_parser("wipe")
    p.add_argument("dir")
    p.add_argument("login")
    p = sub.add_parser("stats")
    p.add_argument("dir")
    p = sub.add_parser("hold")
    p.add_argument("dir")
    args = parser.parse_args()
    if args.command == "venv":
        print(ensure_venv())
    elif args.command == "serve":
        process, info = start(os.path.abspath(args.dir), args.port, tuple(["127.0.0.1"] + args.address),
                              args.ca_dir, args.plain, args.public_host)
        print(json.dumps(info), flush=True)
        try:
            sys.exit(process.wait())
        except KeyboardInterrupt:
            process.terminate()
    elif args.command == "supervise":
        supervise(os.path.abspath(args.dir), os.path.abspath(args.control), args.port,
                  tuple(["127.0.0.1"] + args.address), args.ca_dir, args.public_host, args.timeout)
    elif args.command == "grant":
        print(json.dumps(test_request(args.dir, "/_test/grant", {"login": args.login})))
    elif args.command == "wipe":
        print(json.dumps(test_request(args.dir, "/_test/wipe", {"login": args.login})))
    elif args.command == "hold":
        print(json.dumps(test_request(args.dir, "/_test/hold-next-put", {})))
    elif args.command == "stats":
        print(json.dumps(test_request(args.dir, "/_test/stats", {})))


if __name__ == "__main__":
    main()
