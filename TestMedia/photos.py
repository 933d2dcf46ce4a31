#!/usr/bin/env python3
"""Photo test files for generate.sh (Python 3 standard library, plus ffmpeg's
mjpeg JPEGs made earlier by generate.sh and cwebp for the WebP bitstreams).

Sub-commands:
  make       write the PNG, TIFF, WebP and photo-variant files (run after the
             orient-N.jpg files exist)
  check      verify every photo file of manifest.json with exiftool (-n -j) and,
             for pixels, ffmpeg; exits non-zero on any mismatch

The manifest entries come from manifest_entries(), which tkhd.py's
build_manifest() merges in. Conventions are tkhd.py's: the upright picture is
160x96 (red | green over blue | white); the stored picture for orientation N is
the inverse of N applied to it.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import tkhd

HERE = tkhd.HERE
W, H = tkhd.UPRIGHT_W, tkhd.UPRIGHT_H
RGB = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255), "white": (255, 255, 255)}


# ---------------------------------------------------------------------------
# Pixels
# ---------------------------------------------------------------------------

def displayed_position(n, x, y, w, h):
    """Where stored pixel (x, y) of a w x h picture lands when orientation n is
    applied: mirror first, then rotate clockwise."""
    if tkhd.MIRRORED[n]:
        x = w - 1 - x
    r = tkhd.ROTATION[n]
    if r == 90:
        return h - 1 - y, x
    if r == 180:
        return w - 1 - x, h - 1 - y
    if r == 270:
        return y, w - 1 - x
    return x, y


def stored_pixels(n):
    """(w, h, rgb bytes) of the stored picture for orientation n."""
    w, h = tkhd.stored_size(n)
    out = bytearray()
    for y in range(h):
        for x in range(w):
            dx, dy = displayed_position(n, x, y, w, h)
            out += bytes(RGB[tkhd.UPRIGHT[int(dy >= H // 2)][int(dx >= W // 2)]])
    return w, h, bytes(out)


# ---------------------------------------------------------------------------
# TIFF structures (EXIF blocks and TIFF files)
# ---------------------------------------------------------------------------

# type: (struct code, size)
TYPES = {1: "B", 2: "B", 3: "H", 4: "I", 5: "I", 6: "b", 7: "B", 8: "h", 9: "i", 10: "i", 11: "f", 12: "d"}
SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8}
ASCII, SHORT, LONG, RATIONAL, UNDEFINED = 2, 3, 4, 5, 7


def build_tiff(ifds, little, blobs=None):
    """A TIFF structure: header, then each IFD (entries, next link, out-of-line
    values), then the blobs. ifds is a list of (name, entries, next_name);
    an entry is (tag, type, values) where values is a list of numbers (pairs for
    rationals), a str (ASCII, NUL added), bytes (UNDEFINED), ("ifd", name),
    ("blob", name) or ("bloblen", name)."""
    blobs = blobs or {}
    e = "<" if little else ">"

    def count_of(typ, values):
        if isinstance(values, str):
            return len(values) + 1
        if isinstance(values, bytes):
            return len(values)
        if isinstance(values, tuple):
            return 1
        return len(values)

    def ifd_size(entries):
        extra = 0
        for tag, typ, values in entries:
            n = count_of(typ, values) * SIZES[typ]
            if n > 4:
                extra += n + (n & 1)
        return 2 + 12 * len(entries) + 4 + extra

    offsets, pos = {}, 8
    for name, entries, _ in ifds:
        offsets[("ifd", name)] = pos
        pos += ifd_size(entries)
    for name, data in blobs.items():
        offsets[("blob", name)] = pos
        pos += len(data) + (len(data) & 1)

    def raw(typ, values):
        if isinstance(values, str):
            return values.encode() + b"\0"
        if isinstance(values, bytes):
            return values
        if isinstance(values, tuple):
            kind, name = values
            v = len(blobs[name]) if kind == "bloblen" else offsets[("blob" if kind == "blob" else "ifd", name)]
            return struct.pack(e + TYPES[typ], v)
        if typ in (RATIONAL, 10):
            return b"".join(struct.pack(e + TYPES[typ] * 2, *v) for v in values)
        return b"".join(struct.pack(e + TYPES[typ], v) for v in values)

    out = bytearray((b"II" if little else b"MM") + struct.pack(e + "HI", 42, 8))
    for name, entries, next_name in ifds:
        start = offsets[("ifd", name)]
        assert len(out) == start
        data_pos = start + 2 + 12 * len(entries) + 4
        head, tail = bytearray(struct.pack(e + "H", len(entries))), bytearray()
        for tag, typ, values in sorted(entries, key=lambda t: t[0]):
            value = raw(typ, values)
            head += struct.pack(e + "HHI", tag, typ, count_of(typ, values))
            if len(value) <= 4:
                head += value + b"\0" * (4 - len(value))
            else:
                head += struct.pack(e + "I", data_pos + len(tail))
                tail += value + b"\0" * (len(value) & 1)
        head += struct.pack(e + "I", offsets[("ifd", next_name)] if next_name else 0)
        out += head + tail
    for name, data in blobs.items():
        out += data + b"\0" * (len(data) & 1)
    return bytes(out)


def exif_tiff(n, little=False, make="vidorient", model="TestMedia", pixel_size=None):
    """An EXIF block with IFD0 (Orientation, Make, Model) and an Exif IFD
    (DateTimeOriginal, OffsetTimeOriginal, LensModel, PixelX/YDimension)."""
    pw, ph = pixel_size or tkhd.stored_size(n)
    return build_tiff([
        ("IFD0", [(0x0112, SHORT, [n]), (0x010F, ASCII, make), (0x0110, ASCII, model),
                  (0x8769, LONG, ("ifd", "Exif"))], None),
        ("Exif", [(0x9003, ASCII, "2024:05:06 07:08:09"), (0x9011, ASCII, "+02:00"),
                  (0xA434, ASCII, "vidorient lens"), (0xA002, SHORT, [pw]), (0xA003, SHORT, [ph])], None),
    ], little)


def tkhd_exif_tiff(n):
    """The TIFF block of tkhd.py's EXIF APP1 (IFD0 Orientation only, big-endian)."""
    app1 = tkhd.exif_app1(n)
    return app1[4 + 6:]                                  # marker, length, Exif\0\0


