#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A teacher's worksheet, written by hand as PDF 1.4 (no library needed): on each A4 page the
heading "Worksheet n" (Helvetica-Bold 36 pt, at 72, 100 pt from the top), a box to write in
(72, 300 pt from the top, 450 x 200 pt), and optionally up to 20 lines of exercise text below it.

    worksheet_pdf.py OUT.pdf [--pages N] [--title T] [--lines N] [--scanned]

--scanned makes each page a scan instead: a 150 dpi greyscale picture of the whole page
(paper grain and the heading's bar), the worst case for drawing a page and keeping it.

The e2e's worksheet session and the worksheet benchmark (scripts/bench.sh) use it."""
import argparse
import random
import zlib


# Grain: a random byte made a grey within 12 of the paper's (235) or the heading's ink (40).
PAPER = bytes(235 + b % 24 - 12 for b in range(256))
INK = bytes(40 + b % 24 - 12 for b in range(256))


def scan(n, width=1240, height=1754):
    """A page scanned at 150 dpi: grey paper grain, a dark bar where the heading is."""
    rng = random.Random(n)
    rows = []
    for y in range(height):
        grain = rng.randbytes(width)
        if 130 < y < 210:
            row = grain[:151].translate(PAPER) + grain[151:700].translate(INK) + grain[700:].translate(PAPER)
        else:
            row = grain.translate(PAPER)
        rows.append(b"\0" + row)
    return width, height, zlib.compress(b"".join(rows), 6)


def worksheet_pdf(path, pages=2, title="Fractions", lines=0, scanned=False):
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", None,
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>",
               f"<< /Title ({title}) >>".encode(),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for n in range(1, pages + 1):
        text = "".join(f"BT /F2 10 Tf 72 {320 - 12 * k} Td (Exercise {n}.{k + 1}: add 3/4 and {k + 2}/8, "
                       f"then write the sum in its lowest terms and draw it on the number line.) Tj ET "
                       for k in range(lines))
        content = f"BT /F1 36 Tf 72 742 Td (Worksheet {n}) Tj ET 3 w 72 342 450 200 re S {text}".encode()
        image = ""
        if scanned:
            w, h, data = scan(n)
            objects.append(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                           b"/BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Columns %d >> "
                           b"/Length %d >>\nstream\n" % (w, h, w, len(data)) + data + b"\nendstream")
            image = f"/XObject << /Scan {len(objects)} 0 R >>"
            content = b"q 595 0 0 842 0 0 cm /Scan Do Q " + content
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents {len(objects)} 0 R "
                       f"/Resources << /Font << /F1 3 0 R /F2 5 0 R >> {image} >> >>".encode())
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {pages} >>".encode()
    write_pdf(path, objects, header=b"%PDF-1.4\n", trailer=b"/Info 4 0 R")


def write_pdf(path, objects, header, trailer=b""):
    """Objects numbered from 1 (the first the catalog), a cross-reference table, the trailer
    (`trailer`: its keys besides /Size and /Root)."""
    out, offsets = bytearray(header), []
    for i, body in enumerate(objects):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % (i + 1) + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref)
    with open(path, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("out")
    a.add_argument("--pages", type=int, default=2)
    a.add_argument("--title", default="Fractions")
    a.add_argument("--lines", type=int, default=0)
    a.add_argument("--scanned", action="store_true")
    args = a.parse_args()
    worksheet_pdf(args.out, args.pages, args.title, args.lines, args.scanned)
