#!/usr/bin/env python3
"""Helpers for generate.sh (Python 3 standard library only).

Sub-commands:
  matrix N W H [SCALE]              print the 9 tkhd numbers for EXIF orientation N
                                    of a picture stored at W x H (Apple's translation)
  set FILE a b u c d v tx ty w      write a display matrix (real numbers) into the
                                    tkhd box of FILE's video track
  exif FILE N                       insert an EXIF APP1 segment (Orientation = N)
                                    right after the JPEG SOI marker
  truncate SRC DST                  copy SRC up to the middle of its moov box
  random FILE SIZE SEED             write SIZE reproducible pseudo-random bytes
  manifest                          write manifest.json (truth from the construction)
  check                             verify every file against the manifest with
                                    ffprobe/ffmpeg; exits non-zero on any mismatch

Conventions (shared with the rest of vidorient):
  * An orientation is an EXIF orientation 1-8: what to do to the STORED pixels to
    DISPLAY them upright: optional horizontal mirror first, then a clockwise rotation.
  * A display matrix is in tkhd order [a, b, u, c, d, v, tx, ty, w] with
    x' = a*x + c*y + tx, y' = b*x + d*y + ty, y pointing down (FFmpeg's layout).
    a, b, c, d, tx, ty are 16.16 fixed point in the file; u, v, w are 2.30.
"""

import hashlib
import json
import math
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# Orientation conventions
# ---------------------------------------------------------------------------

# Linear part (a, b, c, d) of the display matrix for each EXIF orientation.
LINEAR = {
    1: (1, 0, 0, 1),    # none
    2: (-1, 0, 0, 1),   # mirror
    3: (-1, 0, 0, -1),  # rotate 180
    4: (1, 0, 0, -1),   # mirror then 180 = vertical flip
    5: (0, 1, 1, 0),    # mirror then 270 cw = transpose
    6: (0, 1, -1, 0),   # rotate 90 cw
    7: (0, -1, -1, 0),  # mirror then 90 cw = transverse
    8: (0, -1, 1, 0),   # rotate 270 cw
}
ROTATION = {1: 0, 2: 0, 3: 180, 4: 180, 5: 270, 6: 90, 7: 90, 8: 270}  # cw, after mirror
MIRRORED = {n: n in (2, 4, 5, 7) for n in LINEAR}
IDENTITY = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]


def orientation_matrix(n, w, h, scale=1.0):
    """The 9 real tkhd entries for orientation n of a picture stored at w x h.

    The translation is what Apple writes: it moves the transformed picture back
    into the positive quadrant (tx = W if a<0 + H if c<0, ty likewise)."""
    a, b, c, d = LINEAR[n]
    tx = (w if a < 0 else 0) + (h if c < 0 else 0)
    ty = (w if b < 0 else 0) + (h if d < 0 else 0)
    return [float(x) for x in (scale * a, scale * b, 0, scale * c, scale * d, 0,
                               scale * tx, scale * ty, 1)]


def rotation_matrix(degrees_cw):
    """A pure rotation by degrees_cw clockwise (y down), no translation."""
    r = math.radians(degrees_cw)
    return [math.cos(r), math.sin(r), 0.0, -math.sin(r), math.cos(r), 0.0, 0.0, 0.0, 1.0]


def to_fixed(m):
    """9 reals -> 9 int32: 16.16 for a, b, c, d, tx, ty; 2.30 for u, v, w."""
    out = []
    for i, x in enumerate(m):
        v = int(round(x * (1 << (30 if i % 3 == 2 else 16))))
        if not -2**31 <= v < 2**31:
            raise ValueError(f"matrix entry {x} does not fit its fixed-point format")
        out.append(v)
    return out


def from_fixed(m):
    """9 int32 -> 9 reals (inverse of to_fixed, exact)."""
    return [v / (1 << (30 if i % 3 == 2 else 16)) for i, v in enumerate(m)]