def raw_file(n):
    """A DNG-shaped raw, as cameras lay them out: IFD0 is a JPEG preview of the stored picture
    (NewSubfileType 1) with the Orientation and DNGVersion; SubIFD 0 is the full-resolution
    sensor image (a deflated 16-bit CFA of zeros: the readers never decode it)."""
    soi, rest = jpeg_segments(os.path.join(HERE, f"orient-{n}.jpg"))
    preview = soi + rest
    w, h = tkhd.stored_size(n)
    raw = zlib.compress(bytes(w * h * 2), 9)
    ifd0 = [(0x00FE, LONG, [1]), (0x0100, SHORT, [w]), (0x0101, SHORT, [h]), (0x0103, SHORT, [7]),
            (0x0106, SHORT, [6]), (0x010F, ASCII, "vidorient"), (0x0110, ASCII, "TestMedia raw"),
            (0x0111, LONG, ("blob", "preview")), (0x0112, SHORT, [n]), (0x0115, SHORT, [3]),
            (0x0116, SHORT, [h]), (0x0117, LONG, ("bloblen", "preview")), (0x014A, LONG, ("ifd", "Raw")),
            (0xC612, 1, [1, 4, 0, 0])]
    sensor = [(0x00FE, LONG, [0]), (0x0100, SHORT, [w]), (0x0101, SHORT, [h]), (0x0102, SHORT, [16]),
              (0x0103, SHORT, [8]), (0x0106, SHORT, [32803]), (0x0111, LONG, ("blob", "raw")),
              (0x0115, SHORT, [1]), (0x0116, SHORT, [h]), (0x0117, LONG, ("bloblen", "raw"))]
    return build_tiff([("IFD0", ifd0, None), ("Raw", sensor, None)], True, {"preview": preview, "raw": raw})


