#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A fleet server for the tests: goosebit (PyPI), which speaks Eclipse hawkBit's DDI API, on
127.0.0.1 over TLS, with a fresh database in a directory of its own.

    python3 scripts/image/fleet-server.py serve DIR [--port N] [--poll 00:00:05] [--ca-dir CA_DIR] [--address IP]…
    python3 scripts/image/fleet-server.py ca CA_DIR                   # makes the TLS CA once; prints ca.pem's path
    python3 scripts/image/fleet-server.py upload DIR BUNDLE            # prints the software's id
    python3 scripts/image/fleet-server.py enroll DIR DEVICE TOKEN       # the device and its target token
    python3 scripts/image/fleet-server.py assign DIR DEVICE SOFTWARE
    python3 scripts/image/fleet-server.py device DIR DEVICE            # the server's view, JSON

`serve` makes a certificate for 127.0.0.1 (and --address), issued by CA_DIR's CA (`ca`, made
once: what an image built with IMAGE_FLEET_CA trusts) or by a CA of its own (DIR/ca.pem), an admin user, the database's tables, and runs goosebit until it is stopped; the other
commands talk to it over its HTTP API as an operator would (DIR/server.json says where and how).
Devices must poll with their target token (goosebit's device_auth, strict): `enroll` creates the
device with its token. goosebit assigns software only to a device whose hardware matches the
bundle's compatible, which it learns from the device's attributes (hw_boardname): assign once the
device has polled and reported them.

goosebit lives in a virtualenv in the cache, made when missing:
$INKKIOSK_CACHE/goosebit/GOOSEBIT_VERSION (default ~/.cache/inkkiosk). Importable as a module
(scripts/image/fleet-host-test.py uses its functions).
"""
import argparse
import json
import os
import secrets
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))  # the harness's shared modules
import cache  # noqa: E402

GOOSEBIT_VERSION = "0.2.12"
VENV = cache.path("goosebit", GOOSEBIT_VERSION)
ADMIN = "admin@inkkiosk.test"

# Run by the venv's Python: the tables and the admin user, then goosebit under uvicorn with TLS.
# goosebit reads its settings from GOOSEBIT_* variables (pydantic-settings); it expects its tables
# made by its migrations (aerich), which Tortoise's generate_schemas makes as well for a fresh database.
BOOTSTRAP = r"""
import asyncio, os, sys
import uvicorn
from tortoise import Tortoise
from goosebit import app
from goosebit.db.config import TORTOISE_CONF
from goosebit.settings import PWD_CXT
from goosebit.users import create_initial_user

async def prepare():
    await Tortoise.init(config=TORTOISE_CONF)
    await Tortoise.generate_schemas()
    await create_initial_user(os.environ["IK_ADMIN"], PWD_CXT.hash(os.environ["IK_PASSWORD"]))
    await Tortoise.close_connections()

asyncio.run(prepare())
uvicorn.run(app, host="127.0.0.1", port=int(os.environ["GOOSEBIT_PORT"]), log_level="info",
            ssl_keyfile=os.environ["IK_KEY"], ssl_certfile=os.environ["IK_CERT"])
"""


def log(message):
    print(f"fleet-server: {message}", file=sys.stderr, flush=True)


def ensure_venv():
    """The venv's python, with goosebit installed (pip, once per version)."""
    python = os.path.join(VENV, "bin", "python")
    check = [python, "-c", f"import importlib.metadata as m; assert m.version('goosebit') == '{GOOSEBIT_VERSION}'"]
    if os.path.exists(python) and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    log(f"installing goosebit {GOOSEBIT_VERSION} (PyPI) into {VENV}")
    subprocess.run(["rm", "-rf", VENV], check=True)
    subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", f"goosebit=={GOOSEBIT_VERSION}"], check=True)
    return python


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def ensure_ca(ca_dir):
    """A CA for the fleet server's TLS in ca_dir (ca.pem, ca.key), made once and kept: an image
    built to trust it (IMAGE_FLEET_CA) trusts every server certificate issued under it later."""
    ca_key, ca = f"{ca_dir}/ca.key", f"{ca_dir}/ca.pem"
    if os.path.exists(ca) and os.path.exists(ca_key):
        return ca, ca_key
    os.makedirs(ca_dir, mode=0o700, exist_ok=True)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{ca_key}.new",
            "-out", f"{ca}.new", "-days", "3650", "-subj", "/O=inkkiosk development/CN=inkkiosk DEVELOPMENT fleet TLS CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    os.chmod(f"{ca_key}.new", 0o600)
    os.replace(f"{ca_key}.new", ca_key)
    os.replace(f"{ca}.new", ca)
    return ca, ca_key


def make_tls(directory, ca_dir=None, addresses=("127.0.0.1",)):
    """A certificate for `addresses` (server.pem, server.key) signed by the CA of ca_dir (made
    once, ensure_ca) or, without one, by a CA made for this server alone (directory/ca.pem)."""
    ca, ca_key = ensure_ca(ca_dir or directory)
    key, csr, cert = f"{directory}/server.key", f"{directory}/server.csr", f"{directory}/server.pem"
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", csr,
            "-subj", f"/CN={addresses[0]}")
    ext = f"{directory}/server.ext"
    with open(ext, "w") as f:
        f.write(f"subjectAltName={','.join('IP:' + a for a in addresses)}\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-CAserial", f"{directory}/ca.srl",
            "-out", cert, "-days", "2", "-extfile", ext)
    return ca, key, cert


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(directory, port=None, poll="00:00:05", tenant="DEFAULT", ca_dir=None, addresses=("127.0.0.1",)):
    """Starts goosebit in the background; returns (process, info) once it answers over TLS. Its
    certificate names `addresses` (a VM reaches the host at another one) and is issued by the CA
    of ca_dir, or by one made for this server alone."""
    python = ensure_venv()
    os.makedirs(directory, exist_ok=True)
    ca, key, cert = make_tls(directory, ca_dir, addresses)
    port = port or free_port()
    password = secrets.token_hex(16)
    env = dict(os.environ,
               GOOSEBIT_PORT=str(port), GOOSEBIT_TENANT=tenant, GOOSEBIT_POLL_TIME=poll,
               GOOSEBIT_DB_URI=f"sqlite:///{directory}/db.sqlite3", GOOSEBIT_ARTIFACTS_DIR=f"{directory}/artifacts",
               GOOSEBIT_SECRET_KEY=secrets.token_hex(32),
               GOOSEBIT_DEVICE_AUTH__ENABLE="true", GOOSEBIT_DEVICE_AUTH__MODE="strict",
               IK_ADMIN=ADMIN, IK_PASSWORD=password, IK_KEY=key, IK_CERT=cert)
    logfile = open(f"{directory}/goosebit.log", "w")
    # Its own working directory: goosebit would read a goosebit.yaml from the caller's.
    process = subprocess.Popen([python, "-c", BOOTSTRAP], cwd=directory, env=env, stdout=logfile, stderr=subprocess.STDOUT)
    info = {"url": f"https://127.0.0.1:{port}", "tenant": tenant, "ca": ca, "admin": ADMIN, "password": password,
            "pid": process.pid}
    with open(f"{directory}/server.json", "w") as f:
        json.dump(info, f)
    deadline = time.monotonic() + 120
    while True:
        if process.poll() is not None:
            raise SystemExit(f"fleet-server: goosebit ended with {process.returncode}; its log: {directory}/goosebit.log")
        try:
            Operator(info).login()
            break
        except (urllib.error.URLError, ConnectionError, OSError):
            if time.monotonic() > deadline:
                process.kill()
                raise SystemExit(f"fleet-server: goosebit did not answer within 120 s; its log: {directory}/goosebit.log")
            time.sleep(0.2)
    log(f"goosebit {GOOSEBIT_VERSION} at {info['url']} (tenant {tenant}, poll {poll}); log {directory}/goosebit.log")
    return process, info


