# SPDX-License-Identifier: Apache-2.0
"""Checks what the document session (documents.py) left: the API's answers, the screens a
signer saw, and the signed PDFs with independent tools (qpdf, pdftotext, pdftoppm, pdfsig,
pdfdetach, pyHanko), the sealed pen samples inside them opened with the host's key."""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from PIL import Image, ImageChops

from contract_pdf import FIELDS

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))  # the harness's shared modules
import cache  # noqa: E402


def answer(work, name):
    path = os.path.join(work, f"api-{name}.json")
    return json.load(open(path)) if os.path.exists(path) else {"code": 0, "body": None}


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120)


def page_changes(a, b, page, field):
    """Pixels of page `page` (72 dpi: a pixel is a point) that differ between PDFs a and b:
    (inside the field's rectangle, outside it)."""
    with tempfile.TemporaryDirectory() as d:
        images = []
        for i, pdf in enumerate((a, b)):
            run("pdftoppm", "-png", "-r", "72", "-f", str(page), "-l", str(page), "-singlefile", pdf, f"{d}/p{i}")
            if not os.path.exists(f"{d}/p{i}.png"):
                return 0, -1   # no page to compare: the check fails
            images.append(Image.open(f"{d}/p{i}.png").convert("L"))
    diff = ImageChops.difference(*images).point(lambda v: 255 if v > 24 else 0)
    x0, y0, x1, y1 = field
    h = images[0].height
    box = (int(x0) - 1, int(h - y1) - 1, int(x1) + 2, int(h - y0) + 2)
    inside = sum(1 for v in diff.crop(box).getdata() if v)
    return inside, sum(1 for v in diff.getdata() if v) - inside


def sealed_header_document(data):
    """The document hash a sealed file's header (format 2) binds, or None."""
    if not data.startswith(b"INKSEAL\0") or data[8] != 2:
        return None
    at = 8 + 1 + 6 + 32
    n = int.from_bytes(data[at:at + 2], "big")
    at += 2 + n
    n = int.from_bytes(data[at:at + 2], "big")
    return data[at + 2:at + 2 + n].hex()