def ffprobe_rotation(fixed):
    """What ffprobe -show_streams prints as side_data "rotation" for this matrix:
    FFmpeg's av_display_rotation_get() (libavutil/display.c), then ffprobe's
    print_int() truncates the double toward zero."""
    fp = [v / 65536.0 for v in fixed]  # CONV_FP
    scale0 = math.hypot(fp[0], fp[3])
    scale1 = math.hypot(fp[1], fp[4])
    if scale0 == 0.0 or scale1 == 0.0:
        return None  # FFmpeg returns NaN
    r = math.atan2(fp[1] / scale1, fp[0] / scale0) * 180 / math.pi
    return int(-r)


# FFmpeg's own matrix builders, replicated so the manifest can state what the
# FFmpeg 5.1 decoders attach to frames without reading it back from FFmpeg.
def av_display_rotation_set(angle):
    """libavutil/display.c: note the angle is CLOCKWISE (y down)."""
    radians = -angle * math.pi / 180.0
    c, s = math.cos(radians), math.sin(radians)
    conv = lambda x: int(x * (1 << 16))  # CONV_DB: a C cast, truncates toward zero
    return [conv(c), conv(-s), 0, conv(s), conv(c), 0, 0, 0, 1 << 30]


def av_display_matrix_flip(m, hflip, vflip):
    """libavutil/display.c: negates the x (hflip) / y (vflip) column."""
    f = (-1 if hflip else 1, -1 if vflip else 1, 1)
    return [v * f[i % 3] for i, v in enumerate(m)]


def ffmpeg_sei_frame_matrix(anticlockwise_rotation, hflip=0, vflip=0):
    """Frame display matrix FFmpeg 5.1's H.264 decoder attaches for a display
    orientation SEI (anticlockwise_rotation in units of 360/65536 degrees).
    Debian's 5.1 negates the angle (the SEI angle is anticlockwise, the setter
    takes clockwise) once per flip, then applies the flips."""
    angle = anticlockwise_rotation * 360 / float(1 << 16)
    angle = -angle * (1 - 2 * bool(hflip)) * (1 - 2 * bool(vflip))
    return av_display_matrix_flip(av_display_rotation_set(angle), hflip, vflip)


def ffmpeg_exif_frame_matrix(n):
    """Frame display matrix FFmpeg's mjpeg decoder attaches for EXIF Orientation n
    (None: no side data)."""
    table = {2: (0.0, 1), 3: (180.0, 0), 4: (180.0, 1), 5: (90.0, 1),
             6: (90.0, 0), 7: (-90.0, 1), 8: (-90.0, 0)}
    if n not in table:
        return None
    angle, hflip = table[n]
    return av_display_matrix_flip(av_display_rotation_set(angle), hflip, 0)


# ---------------------------------------------------------------------------
# ISO BMFF / QuickTime boxes
# ---------------------------------------------------------------------------

def iter_boxes(data, start, end):
    """Yield (type, box_start, header_size, box_size) for boxes in data[start:end].
    Handles 64-bit sizes (size == 1) and 'to end of file' (size == 0)."""
    pos = start
    while pos + 8 <= end:
        size, typ = struct.unpack_from(">I4s", data, pos)
        header = 8
        if size == 1:
            if pos + 16 > end:
                raise ValueError(f"truncated 64-bit box header at {pos}")
            size = struct.unpack_from(">Q", data, pos + 8)[0]
            header = 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            raise ValueError(f"box {typ!r} at {pos} with size {size} overruns its parent")
        yield typ, pos, header, size
        pos += size


def child(data, parent, typ):
    """First child box of the given type, or None. parent = (start, header, size)."""
    start, header, size = parent
    for t, pos, hdr, sz in iter_boxes(data, start + header, start + size):
        if t == typ:
            return pos, hdr, sz
    return None


def top_level(data):
    return [(t, pos, hdr, sz) for t, pos, hdr, sz in iter_boxes(data, 0, len(data))]


