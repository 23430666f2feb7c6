# SPDX-License-Identifier: Apache-2.0
"""A shop's host has a contract signed on the kiosk, through the local API with curl: the PDF
posted, its pages read with finger taps, the customer signing in its field with the pen,
two-faced and costly PDFs refused, the signed PDF fetched (from the kiosk's memory: keep_signed_pdf = false), certified by the
device (document_lock); a second signer signs the returned PDF's other field, after the page
the kiosk's min_review requires; kill -9 while reading and while signing ends the request as
interrupted. scenario.py imports this; check_documents.py checks what it left behind (qpdf,
pdftotext, pdftoppm, pdfsig, pyHanko)."""
import json
import os
import subprocess
import sys
import time

from scenario import WORK, Kiosk, say, shot
from contract_pdf import FIELDS, contract_pdf
from modes import API, H, W, api_auth, button_width, curl, mm, session_config, signature_buttons, signature_keys

BUTTON_MM = 14   # the signature profile's button_mm


def review_buttons():
    """Centres of the buttons while a document is read (SignatureScreen.documentControls), normalised."""
    target, gap = mm(BUTTON_MM), mm(2)
    font = round(target * 0.36)
    bar_y = H - (target + 2 * gap)
    x, out = W, {}
    for label in reversed(["Cancel", "‹", "›", "Sign"]):
        w = max(button_width(label, target, font), mm(32))
        x -= gap * 2 + w
        out[label] = ((x + w / 2) / W, (bar_y + gap + target / 2) / H)
    return out


def writing_box(field):
    """Where the field is shown in the signing view (DocumentLayout.writingBox), in pixels."""
    target, gap = mm(BUTTON_MM), mm(2)
    bar_y = H - (target + 2 * gap)
    top, bottom, margin = gap * 3 + target, bar_y - gap, gap * 2
    aw, ah = W - 2 * margin, bottom - top
    fw, fh = field[2] - field[0], field[3] - field[1]
    scale = min(aw / fw, ah / fh)
    w, h = round(fw * scale), round(fh * scale)
    return round(margin + (aw - w) / 2), round(top + (ah - h) / 2), w, h


HOME = "docs"   # the session's config, outbox and token: WORK/docs


def api(name, *args):
    return curl(name, *args, home=HOME)


def post_pdf(name, path):
    """POST /documents with the PDF as the body, as a host's system sends it."""
    return curl(name, "--data-binary", f"@{path}", f"{API}/documents", home=HOME, content_type="application/pdf")


def fetch(name, url, out):
    got = subprocess.run(["curl", "-sS", "--max-time", "30", "-w", "%{http_code}", *api_auth(HOME)[:2], "-o", out, url],
                         capture_output=True, text=True, timeout=60)
    say(f"curl {name}: HTTP {got.stdout.strip()} -> {out}")
    return got.stdout.strip()


def sign_in(box, pen):
    """A signature across the box, as a hand writes it: a few loops, left to right."""
    x, y, w, h = box
    points = []
    for i in range(81):
        t = i / 80
        points.append(((x + w * (0.1 + 0.8 * t)) / W, (y + h * (0.5 - 0.28 * ((i % 16) / 8 - 1) ** 2 + 0.14)) / H))
    pen.stroke(points, pressure=0.6)
    pen.out()


def start(kiosk, name, document, field, review, prompt):
    frames = kiosk.wait_idle()
    body = {"document": document, "field": field, "review": review, "prompt": prompt, "timeout": 300}
    code, status = api(name, "-X", "POST", f"{API}/signatures", "-d", json.dumps(body))
    return (status or {}).get("id", "none"), frames


def page_shown(kiosk, ident, page, count):
    kiosk.wait_log(lambda t: f"signature {ident}: document" in t and f"page {page} of {count} shown" in t, f"page {page} shown")


def signing_view(kiosk, ident, field):
    kiosk.wait_log(lambda t: f"signature {ident}: signing view for '{field}'" in t, f"the signing view for {field}")