def document_checks(work, binary, check, shot, ink_count):
    contract = os.path.join(work, "contract.pdf")
    original = open(contract, "rb").read() if os.path.exists(contract) else b""
    digest = hashlib.sha256(original).hexdigest()

    posted = answer(work, "doc-post")
    body = posted["body"] or {}
    fields = {f.get("name"): f for f in body.get("fields", [])}
    check(posted["code"] == 201 and body.get("sha256") == digest and body.get("pages") == 2,
          f"POST /documents: 201, the file's SHA-256 and 2 pages ({posted['code']}, {body.get('pages')})")
    check(set(fields) == set(FIELDS) and all(fields[n].get("page") == 2 and fields[n].get("signed") is False
                                             and [round(v) for v in fields[n].get("rect", [])] == list(FIELDS[n]) for n in FIELDS),
          f"its signature fields listed with their page and rectangle: {sorted(fields)}")
    for kind, says in (("shadow", ("more than one reading", "given twice", "at byte")),
                       ("values", ("more work to read", "document_objects"))):
        refused = answer(work, f"doc-hostile-{kind}")
        error = (refused["body"] or {}).get("error", "")
        check(refused["code"] == 422 and all(w in error for w in says),
              f"POST /documents of hostile_pdf.py {kind}: {refused['code']} (422 expected, naming {', '.join(says)}): {error[:240]}")
    started = answer(work, "doc-start")
    applied = (started["body"] or {}).get("document") or {}
    check(started["code"] == 201 and applied.get("review") == "all-pages" and applied.get("lock") == "certify-form-filling",
          f"POST /signatures on the document's field: 201, the review asked and the kiosk's lock named ({started['code']}, {applied})")

    # What the signer saw.
    first, p1 = shot("doc-review-1")
    if first:
        page = ink_count(first, (420, 80, 860, 360))
        check(page > 400, f"page 1 of the contract is shown while it is read ({page} dark pixels of its text)", p1)
    pen_on_page, p = shot("doc-review-pen")
    if first and pen_on_page:
        diff = ImageChops.difference(first, pen_on_page).crop((0, 80, 1280, 720)).getbbox()
        check(diff is None, f"the pen leaves no ink on a page being read (changed: {diff})", p)
    refused, p = shot("doc-review-refused")
    if refused:
        red = sum(1 for x in range(300, 980, 4) for y in (24, 60) if (lambda c: c[0] > 150 and c[1] < 90)(refused.getpixel((x, y))))
        check(red > 100, f"Sign before page 2 was read is refused with a warning banner ({red} red samples)", p)
    second, p2 = shot("doc-review-2")
    if first and second:
        check(ImageChops.difference(first, second).getbbox() is not None, "› turns to page 2", p2)
    view, p = shot("doc-signing-view")
    signed_view, ps = shot("doc-signed-on-screen")
    if view and signed_view:
        blue = sum(1 for x in range(16, 1264, 8) if view.getpixel((x, 222))[2] > 150 and view.getpixel((x, 222))[0] < 120)
        check(blue > 100, f"the signing view frames the field, enlarged to the screen's width ({blue} of 156 samples on its edge)", p)
        ink = ink_count(signed_view, (20, 226, 1260, 575)) - ink_count(view, (20, 226, 1260, 575))
        check(ink > 1500, f"the signature is drawn in the field as it is written ({ink} dark pixels)", ps)

    accepted = answer(work, "doc-accepted")["body"] or {}
    document = accepted.get("document") or {}
    check(accepted.get("state") == "accepted" and document.get("sha256") == digest and document.get("field") == "customer",
          f"accepted; the status names the document's SHA-256 and the field ({accepted.get('state')}, {document.get('field')})")

    signed1 = os.path.join(work, "signed-1.pdf")
    data1 = open(signed1, "rb").read() if os.path.exists(signed1) else b""
    # keep_signed_pdf = false: served from memory, never in the outbox; the record names it by its SHA-256.
    ident = open(os.path.join(work, "doc-id.txt")).read().strip() if os.path.exists(os.path.join(work, "doc-id.txt")) else "none"
    capture = os.path.join(work, "docs", "outbox", ident)
    names = sorted(os.listdir(capture)) if os.path.isdir(capture) else []
    record = json.load(open(os.path.join(capture, f"{ident}.json"))).get("document", {}) if f"{ident}.json" in names else {}
    check((accepted.get("files") or {}).get("pdf") is None and names and not any(n.endswith(".pdf") for n in names)
          and record.get("unkeptPdfSha256") == hashlib.sha256(data1).hexdigest() and record.get("lock") == "certify-form-filling",
          f"the signed PDF is not in the outbox ({names}); the capture's record names its SHA-256 and the lock", signed1)
    gone = answer(work, "doc-pdf-after-restart")
    check(gone["code"] == 410 and "keep_signed_pdf = false" in ((gone["body"] or {}).get("error") or ""),
          f"after a restart GET /signatures/ID/pdf is 410, saying why ({gone['code']})")
    check(len(data1) > len(original) > 0 and data1.startswith(original),
          f"GET /signatures/ID/pdf: the original's {len(original)} bytes unchanged, then the update ({len(data1)} bytes)", signed1)
    q = run("qpdf", "--check", signed1)
    check(q.returncode == 0, f"qpdf --check passes on the signed PDF ({q.stdout.strip().splitlines()[-1:] or q.stderr.strip()})", signed1)
    text = run("pdftotext", signed1, "-").stdout
    check("RENTAL CONTRACT" in text and "Signature of the hirer" in text, "pdftotext still finds the contract's text", signed1)
    inside, outside = page_changes(contract, signed1, 2, FIELDS["customer"])
    check(inside > 150 and outside == 0, f"pdftoppm: the ink is inside the field's rectangle ({inside} pixels) "
          f"and nowhere else ({outside} outside)", signed1)
    sig = run("pdfsig", signed1)
    print(sig.stdout.strip())
    check("Signature Validation: Signature is Valid." in sig.stdout,
          "pdfsig: the digital signature (PAdES, the device's certificate) is valid", signed1)

    # The pen samples travel in the PDF, sealed to the host's key and bound to the document.
    listing = run("pdfdetach", "-list", signed1).stdout
    check(".inkml.hpke" in listing, f"pdfdetach lists the sealed InkML: {listing.strip().splitlines()[-1:]}", signed1)
    with tempfile.TemporaryDirectory() as d:
        run("pdfdetach", "-save", "1", "-o", f"{d}/evidence.inkml.hpke", signed1)
        sealed = open(f"{d}/evidence.inkml.hpke", "rb").read() if os.path.exists(f"{d}/evidence.inkml.hpke") else b""
        check(sealed_header_document(sealed) == digest, "the sealed InkML's authenticated header binds the contract's SHA-256", signed1)
        os.rename(f"{d}/evidence.inkml.hpke", f"{d}/{ident}.inkml.hpke") if sealed else None
        opened = run(binary, "decrypt", "--key", os.path.join(work, "signature.key"), "--out", f"{d}/plain", f"{d}/{ident}.inkml.hpke")
        plain = os.path.join(d, "plain", f"{ident}.inkml")
        inkml = open(plain).read() if os.path.exists(plain) else ""
        check(opened.returncode == 0 and "<trace" in inkml,
              f"inkkiosk decrypt opens it with the host's key: {inkml.count('<trace')} traces ({opened.stderr.strip()[:200]})", signed1)

    # The second signer.
    signed2 = os.path.join(work, "signed-2.pdf")
    data2 = open(signed2, "rb").read() if os.path.exists(signed2) else b""
    reposted = answer(work, "doc2-post")["body"] or {}
    again = {f.get("name"): f.get("signed") for f in reposted.get("fields", [])}
    check(again == {"customer": True, "witness": False}, f"the signed PDF posted again: customer signed, witness not ({again})")
    started2 = answer(work, "doc2-start")
    applied2 = (started2["body"] or {}).get("document") or {}
    check(applied2.get("review") == "first-page" and applied2.get("lock") == "fields",
          f"the witness's request: no review asked, the kiosk's min_review applied; signed already, so its fields "
          f"are locked, not certified ({applied2.get('review')}, {applied2.get('lock')})")
    check(len(data2) > len(data1) > 0 and data2.startswith(data1),
          "the second signature appends to the first: the first signer's PDF is a byte prefix", signed2)
    inside, outside = page_changes(signed1, signed2, 2, FIELDS["witness"])
    check(inside > 150 and outside == 0, f"the witness's ink is in the witness field ({inside} pixels, {outside} elsewhere)", signed2)
    sig = run("pdfsig", signed2)
    print(sig.stdout.strip())
    check(sig.stdout.count("Signature Validation: Signature is Valid.") == 2, "pdfsig: both signatures valid", signed2)
    check(run("qpdf", "--check", signed2).returncode == 0, "qpdf --check passes after the second signature", signed2)

    # pyHanko: the customer's signature certifies the contract (form filling and signing allowed),
    # the witness's locks the fields; page 1's text changed later breaks both.
    python = cache.path("pyhanko", "bin", "python")
    lock = run(python, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyhanko_lock.py"), signed2,
               os.path.join(work, "signed-2-changed.pdf")) if os.path.exists(python) else None
    try:
        judged = json.loads(lock.stdout) if lock else {}
    except ValueError:
        judged = {}
    signed, changed = judged.get("signed", {}), judged.get("changed", {})
    customer, witness = signed.get("customer", {}), signed.get("witness", {})
    check(customer.get("certifies") and customer.get("docmdp") == "FILL_FORMS" and customer.get("bottom_line")
          and witness.get("lock") == "ALL" and witness.get("bottom_line"),
          f"pyHanko (scripts/install-deps.sh's venv): the customer's signature certifies the contract, the witness's "
          f"signing is allowed by it, and locks every field ({signed or (lock.stderr[-300:] if lock else 'no pyHanko')})", signed2)
    check(changed and all(v.get("intact") and v.get("docmdp_ok") is False and not v.get("bottom_line") for v in changed.values()),
          f"pyHanko: page 1's text changed in a later revision breaks both signatures, though their bytes are intact ({changed})",
          os.path.join(work, "signed-2-changed.pdf"))

    # kill -9 while reading and while signing.
    path = os.path.join(work, "doc-interrupted.txt")
    killed = open(path).read().split() if os.path.exists(path) else []
    outbox = os.path.join(work, "docs", "outbox")
    left = os.listdir(outbox) if os.path.isdir(outbox) else []
    for when, ident in zip(("review", "signing"), killed):
        status = answer(work, f"doc-after-kill-{when}")["body"] or {}
        check(status.get("state") == "interrupted", f"kill -9 during {when}: the request is interrupted ({status.get('state')})")
        check(not any(ident in name for name in left), f"kill -9 during {when}: no PDF or capture of it in the outbox")
    check(len(killed) == 2 and not any(n.endswith(".partial") for n in left), "no half-written capture in the outbox")