def video_tkhd(data):
    """(offset, version) of the tkhd box of the one video track.
    The video trak is the one whose mdia > hdlr handler_type is 'vide'."""
    moovs = [(pos, hdr, sz) for t, pos, hdr, sz in top_level(data) if t == b"moov"]
    if len(moovs) != 1:
        raise ValueError(f"expected one moov box, found {len(moovs)}")
    found = []
    m = moovs[0]
    for t, pos, hdr, sz in iter_boxes(data, m[0] + m[1], m[0] + m[2]):
        if t != b"trak":
            continue
        mdia = child(data, (pos, hdr, sz), b"mdia")
        hdlr = mdia and child(data, mdia, b"hdlr")
        # hdlr payload: version/flags (4), pre_defined (4), handler_type (4)
        if hdlr and data[hdlr[0] + hdlr[1] + 8:hdlr[0] + hdlr[1] + 12] == b"vide":
            tkhd = child(data, (pos, hdr, sz), b"tkhd")
            if tkhd is None:
                raise ValueError("video trak without tkhd")
            found.append(tkhd)
    if len(found) != 1:
        raise ValueError(f"expected one video track, found {len(found)}")
    return found[0]


def tkhd_matrix_offset(data, tkhd):
    """Where the 36-byte matrix starts. The payload after the box header is:
    version/flags (4), then creation, modification, track_ID, reserved, duration
    (4+4+4+4+4 for version 0, 8+8+4+4+8 for version 1), reserved (8),
    layer, alternate_group, volume, reserved (2 each), matrix."""
    pos, header, size = tkhd
    version = data[pos + header]
    if version not in (0, 1):
        raise ValueError(f"unknown tkhd version {version}")
    offset = pos + header + (40 if version == 0 else 52)
    if offset + 36 > pos + size:
        raise ValueError("tkhd too short")
    return offset


def set_matrix(path, m):
    data = bytearray(open(path, "rb").read())
    offset = tkhd_matrix_offset(data, video_tkhd(data))
    struct.pack_into(">9i", data, offset, *to_fixed(m))
    with open(path, "wb") as f:
        f.write(data)


def read_matrix(path):
    data = open(path, "rb").read()
    return list(struct.unpack_from(">9i", data, tkhd_matrix_offset(data, video_tkhd(data))))


def moov_before_mdat(path):
    order = [t for t, *_ in top_level(open(path, "rb").read()) if t in (b"moov", b"mdat")]
    return order.index(b"moov") < order.index(b"mdat")


