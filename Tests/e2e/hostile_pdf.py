#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PDFs built to make a reader work: each is valid (one reading, qpdf checks it clean), small on
disk, and costly to read the naive way. The reader's budget ([limits] document_objects,
document_inflate_mb, document_seconds, document_pages) must refuse them quickly.

  hostile_pdf.py cache-defeat OUT [--streams 200] [--pages 2000] [--pad-kb 1024]
      The page objects spread round robin over STREAMS object streams, each padded with
      PAD-KB of white space after its objects: compressed, a few KB each; inflated, a MiB. A
      reader that keeps decoded object streams in a cache of bounded size and looks pages up one
      by one inflates a megabyte for every page (2 GB for 2000 pages); one that inflates each
      object stream once, 200 MB.
  hostile_pdf.py values OUT [--count 2000000]
      COUNT numbers in arrays of 10 000, in objects nothing refers to: each a value to parse.
  hostile_pdf.py pages OUT [--count 50000]
      A flat page tree of COUNT pages sharing one content stream.
  hostile_pdf.py shadow OUT
      Not costly but two-faced (a shadow attack): a contract whose page names /Contents twice,
      "Rent: 40 EUR a day" first and "Rent: 4000 EUR a day" last. Readers that keep the first
      and readers that keep the last (poppler, qpdf) show two contracts; the kiosk must refuse it.
"""
import argparse
import struct
import zlib

from worksheet_pdf import write_pdf

HEADER = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"


def stream(dictionary, data):
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def content():
    return stream(b"", b"BT /F1 24 Tf 72 700 Td (A page) Tj ET")


def cache_defeat(streams, pages, pad_kb):
    # Numbers: 1 catalog, 2 page tree root, 3 content, 4 font, 5.. pages (compressed), then the
    # object streams, then the cross-reference stream.
    first_page = 5
    objstm_first = first_page + pages
    xref_number = objstm_first + streams
    members = [[] for _ in range(streams)]
    for p in range(pages):
        members[p % streams].append(first_page + p)
    out = bytearray(HEADER)
    entries = {0: (0, 0, 65535)}

    def put(number, body):
        entries[number] = (1, len(out), 0)
        out.extend(b"%d 0 obj\n" % number + body + b"\nendobj\n")

    kids = b" ".join(b"%d 0 R" % (first_page + p) for p in range(pages))
    put(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    put(2, b"<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 595 842] >>" % (kids, pages))
    put(3, content())
    put(4, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for s, numbers in enumerate(members):
        header, body = b"", b""
        for index, n in enumerate(numbers):
            header += b"%d %d " % (n, len(body))
            body += b"<< /Type /Page /Parent 2 0 R /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>\n"
            entries[n] = (2, objstm_first + s, index)
        body += b" " * (pad_kb * 1024)
        data = zlib.compress(header + body, 9)
        put(objstm_first + s, stream(b"/Type /ObjStm /N %d /First %d /Filter /FlateDecode" % (len(numbers), len(header)), data))
    entries[xref_number] = (1, len(out), 0)
    rows = b"".join(struct.pack(">BIH", *entries.get(n, (0, 0, 0))) for n in range(xref_number + 1))
    data = zlib.compress(rows)
    xref_at = len(out)
    out += b"%d 0 obj\n" % xref_number + stream(b"/Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Filter /FlateDecode" % (xref_number + 1), data)
    out += b"\nendobj\nstartxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def values(count, path):
    per = 10_000
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 595 842] >>",
               b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>", content(),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for _ in range((count + per - 1) // per):
        objects.append(b"[" + b" ".join([b"0"] * per) + b"]")
    write_pdf(path, objects, header=HEADER)


def pages(count, path):
    first = 5
    kids = b" ".join(b"%d 0 R" % (first + p) for p in range(count))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 595 842] >>" % (kids, count),
               content(), b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    objects += [b"<< /Type /Page /Parent 2 0 R /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>"] * count
    write_pdf(path, objects, header=HEADER)


def shadow(path):
    def text(line):
        return stream(b"", b"BT /F1 24 Tf 72 700 Td (" + line + b") Tj ET")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >>"
               b" /Contents 5 0 R >>",
               text(b"Rent: 40 EUR a day"), text(b"Rent: 4000 EUR a day"),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    write_pdf(path, objects, header=HEADER)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="kind", required=True)
    c = sub.add_parser("cache-defeat")
    c.add_argument("out")
    c.add_argument("--streams", type=int, default=200)
    c.add_argument("--pages", type=int, default=2000)
    c.add_argument("--pad-kb", type=int, default=1024)
    v = sub.add_parser("values")
    v.add_argument("out")
    v.add_argument("--count", type=int, default=2_000_000)
    p = sub.add_parser("pages")
    p.add_argument("out")
    p.add_argument("--count", type=int, default=50_000)
    sub.add_parser("shadow").add_argument("out")
    args = parser.parse_args()
    if args.kind == "cache-defeat":
        with open(args.out, "wb") as f:
            f.write(cache_defeat(args.streams, args.pages, args.pad_kb))
    elif args.kind == "values":
        values(args.count, args.out)
    elif args.kind == "shadow":
        shadow(args.out)
    else:
        pages(args.count, args.out)


if __name__ == "__main__":
    main()
