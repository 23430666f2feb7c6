#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A two-page rental contract, written by hand as PDF 1.7 (no library needed), as a shop's
system would send it to the signature pad: text on both pages ("RENTAL CONTRACT", clauses),
and on page 2 two unsigned signature fields (AcroForm /FT /Sig widgets), "customer" and
"witness", each above a line with a label.

    contract_pdf.py OUT.pdf

The fields' rectangles (points, y up) are FIELDS below; the e2e's document session and its
checks use them."""
import sys

from worksheet_pdf import write_pdf

FIELDS = {"customer": (72, 150, 282, 210), "witness": (320, 150, 530, 210)}
CLAUSES = [
    "1. The hirer receives the bicycle in good order and returns it by the agreed date.",
    "2. The deposit of 150.00 EUR is refunded when the bicycle is returned undamaged.",
    "3. Damage beyond normal wear is charged at the workshop's published rates.",
    "4. The hirer rides at their own risk and follows the road traffic regulations.",
    "5. Loss or theft must be reported to the police and to the shop within 24 hours.",
]


def text(x, y, size, line, font="F1"):
    line = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return f"BT /{font} {size} Tf {x} {y} Td ({line}) Tj ET "


def contract_pdf(path):
    page1 = text(72, 760, 24, "RENTAL CONTRACT", "F2") + text(72, 730, 11, "Contract no. 2026-4711, Velo Rent, Bahnhofstrasse 12")
    page1 += "".join(text(72, 690 - 24 * k, 11, c) for k, c in enumerate(CLAUSES))
    page2 = text(72, 760, 16, "RENTAL CONTRACT - SIGNATURES", "F2")
    page2 += text(72, 730, 11, "By signing, the hirer accepts clauses 1 to 5 of this contract.")
    for name, (x0, y0, x1, y1) in FIELDS.items():
        page2 += f"0.5 w {x0} {y0 + 8} m {x1} {y0 + 8} l S "
        page2 += text(x0, y0 - 6, 10, "Signature of the hirer" if name == "customer" else "Signature of the witness")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [7 0 R 8 0 R] >> >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
        b"/Resources << /Font << /F1 9 0 R /F2 10 0 R >> >> >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 6 0 R "
        b"/Resources << /Font << /F1 9 0 R /F2 10 0 R >> >> /Annots [7 0 R 8 0 R] >>",
    ]
    for content in (page1, page2):
        data = content.encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")
    for name, rect in FIELDS.items():
        objects.append(f"<< /Type /Annot /Subtype /Widget /FT /Sig /T ({name}) /F 4 /P 4 0 R "
                       f"/Rect [{' '.join(map(str, rect))}] >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>")
    write_pdf(path, objects, header=b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")

if __name__ == "__main__":
    contract_pdf(sys.argv[1])