def truncate_in_moov(src, dst):
    """Cut src in the middle of its moov box so the header can never be complete."""
    data = open(src, "rb").read()
    moov = [(pos, sz) for t, pos, hdr, sz in top_level(data) if t == b"moov"][0]
    with open(dst, "wb") as f:
        f.write(data[:moov[0] + moov[1] // 2])


# ---------------------------------------------------------------------------
# JPEG / EXIF
# ---------------------------------------------------------------------------

def exif_app1(orientation):
    """Smallest useful EXIF APP1: big-endian TIFF header, IFD0 with one entry,
    Orientation (tag 0x0112, type SHORT, count 1), no next IFD."""
    tiff = b"MM" + struct.pack(">HI", 42, 8)          # byte order, magic, IFD0 offset
    ifd0 = (struct.pack(">H", 1)                       # number of entries
            + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)  # SHORT, left-justified
            + struct.pack(">I", 0))                    # no IFD1
    payload = b"Exif\x00\x00" + tiff + ifd0
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def insert_exif(path, orientation):
    data = open(path, "rb").read()
    if data[:2] != b"\xff\xd8":
        raise ValueError(f"{path} is not a JPEG")
    rest = data[2:]
    # Idempotent: replace an EXIF APP1 we inserted before instead of stacking another.
    if rest[:2] == b"\xff\xe1" and rest[4:10] == b"Exif\x00\x00":
        rest = rest[2 + struct.unpack_from(">H", rest, 2)[0]:]
    with open(path, "wb") as f:
        f.write(data[:2] + exif_app1(orientation) + rest)


def write_random(path, size, seed):
    """SHA-256 in counter mode: reproducible on any Python, unlike random.Random."""
    out = bytearray()
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        counter += 1
    with open(path, "wb") as f:
        f.write(bytes(out[:size]))


# ---------------------------------------------------------------------------
# Manifest: the truth, computed from how generate.sh builds each file
# ---------------------------------------------------------------------------

UPRIGHT_W, UPRIGHT_H = 160, 96
SEI_ANTICLOCKWISE = 270 * 65536 // 360   # h264_metadata rotate=270 -> 49152


def stored_size(n):
    return (UPRIGHT_H, UPRIGHT_W) if n >= 5 else (UPRIGHT_W, UPRIGHT_H)


def entry(container, codec, index, n, source, matrix=None, stored=None, sar=(1, 1),
          attached_pic=False, faststart=True, frame_matrix=None, note=None):
    """One manifest entry for a picture whose effective orientation is n (EXIF
    numbering; None for the odd angle, then matrix says it all)."""
    w, h = stored or stored_size(n)
    sw = w * sar[0] / sar[1]                          # SAR first, then the orientation
    if n is None:                                     # bounding box of the rotated picture
        r = math.atan2(matrix[1], matrix[0])
        dw = abs(sw * math.cos(r)) + abs(h * math.sin(r))
        dh = abs(sw * math.sin(r)) + abs(h * math.cos(r))
    elif n >= 5:
        dw, dh = h, sw
    else:
        dw, dh = sw, h
    if frame_matrix is not None:                      # decoder-reported (sei, exif)
        fixed = frame_matrix
    else:
        fixed = to_fixed(matrix or IDENTITY)
    in_container = source == "container"
    return {
        "container": container,
        "video_codec": codec,
        "video_index": index,
        "attached_pic": attached_pic,
        "stored_width": w,
        "stored_height": h,
        "sample_aspect_ratio": f"{sar[0]}:{sar[1]}",
        "display_width": round(dw),
        "display_height": round(dh),
        "exif_orientation": n,
        "rotation": ROTATION[n] if n is not None else round(math.degrees(math.atan2(matrix[1], matrix[0]))) % 360,
        "mirrored": MIRRORED[n] if n is not None else False,
        "orientation_source": source,
        "matrix": from_fixed(fixed),
        "matrix_int32": fixed,
        # FFmpeg's mov demuxer exports no side data for an identity tkhd matrix;
        # stream side data never comes from SEI or EXIF.
        "ffprobe_rotation": ffprobe_rotation(fixed) if in_container and fixed != to_fixed(IDENTITY) else None,
        "faststart": faststart if container in ("mp4", "mov", "m4a") else None,
        "bad": False,
        "why": None,
        "note": note,
    }


def blank():
    """An entry with every key of entry() set to null (same keys for every file)."""
    return {k: None for k in entry("mp4", "h264", 0, 1, "none")}


def no_picture(container, **overrides):
    e = blank()
    e.update(container=container, attached_pic=False, orientation_source="none",
             bad=False, faststart=True)
    e.update(overrides)
    return e


def bad(why):
    e = blank()
    e.update(bad=True, why=why)
    return e


def build_manifest():
    m = {}
    for n in range(1, 9):
        w, h = stored_size(n)
        source = "container" if n != 1 else "none"
        mat = orientation_matrix(n, w, h) if n != 1 else IDENTITY
        m[f"orient-{n}.mp4"] = entry("mp4", "h264", 0, n, source, mat)
        m[f"orient-{n}-hevc.mov"] = entry("mov", "hevc", 0, n, source, mat, faststart=False,
                                          note="moov after mdat")
    m["audio-first.mov"] = entry("mov", "h264", 1, 6, "container", orientation_matrix(6, 96, 160),
                                 note="AAC is stream 0, video stream 1, like iPhone files")
    m["odd-angle-30.mp4"] = entry("mp4", "h264", 0, None, "container", rotation_matrix(30),
                                  stored=(160, 96), note="30 degrees clockwise, no translation")
    m["scaled-2x.mp4"] = entry("mp4", "h264", 0, 6, "container",
                               orientation_matrix(6, 96, 160, scale=2.0),
                               note="orientation 6 matrix scaled by 2; display size ignores the scale")
    m["sei-90.mp4"] = entry(
        "mp4", "h264", 0, 6, "sei", stored=(96, 160),
        frame_matrix=ffmpeg_sei_frame_matrix(SEI_ANTICLOCKWISE),
        note="identity tkhd; H.264 display orientation SEI anticlockwise_rotation=49152 "
             "(270 deg anticlockwise = 90 deg clockwise), on the first (IDR) access unit only; "
             "matrix = frame display matrix FFmpeg 5.1 attaches to the first decoded frame")
    # tkhd width/height of an anamorphic track is the SAR-corrected 96x160, and the
    # matrix works in that space, so the translation uses 96x160, not 48x160.
    m["anamorphic-6.mp4"] = entry("mp4", "h264", 0, 6, "container", orientation_matrix(6, 96, 160),
                                  stored=(48, 160), sar=(2, 1),
                                  note="48x160 coded, SAR 2:1 (H.264 VUI and pasp)")
    m["audio-only.m4a"] = no_picture("m4a", note="AAC only, no video stream")
    m["cover-art.m4a"] = entry("m4a", "png", 1, 1, "none", IDENTITY, stored=(160, 96),
                               attached_pic=True,
                               note="AAC plus the upright picture as PNG cover art (attached_pic)")
    for n in range(1, 9):
        m[f"orient-{n}.jpg"] = entry("jpeg", "mjpeg", 0, n, "exif",
                                     frame_matrix=ffmpeg_exif_frame_matrix(n) or to_fixed(IDENTITY),
                                     note="matrix = frame display matrix FFmpeg's mjpeg decoder attaches")
    m["no-exif.jpg"] = entry("jpeg", "mjpeg", 0, 1, "none", IDENTITY)
    import photos  # photos.py builds on this file; imported here to avoid a cycle at load time
    for n in range(1, 9):
        m[f"orient-{n}.jpg"].update(photo_format="jpeg", pixels_orientation=n, reader_findings=[], photo_error=None,
                                    statements=[{"kind": "exif", "location": "APP1 EXIF IFD0", "raw_value": n}],
                                    exif={})
    m["no-exif.jpg"].update(photo_format="jpeg", pixels_orientation=1, statements=[], reader_findings=[],
                            photo_error=None, exif={})
    m.update(photos.manifest_entries())
    # HEIF: stored pixels are the inverse of n; irot/imir (Core's Orientation.heif) decide.
    for n in range(1, 9):
        for ext, codec, tool in (("heic", "hevc", "heif-enc + heif.py orient"), ("avif", "av1", "avifenc --irot/--imir")):
            # Orientation 1 is written without irot or imir: nothing turns or mirrors it.
            m[f"orient-{n}.{ext}"] = entry(ext, codec, 0, n, "heif" if n != 1 else "none", orientation_matrix(n, *stored_size(n)),
                                           note=f"{tool}; irot then imir in ipma order")
    m["heic-exif-conflict.heic"] = entry(
        "heic", "hevc", 0, 6, "heif", orientation_matrix(6, 96, 160),
        note="irot 3 (orientation 6) decides; the EXIF item (copied by heif-enc from a JPEG) says Orientation 8")
    m["heic-thumbnail-6.heic"] = entry(
        "heic", "hevc", 0, 6, "heif", orientation_matrix(6, 96, 160),
        note="heif-enc -t 48 + heif.py orient 6 own: a thmb thumbnail item (a grid, 28x48) with its own irot 3")
    m["heic-thumbnail-shared-5.heic"] = entry(
        "heic", "hevc", 0, 5, "heif", orientation_matrix(5, 96, 160),
        note="heif-enc -t 48 + heif.py orient 5 shared: the thumbnail item shares the primary's irot 3 and imir 1")
    m["heic-meta-last.heic"] = entry("heic", "hevc", 0, 6, "heif", orientation_matrix(6, 96, 160),
                                     note="orient-6.heic with its meta box moved after mdat")
    m["bad-meta-truncated.heic"] = bad("orient-6.heic cut in the middle of its meta box")
    m["bad-iloc-past-end.heic"] = bad("orient-6.heic whose primary item's extent runs past the end of the file")
    m["bad-empty.mp4"] = bad("0 bytes")
    m["bad-truncated.mp4"] = bad("orient-6.mp4 cut in the middle of its moov box")
    m["bad-random.mp4"] = bad("4096 pseudo-random bytes (SHA-256 counter mode, seed 'vidorient')")
    m["bad-text.mp4"] = bad("plain text, not media")
    # Every entry has every key: the photo keys are null for the videos.
    for e in m.values():
        for key, value in photos.photo_keys().items():
            e.setdefault(key, value)
    return m


def write_manifest():
    text = json.dumps(build_manifest(), indent=2)
    # Keep each matrix on one line so the file stays readable and diffable.
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        f.write(text + "\n")


# ---------------------------------------------------------------------------
# Verification (run by generate.sh; fails loudly)
# ---------------------------------------------------------------------------

COLOURS = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255), "white": (255, 255, 255)}
UPRIGHT = [["red", "green"], ["blue", "white"]]   # [row][column] of the upright picture
# FFmpeg filters that turn the stored picture for orientation n into the upright one.
FORWARD = {1: "null", 2: "hflip", 3: "hflip,vflip", 4: "vflip", 5: "transpose=cclock_flip",
           6: "transpose=clock", 7: "transpose=clock_flip", 8: "transpose=cclock"}


