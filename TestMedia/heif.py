#!/usr/bin/env python3
"""HEIF helpers for generate.sh (Python 3 standard library only).

Sub-commands:
  orient FILE N                     give FILE's primary item the irot/imir of EXIF
                                    orientation N (vidorient Core's Orientation.heif):
                                    new properties appended to ipco, associated with
                                    the primary item in ipma, irot first, then imir
  orient FILE N own|shared          the same, and each thumbnail item (thmb) gets
                                    irot/imir of N too: its own new boxes, or the
                                    primary item's boxes shared
  second-entry FILE R               append a second ipma entry for the primary item
                                    holding a new irot R (libheif reads the first only)
  meta-last SRC DST                 move SRC's top-level meta box after its mdat
  truncate-meta SRC DST             copy SRC up to the middle of its meta box
  iloc-past-end SRC DST             make the primary item's first extent run past
                                    the end of the file
  check                             verify every heic/avif file of manifest.json with
                                    heif-info, heif-convert (quadrant colours) and
                                    exiftool; exits non-zero on any mismatch

The box editor rewrites only what it must: sizes of the boxes it grows, and the
iloc offsets (construction method 0) that point past a meta box that grew or moved.
"""

import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import tkhd

HERE = os.path.dirname(os.path.abspath(__file__))

# Core's Orientation.heif: EXIF orientation -> (irot anticlockwise quarter turns, imir axis).
# imir axis 0 flips top and bottom, 1 swaps left and right (ISO/IEC 23008-12:2022, libheif).
HEIF = {1: (0, None), 2: (0, 1), 3: (2, None), 4: (0, 0), 5: (3, 1), 6: (3, None), 7: (3, 0), 8: (1, None)}


# ---------------------------------------------------------------------------
# Box editing
# ---------------------------------------------------------------------------

def boxes(data, start, end):
    """(type, offset, header size, size) of each box from start to end."""
    out, pos = [], start
    while pos + 8 <= end:
        size, typ = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[pos + 8:pos + 16])[0], 16
        elif size == 0:
            size = end - pos
        out.append((typ.decode("latin-1"), pos, header, size))
        pos += size
    return out


def box(typ, payload):
    return struct.pack(">I4s", 8 + len(payload), typ.encode("latin-1")) + payload


def full_box(typ, version, flags, payload):
    return box(typ, struct.pack(">I", version << 24 | flags) + payload)


class Meta:
    """A top-level meta box split into its children (as bytes), to rebuild after edits."""

    def __init__(self, data):
        self.data = data
        top = boxes(data, 0, len(data))
        self.top = top
        (_, self.offset, header, self.size) = next(b for b in top if b[0] == "meta")
        self.head = data[self.offset + header:self.offset + header + 4]   # version and flags
        self.children = [(t, data[o:o + s]) for t, o, _, s in
                         boxes(data, self.offset + header + 4, self.offset + self.size)]

    def child(self, typ):
        return next(b for t, b in self.children if t == typ)

    def replace(self, typ, new):
        self.children = [(t, new if t == typ else b) for t, b in self.children]

    def primary(self):
        pitm = self.child("pitm")
        return struct.unpack(">H", pitm[12:14])[0] if pitm[8] == 0 else struct.unpack(">I", pitm[12:16])[0]

    def build(self):
        return box("meta", self.head + b"".join(b for _, b in self.children))


def parse_iloc(b):
    """iloc as (version, flags, field sizes, items); item = [id, method, dref, base, [[index, off, len]]]."""
    version, flags = b[8], int.from_bytes(b[9:12], "big")
    os_, ls = b[12] >> 4, b[12] & 15
    bs, is_ = b[13] >> 4, (b[13] & 15) if version else 0
    pos = 14
    idw = 2 if version < 2 else 4
    count = int.from_bytes(b[pos:pos + idw], "big")
    pos += idw
    items = []

    def take(n):
        nonlocal pos
        v = int.from_bytes(b[pos:pos + n], "big") if n else 0
        pos += n
        return v
    for _ in range(count):
        iid = take(idw)
        method = take(2) & 15 if version else 0
        dref = take(2)
        base = take(bs)
        extents = [[take(is_), take(os_), take(ls)] for _ in range(take(2))]
        items.append([iid, method, dref, base, extents])
    return version, flags, (os_, ls, bs, is_), items