def tiff_file(n, little, loop=False):
    """An RGB TIFF of the stored picture, Adobe Deflate, one strip, with Make,
    Model, Orientation and an Exif IFD."""
    w, h, px = stored_pixels(n)
    rows = b"".join(px[y * w * 3:(y + 1) * w * 3] for y in range(h))
    strip = zlib.compress(rows, 9)
    ifd0 = [(0x0100, SHORT, [w]), (0x0101, SHORT, [h]), (0x0102, SHORT, [8, 8, 8]), (0x0103, SHORT, [8]),
            (0x0106, SHORT, [2]), (0x010F, ASCII, "vidorient"), (0x0110, ASCII, "TestMedia"),
            (0x0111, LONG, ("blob", "strip")), (0x0112, SHORT, [n]), (0x0115, SHORT, [3]),
            (0x0116, SHORT, [h]), (0x0117, LONG, ("bloblen", "strip")), (0x011C, SHORT, [1]),
            (0x8769, LONG, ("ifd", "Exif"))]
    exif = [(0x9003, ASCII, "2024:05:06 07:08:09"), (0xA002, SHORT, [w]), (0xA003, SHORT, [h])]
    # The loop: IFD0's next-IFD link points back at IFD0 itself.
    return build_tiff([("IFD0", ifd0, "IFD0" if loop else None), ("Exif", exif, None)], little, {"strip": strip})


# ---------------------------------------------------------------------------
# PNG, WebP, JPEG containers
# ---------------------------------------------------------------------------

def png_chunk(typ, data):
    return struct.pack(">I", len(data)) + typ + data + struct.pack(">I", zlib.crc32(typ + data))


def png(n, exif=None, exif_after_idat=False, text_chunks=()):
    w, h, px = stored_pixels(n)
    raw = b"".join(b"\0" + px[y * w * 3:(y + 1) * w * 3] for y in range(h))
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    idat = png_chunk(b"IDAT", zlib.compress(raw, 9))
    ex = png_chunk(b"eXIf", exif) if exif is not None else b""
    text = b"".join(png_chunk(t, d) for t, d in text_chunks)
    body = ihdr + text + (idat + ex if exif_after_idat else ex + idat)
    return tkhd_png_signature() + body + png_chunk(b"IEND", b"")


def tkhd_png_signature():
    return b"\x89PNG\r\n\x1a\n"


def raw_profile(tiff):
    """ImageMagick's 'Raw profile type exif' text: name, length, hex in lines of 72 digits."""
    data = b"Exif\0\0" + tiff
    digits = data.hex()
    lines = "\n".join(digits[i:i + 72] for i in range(0, len(digits), 72))
    return f"\nexif\n{len(data):8d}\n{lines}\n".encode()


def xmp_packet(n, element=False, prefix="tiff"):
    value = (f"<{prefix}:Orientation>{n}</{prefix}:Orientation>" if element else "")
    attribute = "" if element else f' {prefix}:Orientation="{n}"'
    return (f'<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
            f'<x:xmpmeta xmlns:x="adobe:ns:meta/">\n'
            f' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
            f'  <rdf:Description rdf:about="" xmlns:{prefix}="http://ns.adobe.com/tiff/1.0/"{attribute}>'
            f'{value}</rdf:Description>\n'
            f' </rdf:RDF>\n</x:xmpmeta>\n<?xpacket end="w"?>').encode()


