#!/usr/bin/python3
"""A minimal EDID 1.3 base block whose preferred (first detailed) timing is the given mode,
for the VM to show the kernel a screen of another size (debugfs edid_override).

    edid.py WIDTH HEIGHT OUT.bin       writes the 128 bytes

Reduced-blanking timings (CVT-RB's fixed porches), which any digital panel accepts.
"""
import struct
import sys


def detailed_timing(width, height, refresh=60, width_mm=300, height_mm=190):
    h_front, h_sync, h_back = 48, 32, 80
    v_front, v_sync, v_back = 3, 6, 20
    h_blank, v_blank = h_front + h_sync + h_back, v_front + v_sync + v_back
    clock_10khz = round((width + h_blank) * (height + v_blank) * refresh / 10_000)
    return bytes([
        clock_10khz & 0xFF, clock_10khz >> 8,
        width & 0xFF, h_blank & 0xFF, (width >> 8) << 4 | (h_blank >> 8),
        height & 0xFF, v_blank & 0xFF, (height >> 8) << 4 | (v_blank >> 8),
        h_front & 0xFF, h_sync & 0xFF, (v_front & 0xF) << 4 | (v_sync & 0xF),
        (h_front >> 8) << 6 | (h_sync >> 8) << 4 | (v_front >> 4) << 2 | (v_sync >> 4),
        width_mm & 0xFF, height_mm & 0xFF, (width_mm >> 8) << 4 | (height_mm >> 8),
        0, 0,
        0x1A,   # digital separate sync, h+ v-: what CVT-RB uses
    ])


def text_descriptor(tag, text):
    body = text.encode("ascii")[:13]
    body += b"\n" + b" " * (12 - len(body)) if len(body) < 13 else b""
    return bytes([0, 0, 0, tag, 0]) + body


def edid(width, height, refresh=60):
    vendor = (ord("I") - 64) << 10 | (ord("K") - 64) << 5 | (ord("K") - 64)
    block = bytearray(b"\x00\xff\xff\xff\xff\xff\xff\x00")
    block += struct.pack(">H", vendor) + struct.pack("<HI", width, 1) + bytes([1, 34])  # week 1, 2024
    block += bytes([1, 3, 0x80, 30, 19, 120, 0x0A])   # EDID 1.3, digital, 30x19 cm, gamma 2.2, RGB + preferred timing
    block += bytes([0xEE, 0x91, 0xA3, 0x54, 0x4C, 0x99, 0x26, 0x0F, 0x50, 0x54])   # sRGB primaries
    block += bytes(3) + b"\x01\x01" * 8               # no established or standard timings
    block += detailed_timing(width, height, refresh)
    block += text_descriptor(0xFC, f"ink {width}x{height}")
    block += bytes([0, 0, 0, 0xFD, 0, 50, 75, 30, 90, 25, 0, 0x0A]) + b" " * 6   # range limits
    block += bytes([0, 0, 0, 0x10, 0]) + bytes(13)    # dummy descriptor
    block += b"\x00"                                  # no extension blocks
    block.append((-sum(block)) & 0xFF)
    assert len(block) == 128
    return bytes(block)


if __name__ == "__main__":
    w, h, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    with open(out, "wb") as f:
        f.write(edid(w, h))
