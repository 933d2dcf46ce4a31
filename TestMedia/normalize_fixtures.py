#!/usr/bin/env python3
"""Adds to a JPEG the segments `vidorient normalize` must keep and exiftool cannot write from
nothing: a small ICC profile (APP2 ICC_PROFILE), a comment (COM), and an MPF index (APP2 MPF)
pointing at a second JPEG appended after the first image's end, as phones store previews,
depth and gain maps. The tests run it on copies; nothing here is written into TestMedia.

usage: normalize_fixtures.py IN.jpg SECOND.jpg OUT.jpg
"""
import struct
import sys


def segments(data):
    """(marker, start, length) up to SOS, and the offset of SOS."""
    assert data[:2] == b"\xff\xd8"
    offset, found = 2, []
    while True:
        marker = data[offset + 1]
        if marker == 0xDA:
            return found, offset
        length = struct.unpack(">H", data[offset + 2:offset + 4])[0]
        found.append((marker, offset, 2 + length))
        offset += 2 + length


def icc_profile():
    """A 164-byte ICC v2.1 display profile with one tag (its white point): enough for exiftool to list it."""
    header = struct.pack(">I4sI4s4s4s6H4s4sI4sI", 164, b"none", 0x02100000, b"mntr", b"RGB ", b"XYZ ",
                         2024, 5, 6, 7, 8, 9, b"acsp", b"APPL", 0, b"none", 0)
    header += struct.pack(">QI", 0, 0) + struct.pack(">iii", 63190, 65536, 54061) + b"vido" + bytes(16) + bytes(28)
    assert len(header) == 128, len(header)
    white = b"XYZ " + bytes(4) + struct.pack(">iii", 63190, 65536, 54061)
    return header + struct.pack(">I4sII", 1, b"wtpt", 144, len(white)) + white


def app(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def mpf_payload(primary_size, second_offset, second_size):
    """Big-endian MP index IFD: version, number of images, two MP entries (CIPA DC-007)."""
    entries_offset = 8 + 2 + 3 * 12 + 4
    ifd = struct.pack(">H", 3)
    ifd += struct.pack(">HHI4s", 0xB000, 7, 4, b"0100")
    ifd += struct.pack(">HHII", 0xB001, 4, 1, 2)
    ifd += struct.pack(">HHII", 0xB002, 7, 32, entries_offset)
    ifd += struct.pack(">I", 0)
    entries = struct.pack(">IIIHH", 0x20030000, primary_size, 0, 0, 0)
    entries += struct.pack(">IIIHH", 0x00010001, second_size, second_offset, 0, 0)
    return b"MPF\0" + b"MM\0\x2a" + struct.pack(">I", 8) + ifd + entries


def main():
    data = open(sys.argv[1], "rb").read()
    second = open(sys.argv[2], "rb").read()
    found, _ = segments(data)
    # After the last APPn before the tables, as cameras place them.
    insert_at = max((start + length for marker, start, length in found if 0xE0 <= marker <= 0xEF), default=2)
    icc = app(0xE2, b"ICC_PROFILE\0\x01\x01" + icc_profile())
    comment = app(0xFE, b"kept by normalize")
    placeholder = app(0xE2, mpf_payload(0, 0, 0))
    primary_size = len(data) + len(icc) + len(comment) + len(placeholder)
    mp_header = insert_at + len(icc) + len(comment) + 4 + 4
    mpf = app(0xE2, mpf_payload(primary_size, primary_size - mp_header, len(second)))
    assert len(mpf) == len(placeholder)
    out = data[:insert_at] + icc + comment + mpf + data[insert_at:] + second
    open(sys.argv[3], "wb").write(out)


if __name__ == "__main__":
    main()