def webp(n, exif, prefix=False):
    """VP8X + VP8L (cwebp -lossless of the stored picture) + EXIF chunk."""
    w, h, _ = stored_pixels(n)
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.png"), os.path.join(tmp, "out.webp")
        open(src, "wb").write(png(n))
        subprocess.run(["cwebp", "-quiet", "-lossless", "-exact", "-z", "9", "-metadata", "none", src, "-o", out],
                       check=True)
        data = open(out, "rb").read()
    assert data[12:16] == b"VP8L", "cwebp -lossless wrote no VP8L chunk"
    vp8l = data[12:]                                     # the one image chunk, already padded
    payload = (b"Exif\0\0" if prefix else b"") + exif

    def chunk(typ, d):
        return typ + struct.pack("<I", len(d)) + d + b"\0" * (len(d) & 1)

    vp8x = chunk(b"VP8X", bytes([0x08, 0, 0, 0]) + struct.pack("<I", w - 1)[:3] + struct.pack("<I", h - 1)[:3])
    body = b"WEBP" + vp8x + vp8l + chunk(b"EXIF", payload)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def jpeg_segments(path):
    """A JPEG made by generate.sh, without the EXIF APP1 tkhd.py inserted: (SOI, rest)."""
    data = open(path, "rb").read()
    rest = data[2:]
    if rest[:2] == b"\xff\xe1" and rest[4:10] == b"Exif\0\0":
        rest = rest[2 + struct.unpack_from(">H", rest, 2)[0]:]
    return data[:2], rest


def app1(payload):
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


XMP_ID = b"http://ns.adobe.com/xap/1.0/\0"


def jpeg(source_n, exif=None, xmp=None):
    soi, rest = jpeg_segments(os.path.join(HERE, f"orient-{source_n}.jpg"))
    segments = (app1(b"Exif\0\0" + exif) if exif else b"") + (app1(XMP_ID + xmp) if xmp else b"")
    return soi + segments + rest


# ---------------------------------------------------------------------------
# The files and their truth
# ---------------------------------------------------------------------------

def statement(kind, location, value):
    return {"kind": kind, "location": location, "raw_value": value}


