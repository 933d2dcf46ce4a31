#!/usr/bin/env python3
"""Structure-aware seeds for the photo and box fuzzers (issue 28): the shapes the readers met in
the wild or in an attack, small, so that libFuzzer mutates from them rather than hoping to find
them. Writes Fuzz/corpus/photo/r28-* and Fuzz/corpus/isobmff/r28-* (committed); run again after
changing it:  python3 Fuzz/make-reader-seeds.py

- TIFFs with several IFDs whose LONG width and height are huge (the area that trapped), in both
  byte orders, with ORF (IIRO, MMOR, IIRS) and RW2 (IIU\\0) magics, SubIFDs, JPEG pointers and
  strips pointing anywhere, an Orientation of every integer type and count;
- BigTIFF and JPEG XL (codestream and container) signatures;
- JPEG APP1 EXIF with the identifier's sixth byte 0xFF, and Orientation as LONG/SSHORT/2 SHORTs;
- PNG eXIf with and without Exif\\0\\0, a bad-CRC eXIf before a good one;
- CR3 whose CMT1 claims 1 GiB (32-bit and 64-bit box sizes), with two CMT1 and two Canon boxes;
- MRW whose TTW claims 1 GiB; RAF and CRW with huge offsets and sizes;
- HEIC with a second ipma entry for the primary (from TestMedia/orient-1.heic by heif.py), and
  HEICs whose thumbnail or Exif item is two extents each claiming 2^64 - 1 bytes (their sum trapped);
- WebP whose EXIF chunk holds two IFDs with huge LONG sizes;
- (box fuzzer) TestMedia/audio-first.mov whose sound entry is version 2 with a sample rate of +inf.
Python 3 standard library only.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H = 0xFFFFFFFF


def tiff(ifds, magic=b"*\0", order="<", bo=None):
    """IFDs of (tag, type, count, 4-byte value) entries, linked in order."""
    bo = bo or (b"II" if order == "<" else b"MM")
    if order == ">" and magic == b"*\0":
        magic = b"\0*"
    data = bo + magic + struct.pack(order + "I", 8)
    for i, entries in enumerate(ifds):
        nxt = len(data) + 2 + 12 * len(entries) + 4 if i + 1 < len(ifds) else 0
        data += struct.pack(order + "H", len(entries))
        for tag, kind, count, value in entries:
            # A SHORT's value is left-justified in the 4 bytes: big-endian, it is the high half.
            if order == ">" and kind in (3, 8) and count == 1:
                value <<= 16
            data += struct.pack(order + "HHII", tag, kind, count, value)
        data += struct.pack(order + "I", nxt)
    return data


def be(v, n):
    return v.to_bytes(n, "big")


def box(kind, payload, claimed=None, large=False):
    size = 8 + (len(payload) if claimed is None else claimed)
    if large:
        return be(1, 4) + kind + be(size + 8, 8) + payload
    return be(size & H, 4) + kind + payload


def chunk(kind, data, crc=None):
    crc = zlib.crc32(kind + data) if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def photo_seeds():
    seeds = {}
    huge = [(256, 4, 1, H), (257, 4, 1, H)]
    for order in "<>":
        o = "ii" if order == "<" else "mm"
        seeds[f"tiff-huge-2ifd-{o}.tif"] = tiff([huge, huge], order=order)
        seeds[f"tiff-huge-subifd-{o}.tif"] = tiff(
            [huge + [(0x14A, 4, 2, 8), (0x201, 4, 1, H), (0x202, 4, 1, H), (274, 3, 1, 6)], huge], order=order)
        seeds[f"tiff-strip-{o}.tif"] = tiff(
            [[(256, 4, 1, 1), (257, 4, 1, 1), (259, 3, 1, 7), (273, 4, 1, H), (279, 4, 1, H)]], order=order)
    seeds["orf-huge.orf"] = tiff([huge, huge], magic=b"RO")
    seeds["orf-iirs.orf"] = tiff([huge, huge], magic=b"RS")
    seeds["orf-mmor.orf"] = tiff([huge, huge], magic=b"OR", order=">")
    seeds["rw2-huge.rw2"] = tiff([[(2, 4, 1, H), (3, 4, 1, H), (0x2E, 7, H, 8)], huge], magic=b"U\0")
    for t, count, value in [(4, 1, 6), (8, 1, 6), (1, 1, 6), (9, 1, 6), (3, 2, 6 | 6 << 16), (2, 1, 0x36)]:
        seeds[f"tiff-orientation-type{t}-count{count}.tif"] = tiff([[(256, 4, 1, 1), (257, 4, 1, 1), (274, t, count, value)]])
    seeds["bigtiff.tif"] = b"II+\0\x08\0\0\0" + be(16, 8)[::-1] + b"\0" * 16
    seeds["jxl-codestream.jxl"] = bytes([0xFF, 0x0A, 0xFA, 0x7F, 0x01, 0x90, 0x08, 0x06, 0x01, 0x00, 0x48, 0x01])
    seeds["jxl-container.jxl"] = bytes([0, 0, 0, 0x0C]) + b"JXL \r\n\x87\n" + box(b"ftyp", b"jxl \0\0\0\0jxl ")
    # JPEG: SOI, APP1, a 1x1 baseline frame, a scan, EOI.
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, 1, 1, 1) + b"\x01\x11\x00"
    tail = sof + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00" + b"\x00" * 4 + b"\xff\xd9"

    def jpeg(payload):
        return b"\xff\xd8\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + tail

    seeds["jpeg-exif-ff.jpg"] = jpeg(b"Exif\0\xff" + tiff([[(274, 3, 1, 6)]], order=">"))
    seeds["jpeg-orientation-long.jpg"] = jpeg(b"Exif\0\0" + tiff([[(274, 4, 1, 6)]], order=">"))
    seeds["jpeg-orientation-sshort.jpg"] = jpeg(b"Exif\0\0" + tiff([[(274, 8, 1, 6)]], order=">"))
    seeds["jpeg-huge-ifd.jpg"] = jpeg(b"Exif\0\0" + tiff([huge + [(0x8769, 4, 1, H)], huge], order=">"))
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0))
    idat = chunk(b"IDAT", zlib.compress(b"\0" + b"\0" * 6))
    exif = tiff([[(274, 3, 1, 6)]], order=">")
    sig = b"\x89PNG\r\n\x1a\n"
    seeds["png-exif-prefix.png"] = sig + ihdr + chunk(b"eXIf", b"Exif\0\0" + exif) + idat + chunk(b"IEND", b"")
    seeds["png-exif-badcrc-then-good.png"] = (
        sig + ihdr + chunk(b"eXIf", exif, crc=0) + chunk(b"eXIf", exif) + idat + chunk(b"IEND", b""))
    seeds["png-huge.png"] = sig + chunk(b"IHDR", struct.pack(">IIBBBBB", H, H, 16, 6, 0, 0, 0)) + chunk(b"IEND", b"")
    # CR3.
    canon = bytes.fromhex("85c0b687820f11e08111f4ce462b6a48")
    ftyp = box(b"ftyp", b"crx " + be(1, 4) + b"crx isom")
    ifd0 = tiff([[(256, 4, 1, 6000), (257, 4, 1, 4000), (274, 3, 1, 6)]])

    def cr3(cmt1s, claimed=None, large=False, canons=1):
        inner = b"".join(box(b"CMT1", c, claimed if i == len(cmt1s) - 1 else None, large) for i, c in enumerate(cmt1s))
        extra = 0 if claimed is None else claimed - len(cmt1s[-1])
        uuid = box(b"uuid", canon + inner, 16 + len(inner) + extra, large)
        return ftyp + box(b"moov", uuid * canons, len(uuid) * canons + extra, large)

    seeds["cr3-cmt1-gigabyte.cr3"] = cr3([ifd0], claimed=1 << 30)
    seeds["cr3-cmt1-64bit.cr3"] = cr3([ifd0], claimed=3 << 30, large=True)
    seeds["cr3-two-cmt1.cr3"] = cr3([ifd0, tiff([[(274, 3, 1, 3)]])])
    seeds["cr3-two-canon.cr3"] = cr3([ifd0], canons=2)
    # MRW, RAF, CRW.
    ttw = tiff([[(274, 3, 1, 8)]], order=">")
    prd = b"21810002" + be(1544, 2) + be(2056, 2) + be(1536, 2) + be(2048, 2) + b"\x0c\x0c\x59\0\0\0\0\0"
    blocks = b"\0PRD" + be(len(prd), 4) + prd + b"\0TTW" + be(1 << 30, 4) + ttw
    seeds["mrw-ttw-gigabyte.mrw"] = b"\0MRM" + be(len(blocks) - len(ttw) + (1 << 30), 4) + blocks
    raf = bytearray(b"FUJIFILMCCD-RAW 0201FF383501X-T1" + b"\0" * 76)
    struct.pack_into(">IIII", raf, 84, 108, H, H, 0x100)
    seeds["raf-huge.raf"] = bytes(raf) + b"\0" * 16
    info = struct.pack("<IIII", H, H, 0, 90)
    heap = info + struct.pack("<H", 1) + struct.pack("<HII", 0x1810, 16, 0) + struct.pack("<I", 16)
    seeds["crw-huge.crw"] = b"II" + struct.pack("<I", 26) + b"HEAPCCDR" + b"\0" * 12 + heap
    # HEIC with a second ipma entry for the primary.
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "two.heic")
        shutil.copy(os.path.join(ROOT, "TestMedia", "orient-1.heic"), path)
        subprocess.run([sys.executable, os.path.join(ROOT, "TestMedia", "heif.py"), "second-entry", path, "1"], check=True)
        seeds["heic-second-ipma-entry.heic"] = open(path, "rb").read()
    # HEIC whose thumbnail or Exif item is two extents each claiming 2^64 - 1 bytes (their sum
    # trapped), built box by box: iloc version 1, 4-byte offsets, 8-byte lengths.
    for huge, name in ((2, "thumbnail"), (3, "exif")):
        seeds[f"heic-huge-extents-{name}.heic"] = heic_huge_extents(huge, ifd0)
    # WebP with EXIF (VP8X flag 8) whose IFD0 links a second IFD with huge LONG sizes.
    exif = tiff([[(274, 3, 1, 6), (256, 4, 1, H)], [(256, 4, 1, H), (257, 4, 1, H)]])
    vp8l = b"\x2f" + struct.pack("<I", 0) + b"\0" * 4
    body = b"WEBP" + riff(b"VP8X", bytes([8, 0, 0, 0]) + b"\0" * 6) + riff(b"VP8L", vp8l) + riff(b"EXIF", exif)
    seeds["webp-exif-two-ifds.webp"] = b"RIFF" + struct.pack("<I", len(body)) + body
    return seeds


def riff(kind, data):
    return kind + struct.pack("<I", len(data)) + data + (b"\0" if len(data) & 1 else b"")


def heic_huge_extents(huge, tiff_bytes):
    """A primary hvc1 item (1), a thumbnail (2) and an Exif item (3); item `huge` is two extents of 2^64 - 1 bytes."""
    def full(kind, payload):
        return box(kind, b"\0\0\0\0" + payload)

    def infe(item, kind, hidden):
        return box(b"infe", bytes([2, 0, 0, 1 if hidden else 0]) + be(item, 2) + be(0, 2) + kind + b"\0")

    ftyp = box(b"ftyp", b"heic" + be(0, 4) + b"mif1heic")
    exif = be(6, 4) + b"Exif\0\0" + tiff_bytes
    picture_at = len(ftyp) + 8
    exif_at = picture_at + 16
    mdat = box(b"mdat", b"\xab" * 16 + exif)

    def location(item, offset, length):
        one = be(offset, 4) + be(length, 8)
        extents = be(2, 2) + (be(offset, 4) + b"\xff" * 8) * 2 if item == huge else be(1, 2) + one
        return be(item, 2) + be(0, 2) + be(0, 2) + extents

    iloc = box(b"iloc", bytes([1, 0, 0, 0, 0x48, 0]) + be(3, 2) + location(1, picture_at, 16)
               + location(2, picture_at, 16) + location(3, exif_at, len(exif)))
    iref = full(b"iref", box(b"thmb", be(2, 2) + be(1, 2) + be(1, 2)) + box(b"cdsc", be(3, 2) + be(1, 2) + be(1, 2)))
    ipco = box(b"ipco", full(b"ispe", be(64, 4) + be(48, 4)) + box(b"hvcC", bytes([1, 2, 3])))
    ipma = full(b"ipma", be(2, 4) + be(1, 2) + bytes([2, 0x81, 0x82]) + be(2, 2) + bytes([2, 0x81, 0x82]))
    meta = full(b"meta", full(b"hdlr", be(0, 4) + b"pict" + b"\0" * 13) + full(b"pitm", be(1, 2))
                + full(b"iinf", be(3, 2) + infe(1, b"hvc1", False) + infe(2, b"hvc1", False) + infe(3, b"Exif", True))
                + iloc + iref + box(b"iprp", ipco + ipma))
    return ftyp + mdat + meta


def main():
    photo = photo_seeds()
    # The box fuzzer takes the ISO-BMFF ones too.
    isobmff = {k: v for k, v in photo.items() if k.endswith((".cr3", ".heic", ".jxl"))}
    # A QuickTime sound entry of version 2 whose float sample rate is +inf (it trapped).
    mov = bytearray(open(os.path.join(ROOT, "TestMedia", "audio-first.mov"), "rb").read())
    payload = mov.find(b"mp4a") + 4
    mov[payload + 8:payload + 10] = b"\0\x02"
    mov[payload + 32:payload + 40] = struct.pack(">Q", 0x7FF0000000000000)
    isobmff["mov-sound-v2-infinite-rate.mov"] = bytes(mov)
    for target, seeds in (("photo", photo), ("isobmff", isobmff)):
        folder = os.path.join(ROOT, "Fuzz", "corpus", target)
        os.makedirs(folder, exist_ok=True)
        for name in os.listdir(folder):
            if name.startswith("r28-"):
                os.remove(os.path.join(folder, name))
        for name, data in seeds.items():
            with open(os.path.join(folder, "r28-" + name), "wb") as f:
                f.write(data)
    print(f"{len(photo)} photo seeds, {len(isobmff)} box seeds")


if __name__ == "__main__":
    main()
