# SPDX-License-Identifier: Apache-2.0
"""Host checks of the signature and classroom sessions (check.py calls `check_modes`)."""
import glob
import hashlib
import json
import os
import stat
import subprocess
import xml.etree.ElementTree as ET

from PIL import Image


def red_banner(im):
    """A red warning line in the band above the screen's bottom edge (the screens' warnings)."""
    w, h = im.size
    hits = sum(1 for x in range(100, w - 100, 20) for y in range(h - 70, h - 20, 10)
               if (lambda p: p[0] > 150 and p[1] < 60 and p[2] < 60)(im.getpixel((x, y))))
    return hits > 20


def api(work, name):
    path = os.path.join(work, f"api-{name}.json")
    if not os.path.exists(path):
        return 0, {}, path
    r = json.load(open(path))
    return r["code"], r["body"] or {}, path


def check_modes(work, shot, check, px, along, ink_count, darkness, W, H):
    # --- signature kiosk, driven by a host with curl ----------------------------------------
    im, p = shot("signature-idle")
    if im:
        check(ink_count(im, (*px(0.35, 0.45), *px(0.65, 0.55))) > 100 and ink_count(im, (0, H - 80, W, H)) == 0,
              "signature, no request yet: the screen says to wait and shows no buttons", p)
    code, body, p = api(work, "start")
    check(code == 201 and body.get("state") == "waiting", f"POST /signatures starts a capture (HTTP {code}, {body.get('state')})", p)
    code, body, p = api(work, "busy")
    check(code == 409, f"a second request while one is waiting is refused (HTTP {code})", p)
    im, p = shot("signature-request")
    if im:
        check(ink_count(im, (*px(0.3, 0.82), *px(0.7, 0.88))) > 100, "the host's prompt is under the signature line", p)
        check(sum(1 for x in range(0, W, 8) if darkness(im, x, H - 36) > 0.04) > 60,
              "Cancel, Clear and Accept buttons along the bottom", p)
    im, p = shot("signature-refused")
    if im:
        check(ink_count(im, (*px(0.3, 0.0), *px(0.7, 0.1))) > 500, "Accept without a signature is refused, with a message", p)
    im, p = shot("signature-signed")
    if im:
        check(ink_count(im, (*px(0.25, 0.4), *px(0.76, 0.6))) > 1000,
              "the signature is drawn", p)
    im, p = shot("signature-accepted")
    if im:
        left, right = ink_count(im, (*px(0.2, 0.4), *px(0.42, 0.6))), ink_count(im, (*px(0.58, 0.4), *px(0.8, 0.6)))
        check(left + right == 0, f"after Accept the signature is gone from the screen ({left + right} dark pixels left)", p)
    code, body, p = api(work, "accepted")
    files = (body or {}).get("files") or {}
    check(code == 200 and body.get("state") == "accepted" and files.get("samples", 0) > 30,
          f"the host's wait returns the accepted capture ({body.get('state')}, {files.get('samples')} samples)", p)
    ident = open(os.path.join(work, "api-id.txt")).read().strip() if os.path.exists(os.path.join(work, "api-id.txt")) else "?"
    # One directory per capture, renamed into place whole; hidden entries are the request record.
    root = os.path.join(work, "sig", "outbox")
    captures = sorted(n for n in os.listdir(root) if not n.startswith(".")) if os.path.isdir(root) else []
    check(captures == [ident], f"the outbox holds exactly one capture, in its own directory ({', '.join(captures)})", root)
    outbox = os.path.join(root, ident)
    if os.path.isdir(outbox):
        mode = stat.S_IMODE(os.stat(outbox).st_mode)
        check(mode == 0o700, f"the capture's directory has mode 0700 ({oct(mode)})", outbox)
    names = sorted(os.listdir(outbox)) if os.path.isdir(outbox) else []
    # Sealed by default: the profile names the session's key (modes.signature_keys), so the PNG,
    # SVG and InkML are stored only encrypted to it; the JSON, which holds no ink, stays plain.
    sealed = [f"{ident}.{x}.hpke" for x in ("png", "svg", "inkml")]
    check(names == sorted(sealed + [f"{ident}.json"]),
          f"the capture's directory holds exactly its four files, the PNG, SVG and InkML encrypted ({', '.join(names)})", outbox)
    if len(names) == 4:
        modes = {n: stat.S_IMODE(os.stat(os.path.join(outbox, n)).st_mode) for n in names}
        check(all(m == 0o600 for m in modes.values()), f"each file has mode 0600 ({set(oct(m) for m in modes.values())})", outbox)
        meta = json.load(open(os.path.join(outbox, f"{ident}.json")))
        sums_ok = all(hashlib.sha256(open(os.path.join(outbox, n), "rb").read()).hexdigest() == h
                      for n, h in meta.get("sha256", {}).items())
        check(sums_ok and sorted(meta.get("sha256", {})) == sorted(sealed),
              "the JSON's SHA-256 sums match the encrypted PNG, SVG and InkML", outbox)
        heads = {n: open(os.path.join(outbox, n), "rb").read() for n in sealed if os.path.exists(os.path.join(outbox, n))}
        plain_bytes = [n for n, b in heads.items() if b"\x89PNG" in b or b"<svg" in b or b"<ink" in b]
        encryption = meta.get("encryption") or {}
        check(len(heads) == 3 and all(b.startswith(b"INKSEAL\0") for b in heads.values()) and not plain_bytes
              and encryption.get("recipient") == files.get("encryptedTo") and encryption.get("files") == sealed,
              f"the outbox holds no plain ink: each file is an inkkiosk sealed file, none shows a PNG, SVG or InkML "
              f"({plain_bytes or 'none'}); the JSON and the host's answer name the key ({encryption.get('recipient')})", outbox)
        download = os.path.join(work, "api-download.png.hpke")
        got = hashlib.sha256(open(download, "rb").read()).hexdigest() if os.path.exists(download) else None
        check(got == meta.get("sha256", {}).get(f"{ident}.png.hpke"),
              "GET /signatures/{id}/png returns the outbox's encrypted PNG, byte for byte", download)
        check(meta.get("device", "").startswith("Wacom"), f"the JSON names the pen ({meta.get('device')})", outbox)
        # The host side (modes.py): inkkiosk decrypt with the private key gives the plain files back.
        path = os.path.join(work, "sig-decrypt.json")
        opened = json.load(open(path)) if os.path.exists(path) else {"status": None, "stderr": "not run"}
        plain = os.path.join(work, "sig-plain")
        got = sorted(os.listdir(plain)) if os.path.isdir(plain) else []
        check(opened["status"] == 0 and got == sorted(f"{ident}.{x}" for x in ("png", "svg", "inkml")),
              f"inkkiosk decrypt opens them with the session's private key ({opened['status']}: {', '.join(got)} "
              f"{opened.get('stderr', '').strip()[:200]})", path)
        if len(got) == 3:
            ink = ET.parse(os.path.join(plain, f"{ident}.inkml")).getroot()
            traces = [t for t in ink.iter() if t.tag.endswith("trace")]
            samples = sum(len(t.text.strip().split(",")) for t in traces if t.text)
            check(samples == meta.get("samples") and samples > 30,
                  f"the InkML has every sample ({samples}, the JSON says {meta.get('samples')})", plain)
            png = Image.open(os.path.join(plain, f"{ident}.png"))
            check(png.mode == "RGBA" and png.getpixel((0, 0))[3] == 0 and png.width < W * 0.7,
                  f"the PNG is transparent and cropped to the ink ({png.width}x{png.height})", plain)
    code, body, p = api(work, "timedout")
    check(body.get("state") == "timed-out", f"a request nobody finishes times out ({body.get('state')}, {body.get('reason')})", p)
    im, p = shot("signature-timedout")
    if im:
        check(not any(along(im, 0.45, 0.32, 0.58)), "and its ink is cleared", p)
    code, body, p = api(work, "cancelled")
    check(code == 200 and body.get("state") == "cancelled", f"DELETE cancels a request ({code}, {body.get('state')})", p)
    code, body, p = api(work, "badrequest")
    check(code == 400 and "timeout" in json.dumps(body), f"a bad request gets 400 naming the field ({code}, {body})", p)

    # --- the journal's disk fills up -------------------------------------------------------
    im, p = shot("disk-full")
    if im:
        check(all(along(im, 0.3, 0.22, 0.78)) and red_banner(im), "disk full: the stroke is drawn and a red warning says so", p)
    log = os.path.join(work, "session8.log")
    text = open(log).read() if os.path.exists(log) else ""
    check("No space left on device" in text and "ink is being saved again" in text,
          "the kiosk logs the full disk, and saving again once there is room", log)
    im, p = shot("disk-freed")
    if im:
        check(all(along(im, 0.45, 0.22, 0.78)) and not red_banner(im), "with room again the warning is gone", p)
    im, p = shot("disk-restored")
    if im:
        check(all(along(im, 0.3, 0.22, 0.78)) and all(along(im, 0.45, 0.22, 0.78)),
              "after kill -9 both strokes are back, the one drawn while the disk was full too", p)

    # --- classroom tablet: tools, pages, kill -9, save ---------------------------------------
    def yellow(im, y):
        x, yy = px(0.5, y)
        r, g, b = im.getpixel((x, yy))
        return r > 200 and g > 190 and b < 190

    im, p = shot("classroom-page1")
    if im:
        check(ink_count(im, (0, 0, W, 50)) > 300, "the classroom toolbar is on screen", p)
        check(all(along(im, 0.5, 0.22, 0.78)) and yellow(im, 0.6), "page 1: a pen stroke, and a highlighter stroke chosen by finger", p)
    im, p = shot("classroom-page2")
    if im:
        check(not any(along(im, 0.5, 0.22, 0.78)) and all(along(im, 0.7, 0.22, 0.78)), "New page: a blank page that takes ink", p)
    im, p = shot("classroom-restored")
    if im:
        check(all(along(im, 0.7, 0.22, 0.78)) and not any(along(im, 0.5, 0.22, 0.78)),
              "after kill -9 and a restart, page 2 is back, on screen as before", p)
    im, p = shot("classroom-restored-page1")
    if im:
        check(all(along(im, 0.5, 0.22, 0.78)) and yellow(im, 0.6) and not any(along(im, 0.7, 0.22, 0.78)),
              "and page 1 is back too, with both its strokes", p)
    saved = sorted(glob.glob(os.path.join(work, "class", "saved", "notebook-*")))
    pngs = [s for s in saved if s.endswith(".png")]
    pdfs = [s for s in saved if s.endswith(".pdf")]
    check(len(pngs) == 2 and len(pdfs) == 1, f"Save writes a PNG per page and one PDF ({[os.path.basename(s) for s in saved]})",
          os.path.join(work, "class", "saved"))
    if pdfs:
        info = subprocess.run(["pdfinfo", pdfs[0]], capture_output=True, text=True).stdout
        pages = [l.split()[-1] for l in info.splitlines() if l.startswith("Pages:")]
        check(pages == ["2"], f"the PDF has both pages ({pages})", pdfs[0])
    im, p = shot("classroom-confirm")
    if im:
        check(darkness(im, 20, H // 2) > 0.2 and darkness(im, W // 2, H // 2 + 10) < 0.05,
              "Clear asks first: a dialog over the dimmed page", p)