def files():
    """name -> (bytes, manifest facts). Facts: format, the orientation the stored pixels
    need, the orientation a correct reader reports, statements, findings, EXIF facts."""
    out = {}

    def add(name, data, fmt, pixels, n, statements, findings=(), stored=None, exif=None, error=None, note=None):
        out[name] = (data, dict(photo_format=fmt, pixels_orientation=pixels, orientation=n, statements=statements,
                                reader_findings=list(findings), stored=stored, exif=exif or {}, photo_error=error,
                                note=note))

    maker = {"make": "vidorient", "model": "TestMedia"}
    for n in range(1, 9):
        add(f"orient-{n}.png", png(n, exif=tkhd_exif_tiff(n)), "png", n, n, [statement("exif", "eXIf chunk", n)],
            note="eXIf (tkhd.py's EXIF block, no Exif\\0\\0) before IDAT")
        for little in (True, False):
            name = f"orient-{n}-{'ii' if little else 'mm'}.tif"
            w, h = tkhd.stored_size(n)
            add(name, tiff_file(n, little), "tiff", n, n, [statement("exif", "IFD0", n)],
                exif=dict(maker, byte_order="II" if little else "MM", pixel_x_dimension=w, pixel_y_dimension=h,
                          date_time_original="2024:05:06 07:08:09"),
                note="RGB, Adobe Deflate, one strip, Orientation in IFD0, Exif IFD")
        add(f"orient-{n}.webp", webp(n, exif_tiff(n, little=True)), "webp", n, n, [statement("exif", "EXIF chunk", n)],
            exif=dict(maker, byte_order="II", lens_model="vidorient lens", offset_time_original="+02:00"),
            note="VP8X + VP8L (lossless) + EXIF chunk (TIFF without Exif\\0\\0)")

    six = exif_tiff(6)
    add("png-exif-after-idat.png", png(6, exif=six, exif_after_idat=True), "png", 6, 6,
        [statement("exif", "eXIf chunk", 6)], ["png-exif-after-idat"], exif=maker, note="eXIf after IDAT")
    add("png-exif-no-prefix.png", png(6, exif=six), "png", 6, 6, [statement("exif", "eXIf chunk", 6)], exif=maker,
        note="eXIf holding the TIFF block alone, as the PNG 1.5 extension says")
    add("png-exif-prefix.png", png(6, exif=b"Exif\0\0" + six), "png", 6, 1, [], ["png-exif-prefix"],
        exif=maker, note="eXIf starting Exif\\0\\0, as some writers do: Chromium ignores it (shows it as stored), "
        "exiftool reads 6")
    ztxt = b"Raw profile type exif\0\0" + zlib.compress(raw_profile(six), 9)
    add("png-raw-profile.png", png(6, text_chunks=[(b"zTXt", ztxt)]), "png", 6, 6,
        [statement("exif", "zTXt 'Raw profile type exif'", 6)], exif=maker,
        note="ImageMagick's older form: zTXt 'Raw profile type exif' holding hex of Exif\\0\\0 + TIFF")
    itxt = b"XML:com.adobe.xmp\0\0\0\0\0" + xmp_packet(6)
    add("png-xmp-only.png", png(6, text_chunks=[(b"iTXt", itxt)]), "png", 6, 6,
        [statement("xmp", "XMP in iTXt", 6)], note="no EXIF; XMP tiff:Orientation=\"6\" in an uncompressed iTXt")
    add("webp-exif-prefix.webp", webp(6, six, prefix=True), "webp", 6, 6, [statement("exif", "EXIF chunk", 6)],
        exif=maker, note="EXIF chunk starting Exif\\0\\0")

    add("jpeg-xmp-only.jpg", jpeg(6, xmp=xmp_packet(6)), "jpeg", 6, 6, [statement("xmp", "XMP in APP1", 6)],
        note="no EXIF; XMP tiff:Orientation=\"6\" (attribute form)")
    add("jpeg-xmp-conflict.jpg", jpeg(6, exif=six, xmp=xmp_packet(8, element=True, prefix="t")), "jpeg", 6, 6,
        [statement("exif", "APP1 EXIF IFD0", 6), statement("xmp", "XMP in APP1", 8)], exif=maker,
        note="EXIF says 6 (and the pixels need 6); XMP says 8, in element form under the prefix 't'")
    add("sidecar-6.jpg", jpeg(6, exif=exif_tiff(1, pixel_size=(96, 160))), "jpeg", 6, 1,
        [statement("exif", "APP1 EXIF IFD0", 1), statement("sidecar", "sidecar-6.jpg.xmp", 6)], exif=maker,
        note="stored for 6, EXIF says 1; the sidecar sidecar-6.jpg.xmp says 6 (an editor's choice)")
    out["sidecar-6.jpg.xmp"] = (xmp_packet(6), None)
    add("raw-6.dng", raw_file(6), "tiff", 6, 6, [statement("exif", "IFD0", 6)],
        exif={"make": "vidorient", "model": "TestMedia raw"},
        note="a DNG-shaped raw: IFD0 a JPEG preview with Orientation 6, SubIFD 0 the sensor image; thumbnails come from the preview")
    add("rotated-pixels.jpg", jpeg(1, exif=exif_tiff(6, pixel_size=(96, 160))), "jpeg", 1, 6,
        [statement("exif", "APP1 EXIF IFD0", 6)], stored=(160, 96),
        exif=dict(maker, pixel_x_dimension=96, pixel_y_dimension=160),
        note="pixels already upright (160x96) but EXIF still says 6 and PixelX/YDimension are 96x160: "
             "software rotated the pixels and left the tag")

    # Damaged files that decoders read (docs/photos.md, "Damaged files"): the orientation is read
    # and the damage is a finding, file-damaged.
    damaged = bytearray(png(6, exif=six))
    damaged[8 + 8 + 13] ^= 0xFF                          # IHDR's CRC, first byte
    idat = damaged.index(b"IDAT")
    damaged[idat + 4 + struct.unpack(">I", damaged[idat - 4:idat])[0]] ^= 0xFF  # IDAT's CRC
    add("damaged-png-crc.png", bytes(damaged), "png", 6, 6, [statement("exif", "eXIf chunk", 6)],
        ["file-damaged"], exif=maker,
        note="png-exif-no-prefix.png with IHDR's and IDAT's CRCs changed: libpng refuses it; ffmpeg, libvips "
             "and exiftool read it")
    soi, rest = jpeg_segments(os.path.join(HERE, "orient-6.jpg"))
    add("damaged-jpeg-stray.jpg", soi + app1(b"Exif\0\0" + six) + bytes.fromhex("000e41646f626500648000000001") + rest,
        "jpeg", 6, 6, [statement("exif", "APP1 EXIF IFD0", 6)], ["file-damaged"], exif=maker,
        note="orient-6.jpg with 14 stray bytes after the EXIF APP1 (an APP14 without its marker), as "
             "metadata-extractor-images' 'issue 121.jpg': libjpeg and exiftool step over them")
    packet = xmp_packet(8)
    short = app1(XMP_ID + packet)
    short = short[:2] + struct.pack(">H", len(XMP_ID + packet) + 2 - 2) + short[4:]
    soi, rest = jpeg_segments(os.path.join(HERE, "orient-8.jpg"))
    add("damaged-jpeg-short-xmp.jpg", soi + app1(b"Exif\0\0" + exif_tiff(8)) + short + rest, "jpeg", 8, 8,
        [statement("exif", "APP1 EXIF IFD0", 8), statement("xmp", "XMP in APP1", 8)], ["file-damaged"], exif=maker,
        note="orient-8.jpg with an XMP APP1 whose length is 2 bytes short of its packet, as "
             "metadata-extractor-images' 'Issue 308.jpg': the 2 bytes are stepped over")
    bad = bytearray(png(1, exif=tkhd_exif_tiff(1)))
    bad[12:16] = b"IHDX"
    add("bad-png-no-ihdr.png", bytes(bad), "png", None, None, [], error="the first chunk is 'IHDX', not 'IHDR'",
        note="orient-1.png with IHDR's type changed: libpng, libvips and exiftool refuse it")
    good = png(1, exif=tkhd_exif_tiff(1))
    cut = good.index(b"IDAT") - 4
    add("bad-png-length.png", good[:cut] + struct.pack(">I", 1 << 30) + good[cut + 4:], "png", None, None, [],
        error="past the end of the file", note="orient-1.png with IDAT's length set to 1 GiB")
    add("bad-tiff-loop.tif", tiff_file(6, little=False, loop=True), "tiff", None, None, [],
        error="the ifd links loop", note="orient-6-mm.tif whose IFD0 next-IFD link points at IFD0 itself: "
        "in a TIFF file the links are its structure, so a loop is a bad file")
    return out