def document_session(binary, pen, touch):
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
    key, pub = signature_keys(binary)
    signer = os.path.join(WORK, "device-signer.pem")
    made = subprocess.run([binary, "keygen", "--signing", signer, "--subject", "CN=Kiosk e2e,O=Velo Rent"],
                          capture_output=True, text=True, timeout=60)
    say(f"inkkiosk keygen --signing: {made.returncode} {made.stdout.strip()} {made.stderr.strip()}")
    config = session_config("signature.toml", HOME, "", encrypt_to=pub)
    with open(config) as f:
        text = f.read()
    with open(config, "w") as f:
        f.write(text.replace("[signature]\n", f'[signature]\nsign_with = "{signer}"\ndocument_lock = "certify-form-filling"\n'
                             'min_review = "first-page"\nkeep_signed_pdf = false\n', 1))
    contract = os.path.join(WORK, "contract.pdf")
    contract_pdf(contract)
    kiosk = Kiosk(binary, "documents", "--config", config, "--api", "127.0.0.1:7300")
    buttons = review_buttons()

    code, doc = post_pdf("doc-post", contract)
    doc_id = (doc or {}).get("id", "none")
    # A two-faced contract (a shadow attack) and one built to make the reader work: 422, the
    # reason and where, and neither taken.
    for kind, extra in (("shadow", []), ("values", ["--count", "400000"])):
        path = os.path.join(WORK, f"hostile-{kind}.pdf")
        subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_pdf.py"), kind, path,
                        *extra], check=True, timeout=120)
        post_pdf(f"doc-hostile-{kind}", path)
    ident, frames = start(kiosk, "doc-start", doc_id, "customer", "all-pages", "Please sign the rental contract")
    with open(os.path.join(WORK, "doc-id.txt"), "w") as f:
        f.write(ident)
    page_shown(kiosk, ident, 1, 2)
    shot("doc-review-1", frames_above=frames)
    # The pen does not write on a page being read.
    pen.stroke([(0.45 + 0.1 * i / 20, 0.4 + 0.05 * (i % 2)) for i in range(21)], pressure=0.6)
    pen.out()
    shot("doc-review-pen")
    # Sign before page 2 was read: refused (the banner says why).
    time.sleep(0.1)
    touch.tap(*buttons["Sign"])
    shot("doc-review-refused")
    time.sleep(0.1)
    touch.tap(*buttons["›"])
    page_shown(kiosk, ident, 2, 2)
    shot("doc-review-2")
    time.sleep(0.1)
    touch.tap(*buttons["Sign"])
    signing_view(kiosk, ident, "customer")
    shot("doc-signing-view")
    time.sleep(0.1)
    sign_in(writing_box(FIELDS["customer"]), pen)
    shot("doc-signed-on-screen")
    time.sleep(0.1)
    accept = signature_buttons(BUTTON_MM, hosted=True)["Accept"]
    touch.tap(*accept)
    api("doc-accepted", f"{API}/signatures/{ident}?wait=30")
    fetch("doc-pdf", f"{API}/signatures/{ident}/pdf", os.path.join(WORK, "signed-1.pdf"))
    shot("doc-accepted")

    # The second signer: the returned PDF posted again, its other field signed. The host asks for
    # no review; the kiosk's min_review shows page 1 first.
    code, doc2 = post_pdf("doc2-post", os.path.join(WORK, "signed-1.pdf"))
    ident2, frames = start(kiosk, "doc2-start", (doc2 or {}).get("id", "none"), "witness", "none", "Witness, please sign")
    page_shown(kiosk, ident2, 1, 2)
    time.sleep(0.1)
    touch.tap(*buttons["Sign"])
    signing_view(kiosk, ident2, "witness")
    shot("doc2-signing-view", frames_above=frames)
    time.sleep(0.1)
    sign_in(writing_box(FIELDS["witness"]), pen)
    time.sleep(0.1)
    touch.tap(*accept)
    api("doc2-accepted", f"{API}/signatures/{ident2}?wait=30")
    fetch("doc2-pdf", f"{API}/signatures/{ident2}/pdf", os.path.join(WORK, "signed-2.pdf"))

    # kill -9 while the contract is read, then while it is being signed: each request ends
    # interrupted after the restart, with no PDF in the outbox.
    interrupted = []
    for when in ("review", "signing"):
        ident3, frames = start(kiosk, f"doc-kill-{when}", doc_id, "customer", "first-page" if when == "signing" else "all-pages",
                               "Please sign")
        page_shown(kiosk, ident3, 1, 2)
        if when == "signing":
            time.sleep(0.1)
            touch.tap(*buttons["Sign"])
            signing_view(kiosk, ident3, "customer")
            time.sleep(0.1)
            sign_in(writing_box(FIELDS["customer"]), pen)
            kiosk.wait_idle(what="the ink before kill -9")
        kiosk.killed()
        say(f"documents: kiosk killed during {when} of {ident3}")
        kiosk = Kiosk(binary, f"documents-after-{when}", "--config", config, "--api", "127.0.0.1:7300")
        api(f"doc-after-kill-{when}", f"{API}/signatures/{ident3}")
        interrupted.append(ident3)
    with open(os.path.join(WORK, "doc-interrupted.txt"), "w") as f:
        f.write("\n".join(interrupted) + "\n")
    # The first signed PDF was never on the disk: after the restarts it is gone.
    api("doc-pdf-after-restart", f"{API}/signatures/{ident}/pdf")
    shot("doc-after-kill")
    kiosk.stop()