def build_iloc(version, flags, sizes, items):
    os_, ls, bs, is_ = sizes
    idw = 2 if version < 2 else 4
    out = bytes([os_ << 4 | ls, bs << 4 | (is_ if version else 0)]) + len(items).to_bytes(idw, "big")
    for iid, method, dref, base, extents in items:
        out += iid.to_bytes(idw, "big")
        if version:
            out += method.to_bytes(2, "big")
        out += dref.to_bytes(2, "big") + base.to_bytes(bs, "big") if bs else dref.to_bytes(2, "big")
        out += len(extents).to_bytes(2, "big")
        for index, off, length in extents:
            out += (index.to_bytes(is_, "big") if version and is_ else b"") + off.to_bytes(os_, "big")
            out += length.to_bytes(ls, "big")
    return full_box("iloc", version, flags, out)


def shift_file_offsets(meta, delta):
    """Move every construction-method-0 extent by delta bytes."""
    version, flags, sizes, items = parse_iloc(meta.child("iloc"))
    for item in items:
        if item[1] != 0:
            continue
        if sizes[2]:
            item[3] += delta
        else:
            for extent in item[4]:
                extent[1] += delta
    meta.replace("iloc", build_iloc(version, flags, sizes, items))


def write_meta(path, data, meta, new_meta):
    """Put new_meta where the meta box was; shift file offsets when it grew before the data."""
    delta = len(new_meta) - meta.size
    if delta and any(t == "mdat" and o > meta.offset for t, o, _, _ in meta.top):
        shift_file_offsets(meta, delta)
        new_meta = meta.build()
        assert len(new_meta) - meta.size == delta, "iloc changed size"
    with open(path, "wb") as f:
        f.write(data[:meta.offset] + new_meta + data[meta.offset + meta.size:])


def referring(meta, kind, to):
    """The items with a reference of type kind to any of the items to."""
    iref = next((b for t, b in meta.children if t == "iref"), None)
    if iref is None:
        return []
    width = 2 if iref[8] == 0 else 4
    found = []
    for typ, o, _, _ in boxes(iref, 12, len(iref)):
        p = o + 8
        source = int.from_bytes(iref[p:p + width], "big")
        count = int.from_bytes(iref[p + width:p + width + 2], "big")
        targets = [int.from_bytes(iref[p + width + 2 + i * width:p + width + 4 + i * width], "big")
                   for i in range(count)]
        if typ == kind and set(targets) & set(to):
            found.append(source)
    return found


def thumbnails(meta):
    """The items with a thmb reference to the primary item."""
    return referring(meta, "thmb", [meta.primary()])


def set_orientation(path, n, thumbs="none"):
    """Append irot/imir for orientation n to ipco and associate them, essential, with the
    primary item after its other properties: irot first, then imir. thumbs: "none" leaves the
    thumbnail items as they are, "own" gives each its own new irot/imir boxes of the same
    values, "shared" associates the primary item's new boxes with them too."""
    irot, imir = HEIF[n]
    new = ([box("irot", bytes([irot]))] if irot else []) + ([box("imir", bytes([imir]))] if imir is not None else [])
    if not new:
        return
    data = open(path, "rb").read()
    meta = Meta(data)
    primary = meta.primary()
    thumb_items = thumbnails(meta) if thumbs != "none" else []
    assert thumbs == "none" or thumb_items, "the file has no thumbnail item"
    iprp = meta.child("iprp")
    parts = {t: iprp[o:o + s] for t, o, _, s in boxes(iprp, 8, len(iprp))}
    ipco = parts["ipco"]
    first_new = len(boxes(ipco, 8, len(ipco))) + 1
    # Property indices of each item's new boxes.
    indices = {primary: [first_new + i for i in range(len(new))]}
    for k, item in enumerate(thumb_items):
        own = first_new + len(new) * (k + 1)
        indices[item] = [own + i for i in range(len(new))] if thumbs == "own" else indices[primary]
    copies = 1 + (len(thumb_items) if thumbs == "own" else 0)
    ipco = box("ipco", ipco[8:] + b"".join(new) * copies)
    ipma = parts["ipma"]
    version, flags = ipma[8], int.from_bytes(ipma[9:12], "big")
    idw, ixw = (2 if version < 1 else 4), (2 if flags & 1 else 1)
    count = struct.unpack(">I", ipma[12:16])[0]
    pos, body = 16, b""
    for _ in range(count):
        iid = int.from_bytes(ipma[pos:pos + idw], "big")
        k = ipma[pos + idw]
        assoc = ipma[pos + idw + 1:pos + idw + 1 + k * ixw]
        pos += idw + 1 + k * ixw
        if iid in indices:
            essential = 0x8000 if ixw == 2 else 0x80
            assoc += b"".join((essential | index).to_bytes(ixw, "big") for index in indices[iid])
            k += len(new)
        body += iid.to_bytes(idw, "big") + bytes([k]) + assoc
    ipma = full_box("ipma", version, flags, struct.pack(">I", count) + body)
    rebuilt = b"".join(ipco if t == "ipco" else ipma if t == "ipma" else b for t, b in parts.items())
    meta.replace("iprp", box("iprp", rebuilt))
    write_meta(path, data, meta, meta.build())