def manifest_entries():
    """Entries for tkhd.py's manifest: entry()'s keys plus the photo keys."""
    m = {}
    for name, (data, facts) in files().items():
        if facts is None:
            continue
        if facts["photo_error"]:
            e = tkhd.bad(facts["note"])
        else:
            n, pixels = facts["orientation"], facts["pixels_orientation"]
            codec = {"png": "png", "tiff": "tiff", "webp": "webp", "jpeg": "mjpeg"}[facts["photo_format"]]
            stored = facts["stored"] or tkhd.stored_size(pixels)
            # What decides: EXIF when the file has it, else XMP (a sidecar never decides).
            kinds = [st["kind"] for st in facts["statements"]]
            source = "exif" if "exif" in kinds else ("xmp" if "xmp" in kinds else "none")
            e = tkhd.entry(facts["photo_format"], codec, 0, n, source, stored=stored, note=facts["note"])
            # No decoder matrix is claimed for these files (FFmpeg 5.1 reads no PNG/TIFF/WebP orientation).
            e.update(matrix=None, matrix_int32=None)
        e.update(photo_keys(facts))
        m[name] = e
    return m


PHOTO_KEYS = ("photo_format", "pixels_orientation", "statements", "reader_findings", "photo_error", "exif")


def photo_keys(facts=None):
    if facts is None:
        return {k: None for k in PHOTO_KEYS}
    return {k: facts[k] for k in PHOTO_KEYS}


