# A 320 px thumbnail of a 12 MP photo: `vidorient thumbnail FILE -o OUT.jpg --width 320` beside
# heif-thumbnailer and vipsthumbnail (the photo issue). Targets: a HEIC with a thumbnail item no slower
# than `heif-thumbnailer -s 320`; a HEIC without one at most 0.5x `vipsthumbnail -s 320`; a 12 MP JPEG
# no slower than vipsthumbnail; an iPhone 12 MP grid without a usable thumbnail item (IMG_2682.heic from
# ../shared/media with its `thmb` reference renamed, so that no reader finds the item: its 8x6 grid
# of HEVC tiles is decoded) at most 1.0x heif-thumbnailer and 0.5x vipsthumbnail; an AVIF (decoded by
# dav1d through FFmpeg since issue 32's round 6) no slower than heif-thumbnailer. The photos are made
# as in photo-inspect.py (the same files, kept in bench/work/). Run: python3 bench/run.py
# photo-thumbnail [--write | --quick]
import os
import runpy

NEEDS = ["ffmpeg", "ffprobe", "heif-enc", "heif-thumbnailer", "vipsthumbnail"]
FILES = (runpy.run_path(f"{REPO}/bench/cases/photo-inspect.py", init_globals=globals())["FILES"][:3]
         + made("photo-12mp.avif", "heif-enc -A -q 50 {work}/photo-12mp.jpg -o {out}",
                label="12 MP AVIF, 8-bit 4:2:0, no thumbnail (generated)"))
REPEATS, WARMUP = 20, 2
IPHONE = f"{SHARED}/IMG_2682.heic"
IPHONE_GRID = f"{WORK}/IMG_2682-no-thumbnail.heic"
if os.path.exists(IPHONE) and not os.path.exists(IPHONE_GRID):
    data = bytearray(open(IPHONE, "rb").read())
    iref = data.index(b"iref")
    thmb = data.index(b"thmb", iref)
    data[thmb:thmb + 4] = b"zzzz"  # an unknown reference type, which readers skip
    os.makedirs(WORK, exist_ok=True)
    open(IPHONE_GRID, "wb").write(data)


def group(title, path, peers, *targets):
    """vidorient and the peers on one file; each target: (peer, most vidorient ÷ peer), the first
    the peer the ratios divide by."""
    cmds = {"vidorient": f"{{vidorient}} thumbnail {path} -o {{tmp}}/v.jpg --width 320",
            "heif-thumbnailer -s 320": f"heif-thumbnailer -s 320 {path} {{tmp}}/h.png",
            "vipsthumbnail -s 320": f"vipsthumbnail {path} -s 320 -o {{tmp}}/s.jpg"}
    return {"title": title, "requires": [path], "ref": targets[0][0],
            "targets": [("ratio", "vidorient", *target) for target in targets],
            "commands": {k: c for k, c in cmds.items() if k == "vidorient" or k in peers}}


W = WORK
GROUPS = [
    group("12 MP HEIC with a 320 px thumbnail item (generated)", f"{W}/photo-12mp-thumb.heic",
          ["heif-thumbnailer -s 320", "vipsthumbnail -s 320"], ("heif-thumbnailer -s 320", 1.0)),
    group("IMG_2682.heic (iPhone, 12 MP, with a thumbnail item)", IPHONE,
          ["heif-thumbnailer -s 320", "vipsthumbnail -s 320"], ("heif-thumbnailer -s 320", 1.0)),
    group("IMG_2682.heic with its thumbnail reference renamed (iPhone, 12 MP, 8x6 grid of tiles)", IPHONE_GRID,
          ["heif-thumbnailer -s 320", "vipsthumbnail -s 320"], ("heif-thumbnailer -s 320", 1.0),
          ("vipsthumbnail -s 320", 0.5)),
    group("12 MP HEIC without a thumbnail item (generated)", f"{W}/photo-12mp.heic",
          ["vipsthumbnail -s 320", "heif-thumbnailer -s 320"], ("vipsthumbnail -s 320", 0.5)),
    group("12 MP JPEG (generated)", f"{W}/photo-12mp.jpg", ["vipsthumbnail -s 320"], ("vipsthumbnail -s 320", 1.0)),
    group("12 MP AVIF (generated, 8-bit 4:2:0, one AV1 image)", f"{W}/photo-12mp.avif",
          ["heif-thumbnailer -s 320", "vipsthumbnail -s 320"], ("heif-thumbnailer -s 320", 1.0)),
    group("8bit-sRGB.avif (1617x1080, 8-bit 4:2:2)", f"{SHARED}/8bit-sRGB.avif",
          ["heif-thumbnailer -s 320", "vipsthumbnail -s 320"], ("heif-thumbnailer -s 320", 1.0)),
]


def CHECK(c, stdout, v):
    """The size of the picture each command wrote."""
    out = next((w for w in c.argv[1:] if w.startswith(v["tmp"] + "/")), None)
    if not out or not os.path.exists(out):
        return "**no picture**"
    return sh("ffprobe -v error -show_entries stream=width,height -of csv=p=0 {p}", p=out).strip().replace(",", "x")