def second_entry(path, irot):
    """Append a second ipma entry for the primary item holding a new irot box (issue 28 item 10):
    libheif reads only an item's first entry, exiftool every entry."""
    data = open(path, "rb").read()
    meta = Meta(data)
    primary = meta.primary()
    iprp = meta.child("iprp")
    parts = {t: iprp[o:o + s] for t, o, _, s in boxes(iprp, 8, len(iprp))}
    ipco = parts["ipco"]
    index = len(boxes(ipco, 8, len(ipco))) + 1
    ipco = box("ipco", ipco[8:] + box("irot", bytes([irot])))
    ipma = parts["ipma"]
    version, flags = ipma[8], int.from_bytes(ipma[9:12], "big")
    idw, ixw = (2 if version < 1 else 4), (2 if flags & 1 else 1)
    count = struct.unpack(">I", ipma[12:16])[0]
    entry = primary.to_bytes(idw, "big") + bytes([1]) + ((0x8000 if ixw == 2 else 0x80) | index).to_bytes(ixw, "big")
    ipma = full_box("ipma", version, flags, struct.pack(">I", count + 1) + ipma[16:] + entry)
    rebuilt = b"".join(ipco if t == "ipco" else ipma if t == "ipma" else b for t, b in parts.items())
    meta.replace("iprp", box("iprp", rebuilt))
    write_meta(path, data, meta, meta.build())


def meta_last(src, dst):
    """ftyp, mdat..., meta: the meta box moved to the end, offsets shifted back by its size."""
    data = open(src, "rb").read()
    meta = Meta(data)
    assert all(o > meta.offset for t, o, _, _ in meta.top if t == "mdat"), "meta is already last"
    shift_file_offsets(meta, -meta.size)
    moved = meta.build()
    assert len(moved) == meta.size
    with open(dst, "wb") as f:
        f.write(data[:meta.offset] + data[meta.offset + meta.size:] + moved)