def make():
    for name, (data, _) in files().items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)


# ---------------------------------------------------------------------------
# Verification against exiftool and ffmpeg
# ---------------------------------------------------------------------------

EXIFTOOL_GROUPS = {"exif": ("IFD0",), "xmp": ("XMP-tiff",), "sidecar": ("XMP-tiff",)}


def exiftool(path):
    r = subprocess.run(["exiftool", "-n", "-j", "-a", "-G1", "-Orientation", "-Make", "-Model", "-ExifImageWidth",
                        "-ExifImageHeight", "-Error", "-Warning", path], capture_output=True)
    return json.loads(r.stdout or b"[{}]")[0]


def check():
    checks = tkhd.Checks()
    failures, notes, expect = checks.failures, checks.notes, checks.expect
    for name, e in checks.manifest.items():
        if not e.get("photo_format"):
            continue
        path = os.path.join(HERE, name)
        data = open(path, "rb").read()
        t = exiftool(path)
        if e["bad"]:
            notes.append(f"{name}: exiftool says {t.get('ExifTool:Error') or t.get('ExifTool:Warning')}")
            if name == "bad-png-no-ihdr.png":
                expect(name, "the first chunk", data[12:16], b"IHDX")
            if name == "bad-png-length.png":
                at = data.index(b"IDAT") - 4
                expect(name, "IDAT runs past the end", at + 12 + struct.unpack(">I", data[at:at + 4])[0] > len(data), True)
            continue
        # Every statement in the file, as exiftool reads it (-a: duplicates kept, -G1: by group).
        for s in e["statements"]:
            if s["kind"] == "sidecar":
                t2 = exiftool(os.path.join(HERE, s["location"]))
                expect(name, "sidecar XMP-tiff:Orientation", t2.get("XMP-tiff:Orientation"), s["raw_value"])
                continue
            group = EXIFTOOL_GROUPS[s["kind"]][0]
            expect(name, f"exiftool {group}:Orientation", t.get(f"{group}:Orientation"), s["raw_value"])
        kinds = {s["kind"] for s in e["statements"]}
        if "exif" not in kinds:
            expect(name, "exiftool IFD0:Orientation", t.get("IFD0:Orientation"), None)
        if "xmp" not in kinds:
            expect(name, "exiftool XMP-tiff:Orientation", t.get("XMP-tiff:Orientation"), None)
        for key, tag in (("make", "IFD0:Make"), ("model", "IFD0:Model"), ("pixel_x_dimension", "ExifIFD:ExifImageWidth"),
                         ("pixel_y_dimension", "ExifIFD:ExifImageHeight")):
            if key in e["exif"]:
                expect(name, f"exiftool {tag}", t.get(tag), e["exif"][key])
        # The pixels: ffmpeg decodes the stored picture; its quadrants say which orientation it needs.
        # A raw's picture is its embedded JPEG preview (the sensor data is not a picture).
        w, h = e["stored_width"], e["stored_height"]
        if name.endswith(".dng"):
            preview = os.path.join(tempfile.mkdtemp(), "preview.jpg")
            start = data.index(b"\xff\xd8\xff")
            open(preview, "wb").write(data[start:data.index(b"\xff\xd9", start) + 2])
            path = preview
        img = tkhd.decode_ppm(path)
        expect(name, "decoded size", img[:2], (w, h))
        expect(name, "stored quadrants", tkhd.quadrants(img), tkhd.expected_stored(e["pixels_orientation"], w, h))
    return checks.report()


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "make":
        make()
    elif cmd == "check":
        return check()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