def run(*args):
    return subprocess.run(args, capture_output=True, check=False)


def ffprobe_json(path, *extra):
    r = run("ffprobe", "-v", "error", *extra, "-of", "json", path)
    return r.returncode, json.loads(r.stdout or b"{}"), r.stderr.decode(errors="replace")


def parse_displaymatrix(text):
    """ffprobe prints the 9 int32 as three rows 'NNNNNNNN:  a  b  u'."""
    return [int(v) for line in text.strip().splitlines() for v in line.split(":")[1].split()]


def side_matrix(side_data_list):
    for sd in side_data_list or []:
        if "displaymatrix" in sd:
            return parse_displaymatrix(sd["displaymatrix"]), sd.get("rotation")
    return None, None


def decode_ppm(path, vf=None, autorotate=False):
    """First picture of the first video stream as (w, h, rgb bytes)."""
    args = ["ffmpeg", "-nostdin", "-v", "error"]
    if not autorotate:
        args.append("-noautorotate")
    args += ["-i", path, "-map", "0:v:0", "-frames:v", "1"]
    if vf:
        args += ["-vf", vf]
    args += ["-f", "image2pipe", "-c:v", "ppm", "-pix_fmt", "rgb24", "-"]
    r = run(*args)
    if r.returncode:
        raise RuntimeError(f"ffmpeg could not decode {path}: {r.stderr.decode()}")
    # ffmpeg's ppm encoder writes exactly "P6\n<w> <h>\n255\n" before the pixels
    magic, size, maxval, pixels = r.stdout.split(b"\n", 3)
    w, h = (int(v) for v in size.split())
    if magic != b"P6" or maxval != b"255" or len(pixels) != w * h * 3:
        raise RuntimeError(f"unexpected ppm from ffmpeg for {path}")
    return w, h, pixels


