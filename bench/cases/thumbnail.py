# `vidorient thumbnail FILE -o OUT.png --width 320` beside ffmpeg and ffmpegthumbnailer (issues 3 and 11):
# one thumbnail per process, which way up each picture is, and a batch of 200 files.
# Run: python3 bench/run.py thumbnail [--write | --quick]
import os
import shutil
import subprocess

NEEDS = ["ffmpeg", "ffprobe", "ffmpegthumbnailer", "xargs"]
# A phone-sized clip (issue 11): 10 s of 1920x1080 H.264 High at 30 fps and 16 Mbit/s, a keyframe
# every second, two B-frames, with AAC, stored sideways (orientation 6) as phones record portrait.
# Noise makes it cost to decode what a camera's picture costs (keyframes of about 290 KB).
PHONE = [
    "ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=1920x1080:r=30,noise=alls=10:allf=t -f lavfi "
    "-i sine=f=440:r=48000 -t 10 -c:v libx264 -preset veryfast -profile:v high -pix_fmt yuv420p -b:v 16M "
    "-maxrate 20M -bufsize 20M -g 30 -bf 2 -c:a aac -b:a 128k -shortest {work}/phone-1080p-h264-stored.mp4",
    "ffmpeg -nostdin -v error -y -i {work}/phone-1080p-h264-stored.mp4 -c copy -metadata:s:v:0 rotate=270 "
    "-movflags +faststart {out}",
    "rm {work}/phone-1080p-h264-stored.mp4"]
FILES = (made("phone-1080p-h264.mp4", *PHONE, label="1080p H.264 phone clip, 10 s (generated)")
         + testmedia("orient-6.mp4", "orient-7-hevc.mov", "orient-5.jpg")
         + shared("iphone_rotated.mov", "dolbyVision-hdr.MOV", "sample_rotate_and_reflect.mp4", "Landscape_6.jpg"))
TOOLS = {
    "vidorient": "{vidorient} thumbnail {file} -o {out}-v.png --width 320",
    "ffmpeg": "ffmpeg -v error -y {ss} -i {file} -frames:v 1 -vf scale=320:-2 {out}-f.png",
    "ffmpegthumbnailer": "ffmpegthumbnailer -i {file} -o {out}-t.png -s 320",
}
TARGETS = {"ffmpeg": 0.5, "ffmpegthumbnailer": 0.9}
REPEATS, WARMUP = 30, 3
PHOTO = (".jpg", ".jpeg", ".png", ".heic", ".webp", ".tif", ".tiff")


def seek(path):
    """10 % of the duration, where ffmpegthumbnailer and vidorient look; none for a photo."""
    if path.lower().endswith(PHOTO):
        return "-"
    d = sh("ffprobe -v error -show_entries format=duration -of csv=p=0 {f}", f=path)
    return f"{float(d) * 0.1:.3f}"


def PER_FILE(path, v):
    t = seek(path)
    return {"ss": [] if t == "-" else ["-ss", t]}


def SETUP(v):
    """The batch: copies under bench/work/thumbnail-batch/, 8 TestMedia clips and 2 JPEGs of every 10,
    and with ../shared/media 7 phone clips and 3 phone JPEGs of every 10 more."""
    tm = [f"{REPO}/TestMedia/orient-{n}{x}" for n in range(1, 9) for x in (".mp4", "-hevc.mov")]
    kinds = {"tc": tm, "tp": [f"{REPO}/TestMedia/orient-{n}.jpg" for n in range(1, 9)],
             "sc": [f"{SHARED}/{n}" for n in ("iphone_rotated.mov", "dolbyVision-hdr.MOV",
                    "sample_rotate_and_reflect.mp4", "sample.mp4", "sample_portrait.mp4") if os.path.exists(f"{SHARED}/{n}")],
             "sp": [f"{SHARED}/Landscape_{n}.jpg" for n in range(9) if os.path.exists(f"{SHARED}/Landscape_{n}.jpg")]}
    pattern = ["tc"] * 8 + ["tp"] * 2 + (["sc"] * 7 + ["sp"] * 3 if kinds["sc"] and kinds["sp"] else [])
    d = f"{WORK}/thumbnail-batch"
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    batch, seen = [], {}
    for k in range(20 if QUICK else 200):
        kind = pattern[k % len(pattern)]
        seen[kind] = seen.get(kind, -1) + 1
        src = kinds[kind][seen[kind] % len(kinds[kind])]
        batch.append(f"{d}/{k:04d}-{os.path.basename(src)}")
        shutil.copyfile(src, batch[-1])
    pairs = [w for f in batch for w in (seek(f), f)]
    open(f"{v['tmp']}/pairs.bin", "w").write("\0".join(pairs) + "\0")
    open(f"{v['tmp']}/batch.bin", "w").write("\0".join(batch) + "\0")
    for s in ("v", "f", "t", "fp", "tp"):
        os.makedirs(f"{v['tmp']}/b-{s}")
    GROUPS[0]["files"] = len(batch)
    GROUPS[0]["title"] = f"Batch: {len(batch)} files, width 320"
    return {"batch": batch, "pairs": pairs}