def truncate_meta(src, dst):
    data = open(src, "rb").read()
    meta = Meta(data)
    with open(dst, "wb") as f:
        f.write(data[:meta.offset + meta.size // 2])


def iloc_past_end(src, dst):
    """The primary item's first extent grows to twice the file's size."""
    data = open(src, "rb").read()
    meta = Meta(data)
    version, flags, sizes, items = parse_iloc(meta.child("iloc"))
    item = next(i for i in items if i[0] == meta.primary())
    item[4][0][2] = 2 * len(data)
    meta.replace("iloc", build_iloc(version, flags, sizes, items))
    write_meta(dst, data, meta, meta.build())


# ---------------------------------------------------------------------------
# Verification
# ---------------------------------------------------------------------------

def heif_info(path):
    r = tkhd.run("heif-info", path)
    return r.returncode, r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")


def decode_upright(path):
    """heif-convert applies irot/imir (and clap): the picture as a viewer shows it."""
    with tempfile.TemporaryDirectory() as folder:
        png = os.path.join(folder, "out.png")
        r = tkhd.run("heif-convert", path, png)
        if r.returncode:
            raise RuntimeError(f"heif-convert failed on {path}: {r.stderr.decode(errors='replace')}")
        return tkhd.decode_ppm(png)


def exiftool(path):
    r = tkhd.run("exiftool", "-j", "-n", "-Orientation", "-Rotation", "-ImageWidth", "-ImageHeight", path)
    return json.loads(r.stdout or b"[{}]")[0]


def check():
    checks = tkhd.Checks()
    failures, notes, expect = checks.failures, checks.notes, checks.expect
    for name, e in checks.manifest.items():
        path = os.path.join(HERE, name)
        if e["bad"] and name.endswith((".heic", ".avif")):
            rc, text = heif_info(path)
            notes.append(f"{name}: heif-info exit {rc}: {text.strip().splitlines()[-1] if text.strip() else ''}")
            if rc == 0:
                failures.append(f"{name}: heif-info read a bad file")
            continue
        if e["container"] not in ("heic", "avif"):
            continue
        try:
            rc, text = heif_info(path)
            expect(name, "heif-info exit code", rc, 0)
            size = re.search(r"image: (\d+)x(\d+) \(id=\d+\), primary", text)
            # heif-info prints the size after irot: the displayed size.
            expect(name, "heif-info primary size", size and (int(size[1]), int(size[2])),
                   (e["display_width"], e["display_height"]))
            # A thumbnail item is shown with its own irot/imir: in the primary item's shape.
            thumb = re.search(r"thumbnail: (\d+)x(\d+)", text)
            if thumb:
                expect(name, "heif-info thumbnail shape", int(thumb[1]) > int(thumb[2]),
                       e["display_width"] > e["display_height"])
            if "heic-thumbnail" in name:
                expect(name, "heif-info thumbnail", bool(thumb), True)
            brand = open(path, "rb").read()[8:12]
            expect(name, "ftyp major brand", brand, {"heic": b"heic", "avif": b"avif"}[e["container"]])
            shown = decode_upright(path)
            expect(name, "heif-convert size", shown[:2], (tkhd.UPRIGHT_W, tkhd.UPRIGHT_H))
            expect(name, "heif-convert quadrants", tkhd.quadrants(shown), tkhd.UPRIGHT)
            tool = exiftool(path)
            irot, imir = HEIF[e["exif_orientation"]]
            # exiftool -n prints irot as Rotation in anticlockwise degrees; it has no tag for imir.
            expect(name, "exiftool Rotation", tool.get("Rotation"), 90 * irot if irot else None)
            expect(name, "exiftool ImageWidth", (tool.get("ImageWidth"), tool.get("ImageHeight")),
                   (e["stored_width"], e["stored_height"]))
            # The EXIF inside is informative only; exiftool shows it as Orientation.
            expect(name, "exiftool Orientation", tool.get("Orientation"), 8 if name == "heic-exif-conflict.heic" else None)
            notes.append(f"{name}: heif-convert upright, exiftool Rotation {tool.get('Rotation')} "
                         f"Orientation {tool.get('Orientation')}")
        except Exception as ex:  # report every file
            failures.append(f"{name}: {type(ex).__name__}: {ex}")
    return checks.report()


def main(argv):
    cmd, args = (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
    if cmd == "orient" and len(args) == 2:
        set_orientation(args[0], int(args[1]))
    elif cmd == "orient" and len(args) == 3 and args[2] in ("own", "shared"):
        set_orientation(args[0], int(args[1]), args[2])
    elif cmd == "second-entry" and len(args) == 2:
        second_entry(args[0], int(args[1]))
    elif cmd == "meta-last" and len(args) == 2:
        meta_last(*args)
    elif cmd == "truncate-meta" and len(args) == 2:
        truncate_meta(*args)
    elif cmd == "iloc-past-end" and len(args) == 2:
        iloc_past_end(*args)
    elif cmd == "check" and not args:
        return check()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (ValueError, OSError, StopIteration, AssertionError) as ex:
        print(f"heif.py: error: {ex!r}", file=sys.stderr)
        sys.exit(1)