def colour_at(img, x, y):
    w, h, px = img
    i = (int(y) * w + int(x)) * 3
    rgb = tuple(px[i:i + 3])
    name = min(COLOURS, key=lambda c: sum((p - q) ** 2 for p, q in zip(rgb, COLOURS[c])))
    if max(abs(p - q) for p, q in zip(rgb, COLOURS[name])) > 48:
        return f"unclear{rgb}"
    return name


def quadrants(img):
    """Colours at the centres of the four quadrants, [row][column]."""
    w, h, _ = img
    return [[colour_at(img, w * (2 * c + 1) // 4, h * (2 * r + 1) // 4) for c in (0, 1)] for r in (0, 1)]


def expected_stored(n, w, h, sar=(1, 1)):
    """Quadrant colours the stored picture must have so that orientation n
    (applied through its display matrix) shows the upright picture."""
    tw = w * sar[0] / sar[1]                          # matrix works in tkhd (SAR-corrected) space
    a, b, _, c, d, _, tx, ty, _ = orientation_matrix(n, tw, h)
    out = [[None, None], [None, None]]
    for r in (0, 1):
        for col in (0, 1):
            x, y = tw * (2 * col + 1) / 4, h * (2 * r + 1) / 4
            dx, dy = a * x + c * y + tx, b * x + d * y + ty
            dw, dh = (h, tw) if n >= 5 else (tw, h)
            out[r][col] = UPRIGHT[int(dy >= dh / 2)][int(dx >= dw / 2)]
    return out


def which_orientation(img):
    """Which orientation the picture still needs to look upright (1 = upright)."""
    w, h, _ = img
    q = quadrants(img)
    for n in range(1, 9):
        if (w > h) == (n < 5) and expected_stored(n, w, h) == q:
            return n
    return None


class Checks:
    """A check of the files manifest.json lists, shared by tkhd.py, photos.py and heif.py: every
    file is checked, every failure kept, and all of them said at the end."""

    def __init__(self):
        self.failures = []
        self.notes = []
        self.manifest = json.load(open(os.path.join(HERE, "manifest.json")))

    def expect(self, name, what, got, want):
        if got != want:
            self.failures.append(f"{name}: {what}: got {got!r}, expected {want!r}")

    def report(self):
        for line in self.notes:
            print("  " + line)
        for line in self.failures:
            print("FAIL " + line, file=sys.stderr)
        return 1 if self.failures else 0


class Checker(Checks):

    def check_bad(self, name, path):
        rc, j, err = ffprobe_json(path, "-show_streams", "-show_format")
        videos = [s for s in j.get("streams", []) if s.get("codec_type") == "video"]
        last = err.strip().splitlines()[-1] if err.strip() else ""
        self.notes.append(f"{name}: ffprobe exit {rc}, {len(videos)} video streams: {last}")
        if rc == 0 and videos:
            self.failures.append(f"{name}: ffprobe found a video stream in a bad file")

    def check_file(self, name, e):
        path = os.path.join(HERE, name)
        if e["container"] in ("heic", "avif") or name.endswith((".heic", ".avif")):
            return  # FFmpeg 5.1 cannot read HEIF items: heif.py check verifies these
        if e["bad"]:
            return self.check_bad(name, path)
        rc, j, err = ffprobe_json(path, "-show_streams", "-show_format")
        self.expect(name, "ffprobe exit code", rc, 0)
        streams = j.get("streams", [])
        if e["container"] in ("mp4", "mov", "m4a"):
            brand = open(path, "rb").read()[8:12]
            self.expect(name, "ftyp major brand", brand,
                        {"mp4": b"isom", "mov": b"qt  ", "m4a": b"M4A "}[e["container"]])
            self.expect(name, "moov before mdat", moov_before_mdat(path), e["faststart"])
        if e["container"] == "jpeg":
            self.expect(name, "format", j.get("format", {}).get("format_name"), "jpeg_pipe")
        videos = [s for s in streams if s["codec_type"] == "video"]
        if e["video_index"] is None:
            self.expect(name, "video streams", len(videos), 0)
            return
        self.expect(name, "video streams", len(videos), 1)
        s = videos[0]
        self.expect(name, "video index", s["index"], e["video_index"])
        self.expect(name, "codec", s["codec_name"], e["video_codec"])
        self.expect(name, "stored size", (s["width"], s["height"]), (e["stored_width"], e["stored_height"]))
        self.expect(name, "SAR", s.get("sample_aspect_ratio"), e["sample_aspect_ratio"])
        self.expect(name, "attached_pic", bool(s["disposition"]["attached_pic"]), e["attached_pic"])
        if name == "audio-first.mov":
            self.expect(name, "stream 0", streams[0]["codec_name"], "aac")
        # Stream side data: only container matrices, and only when not the identity.
        matrix, rotation = side_matrix(s.get("side_data_list"))
        want = e["matrix_int32"] if e["ffprobe_rotation"] is not None else None
        self.expect(name, "ffprobe stream display matrix", matrix, want)
        self.expect(name, "ffprobe stream rotation", rotation, e["ffprobe_rotation"])
        if e["orientation_source"] == "container":
            self.expect(name, "tkhd matrix read back", read_matrix(path), e["matrix_int32"])
        if e["orientation_source"] == "sei":
            self.check_sei(name, path)
        if e["orientation_source"] in ("sei", "exif") or e["container"] == "jpeg":
            self.check_frame_side_data(name, path, e)
        self.check_pixels(name, path, e)

    def check_sei(self, name, path):
        """The bitstream itself: exactly one display orientation SEI, 270 deg anticlockwise."""
        r = run("ffmpeg", "-nostdin", "-hide_banner", "-i", path, "-c", "copy",
                "-bsf:v", "trace_headers", "-f", "null", "-")
        values = re.findall(r"anticlockwise_rotation\s+[01]+ = (\d+)", r.stderr.decode())
        self.expect(name, "SEI anticlockwise_rotation values", values, [str(SEI_ANTICLOCKWISE)])

    def check_frame_side_data(self, name, path, e):
        _, j, _ = ffprobe_json(path, "-show_frames", "-select_streams", "v:0", "-read_intervals", "%+#1")
        frame = j["frames"][0]
        matrix, _ = side_matrix(frame.get("side_data_list"))
        self.expect(name, "frame display matrix", matrix or to_fixed(IDENTITY), e["matrix_int32"])
        if e["container"] == "jpeg":
            tag = frame.get("tags", {}).get("Orientation")
            tag = tag.strip() if tag else tag           # FFmpeg pads it: "    6"
            want = str(e["exif_orientation"]) if e["orientation_source"] == "exif" else None
            self.expect(name, "frame metadata Orientation", tag, want)

    def check_pixels(self, name, path, e):
        n = e["exif_orientation"] or 1                  # odd angle: stored as is
        w, h = e["stored_width"], e["stored_height"]
        sar = tuple(int(v) for v in e["sample_aspect_ratio"].split(":"))
        stored = decode_ppm(path)
        self.expect(name, "decoded size", stored[:2], (w, h))
        self.expect(name, "stored quadrants", quadrants(stored), expected_stored(n, w, h, sar))
        # Independent of the matrix arithmetic: FFmpeg's own filters must bring it upright.
        vf = FORWARD[n]
        if sar != (1, 1):                                # square the pixels first
            vf = f"scale=iw*{sar[0]}/{sar[1]}:ih:flags=neighbor,setsar=1,{vf}"
        upright = decode_ppm(path, vf=vf)
        self.expect(name, "forward filter size", upright[:2], (UPRIGHT_W, UPRIGHT_H))
        self.expect(name, "forward filter quadrants", quadrants(upright), UPRIGHT)
        # Informational: what the ffmpeg CLI renders with its default autorotation.
        shown = decode_ppm(path, autorotate=True)
        still = which_orientation(shown) if e["exif_orientation"] else None
        verdict = ("upright" if still == 1 else f"still needs orientation {still}" if still
                   else "not a multiple of 90 degrees")
        self.notes.append(f"{name}: ffmpeg CLI (autorotate) renders {shown[0]}x{shown[1]} pixels, {verdict}")

    def run(self):
        for name, e in self.manifest.items():
            if e.get("photo_format") and e.get("matrix_int32") is None:
                continue  # photos.py check verifies the PNG, TIFF, WebP and variant photos with exiftool
            try:
                self.check_file(name, e)
            except Exception as ex:  # report every file, not just the first broken one
                self.failures.append(f"{name}: {type(ex).__name__}: {ex}")
        return self.report()


# ---------------------------------------------------------------------------

def main(argv):
    cmd, args = (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
    if cmd == "matrix" and len(args) in (3, 4):
        n, w, h = int(args[0]), float(args[1]), float(args[2])
        scale = float(args[3]) if len(args) == 4 else 1.0
        print(" ".join(repr(x) for x in orientation_matrix(n, w, h, scale)))
    elif cmd == "set" and len(args) == 10:
        set_matrix(args[0], [float(x) for x in args[1:]])
    elif cmd == "exif" and len(args) == 2:
        insert_exif(args[0], int(args[1]))
    elif cmd == "truncate" and len(args) == 2:
        truncate_in_moov(args[0], args[1])
    elif cmd == "random" and len(args) == 3:
        write_random(args[0], int(args[1]), args[2])
    elif cmd == "manifest" and not args:
        write_manifest()
    elif cmd == "check" and not args:
        return Checker().run()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (ValueError, OSError) as ex:  # a clear one-line message for generate.sh's log
        print(f"tkhd.py: error: {ex}", file=sys.stderr)
        sys.exit(1)
