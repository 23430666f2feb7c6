# SPDX-License-Identifier: Apache-2.0
"""pyHanko's verdict on a signed PDF's signatures, and on a copy a later hand changed: page 1's
text replaced in an incremental update, as a forger would append it (pyHanko writes it, not
the kiosk). Run with the Python of the venv scripts/install-deps.sh makes.

    pyhanko_lock.py SIGNED.pdf CHANGED.pdf   ->   {"signed": {field: verdict}, "changed": {...}}

A verdict: intact, valid, docmdp_ok (what later revisions changed is allowed), bottom_line
(trusting the signer's own certificate: the device's is self-signed), docmdp (the level the
signature sets), certifies (the catalog's /Perms /DocMDP names it), lock (its FieldMDP action)."""
import json
import sys

from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.pdf_embedded import read_certification_data
from pyhanko_certvalidator import ValidationContext


def verdicts(path):
    with open(path, "rb") as f:
        reader = PdfFileReader(f, strict=False)
        certification = read_certification_data(reader)
        found = {}
        for sig in reader.embedded_signatures:
            context = ValidationContext(trust_roots=[sig.signer_cert], allow_fetching=False)
            status = validate_pdf_signature(sig, signer_validation_context=context)
            lock = sig.fieldmdp
            found[sig.field_name] = {
                "intact": status.intact, "valid": status.valid, "docmdp_ok": status.docmdp_ok,
                "bottom_line": status.bottom_line,
                "docmdp": sig.docmdp_level.name if sig.docmdp_level is not None else None,
                "certifies": certification is not None and certification.author_sig["/Contents"] == sig.sig_object["/Contents"],
                "lock": lock.action.name if lock is not None else None,
            }
        return found


def change_page_text(signed, out):
    with open(signed, "rb") as f:
        writer = IncrementalPdfFileWriter(f, strict=False)
        page = writer.root["/Pages"]["/Kids"][0].get_object()
        text = generic.StreamObject(stream_data=b"BT /F1 24 Tf 72 760 Td (RENTAL CONTRACT: deposit 0.00 EUR) Tj ET")
        page["/Contents"] = writer.add_object(text)
        writer.update_container(page)
        with open(out, "wb") as o:
            writer.write(o)


if __name__ == "__main__":
    change_page_text(sys.argv[1], sys.argv[2])
    print(json.dumps({"signed": verdicts(sys.argv[1]), "changed": verdicts(sys.argv[2])}))