FF = 'ffmpeg -nostdin -v error -y $ss -i "$2" -frames:v 1 -vf scale=320:-2 "$d/${2##*/}.png"'
SS = 'ss=; [ "$1" = - ] || ss="-ss $1"; '
GROUPS = [{
    "title": "Batch", "repeats": 4, "warmup": 1, "rss_every": True,
    "targets": [("ratio", "vidorient --out-dir (one process)", "sh loop: ffmpeg per file", 0.2)],
    "commands": {
        "vidorient --out-dir (one process)": "{vidorient} thumbnail --out-dir {tmp}/b-v --width 320 {batch}",
        "sh loop: ffmpeg per file": f"sh -c 'd=$1; shift; while [ $# -gt 1 ]; do {SS}{FF}; shift 2; done' sh {{tmp}}/b-f {{pairs}}",
        "sh loop: ffmpegthumbnailer per file":
            "sh -c 'd=$1; shift; for f; do ffmpegthumbnailer -i \"$f\" -o \"$d/${f##*/}.png\" -s 320; done' sh {tmp}/b-t {batch}",
        "xargs -P 2: ffmpeg per file": f"xargs -0 -a {{tmp}}/pairs.bin -n 2 -P {{nproc}} sh -c 'd=$0; {SS}{FF}' {{tmp}}/b-fp",
        "xargs -P 2: ffmpegthumbnailer per file":
            "xargs -0 -a {tmp}/batch.bin -n 1 -P {nproc} sh -c 'ffmpegthumbnailer -i \"$1\" -o \"$0/${1##*/}.png\" -s 320' {tmp}/b-tp"}}]

# ---- which way up: the pictures of the checking run -------------------------------------------
# TestMedia: the centres of the four quadrants name the orientation shown (upright: red, green /
# blue, white). Phone files: the stored frame (no rotation applied) turned by the truth that
# ../shared/media/README.md gives, shrunk to 32x32 grey, against the picture in its 8 orientations.
TRUTH = {"phone-1080p-h264.mp4": 6, "iphone_rotated.mov": 6, "dolbyVision-hdr.MOV": 6, "sample_rotate_and_reflect.mp4": 5,
         **{f"Landscape_{i}.jpg": max(i, 1) for i in range(9)}}
COLOURS = {"R": (255, 0, 0), "G": (0, 255, 0), "B": (0, 0, 255), "W": (255, 255, 255), "K": (0, 0, 0)}


def orient(a, n):
    """EXIF orientation n applied to the rows a: mirror first, then turn clockwise."""
    if n in (2, 4, 5, 7):
        a = [list(reversed(r)) for r in a]
    for _ in range({1: 0, 2: 0, 3: 2, 4: 2, 5: 3, 6: 1, 7: 1, 8: 3}[n]):
        a = [list(r) for r in zip(*a[::-1])]
    return a


def pixels(path, size, pre=()):
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", *pre, "-i", path, "-frames:v", "1", "-vf",
                          f"scale={size}:{size}:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True).stdout
    return [[tuple(raw[(r * size + c) * 3:(r * size + c) * 3 + 3]) for c in range(size)] for r in range(size)]


def shows(path, truth, source):
    """Which orientation of the upright picture `path` shows (1 = upright), or None when unclear."""
    if source.startswith("TestMedia"):
        px = pixels(path, 8)
        q = [[min(COLOURS, key=lambda k: sum((p[i] - COLOURS[k][i]) ** 2 for i in range(3))) for p in (r[2], r[5])]
             for r in (px[2], px[5])]
        return next((k for k in range(1, 9) if orient([["R", "G"], ["B", "W"]], k) == q), None)
    grey = lambda a: [[sum(p) for p in r] for r in a]
    upright = orient(grey(pixels(truth[0], 32, truth[1])), truth[2])
    g = grey(pixels(path, 32))
    scores = sorted((sum(abs(x - y) for ra, rb in zip(g, orient(upright, k)) for x, y in zip(ra, rb)), k)
                    for k in range(1, 9))
    return scores[0][1] if scores[0][0] <= 0.8 * scores[1][0] else None


def CHECK(c, stdout, v):
    png = next((w for w in c.argv if w.endswith(".png") and w.startswith(v["tmp"] + "/out-")), None)
    if c.file is None or png is None:
        return None
    if not os.path.exists(png) or os.path.getsize(png) == 0:
        return "**no picture**"
    name, truth = os.path.basename(c.file.path), None
    if not c.file.label.startswith("TestMedia"):
        pre = ["-noautorotate"] + ([] if name.lower().endswith(PHOTO) else ["-ss", seek(c.file.path)])
        truth = (c.file.path, pre, TRUTH[name])
    wh = sh("ffprobe -v error -show_entries stream=width,height -of csv=p=0 {p}", p=png).strip().replace(",", "x")
    k = shows(png, truth, c.file.label)
    return f"{wh}, " + ("upright" if k == 1 else "unclear" if k is None else f"**wrong**: {SHOWN[k]}")


SHOWN = {2: "mirrored left-right", 3: "upside down", 4: "mirrored top-bottom", 5: "transposed",
         6: "turned 90° clockwise", 7: "transverse", 8: "turned 90° counter-clockwise"}