class Operator:
    """goosebit's HTTP API, as an operator uses it: log in, upload, assign, look at a device."""

    def __init__(self, info):
        self.info = info
        self.context = ssl.create_default_context(cafile=info["ca"])
        self.token = None

    def request(self, method, path, body=None, content_type=None):
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if content_type:
            headers["Content-Type"] = content_type
        req = urllib.request.Request(self.info["url"] + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, context=self.context, timeout=60) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as e:
            raise SystemExit(f"fleet-server: {method} {path}: HTTP {e.code}: {e.read()[:300]!r}")

    def login(self):
        form = urllib.parse.urlencode({"username": self.info["admin"], "password": self.info["password"]}).encode()
        self.token = None
        self.token = self.request("POST", "/login", form, "application/x-www-form-urlencoded")["access_token"]
        return self

    def upload(self, bundle):
        """The bundle as goosebit's software (it reads the RAUC manifest's version and compatible): its id."""
        boundary = secrets.token_hex(12)
        with open(bundle, "rb") as f:
            data = f.read()
        name = os.path.basename(bundle)
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        return self.request("PUT", "/api/v1/software", body, f"multipart/form-data; boundary={boundary}")["id"]

    def enroll(self, device, token):
        """Creates the device with its target token."""
        body = json.dumps({"devices": [device], "auth_token": token}).encode()
        return self.request("PUT", "/api/v1/devices", body, "application/json")

    def assign(self, device, software, force=False):
        """Assigns the device the software (its hardware must match the software's compatible).
        `force`: also when the device is in state Error after a failed update, which goosebit
        otherwise offers nothing until an operator forces an update (its UI's "force update")."""
        body = {"devices": [device], "software": str(software)}
        if force:
            body["force_update"] = True
        body = json.dumps(body).encode()
        return self.request("PATCH", "/api/v1/devices", body, "application/json")

    def device(self, device):
        """The server's view: the device's state, version, progress and the feedback's log."""
        # The list, not /api/v1/devices/ID: goosebit 0.2.12 answers that one with a 500 once the
        # device has assigned software (its relation is not fetched before the schema reads it).
        views = [d for d in self.request("GET", "/api/v1/devices")["devices"] if d["id"] == device]
        if not views:
            raise SystemExit(f"fleet-server: no device {device}")
        view = views[0]
        log_view = self.request("GET", f"/api/v1/devices/{device}/log")
        return {"id": view["id"], "last_state": view["last_state"], "sw_version": view["sw_version"],
                "hardware": view.get("hardware"), "progress": log_view.get("progress"),
                "assigned_software": (view.get("assigned_software") or {}).get("version"),
                "log": (log_view.get("log") or "").splitlines()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve")
    serve.add_argument("dir")
    serve.add_argument("--port", type=int)
    serve.add_argument("--poll", default="00:00:05")
    serve.add_argument("--tenant", default="DEFAULT")
    serve.add_argument("--ca-dir", help="the CA to issue the server's certificate under (made there once)")
    serve.add_argument("--address", action="append", help="an IP address the certificate names (default 127.0.0.1)")
    ca = sub.add_parser("ca")
    ca.add_argument("dir")
    upload = sub.add_parser("upload")
    upload.add_argument("dir")
    upload.add_argument("bundle")
    enroll = sub.add_parser("enroll")
    enroll.add_argument("dir")
    enroll.add_argument("device")
    enroll.add_argument("token")
    assign = sub.add_parser("assign")
    assign.add_argument("dir")
    assign.add_argument("device")
    assign.add_argument("software")
    device = sub.add_parser("device")
    device.add_argument("dir")
    device.add_argument("device")
    args = parser.parse_args()
    if args.command == "serve":
        process, info = start(os.path.abspath(args.dir), args.port, args.poll, args.tenant, args.ca_dir,
                              tuple(args.address or ("127.0.0.1",)))
        print(json.dumps(info), flush=True)
        try:
            process.wait()
        except KeyboardInterrupt:
            process.terminate()
        return
    if args.command == "ca":
        print(ensure_ca(os.path.abspath(args.dir))[0])
        return
    with open(os.path.join(args.dir, "server.json")) as f:
        operator = Operator(json.load(f)).login()
    if args.command == "upload":
        print(operator.upload(args.bundle))
    elif args.command == "enroll":
        print(json.dumps(operator.enroll(args.device, args.token)))
    elif args.command == "assign":
        print(json.dumps(operator.assign(args.device, args.software)))
    elif args.command == "device":
        print(json.dumps(operator.device(args.device), indent=2))


if __name__ == "__main__":
    main()
