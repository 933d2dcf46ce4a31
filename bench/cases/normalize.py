# `vidorient normalize` of a 12 MP JPEG at orientation 6 (issue 10) beside `exiftran -ai` (turns by the
# EXIF orientation, in place) and `jpegtran -perfect -rotate 90 -copy all` (writes a new file): target at
# most 1.0x both. Each run starts from a fresh copy of the same file (orientation 6), in the page cache.
# The photo is made here (not committed): ffmpeg's test pattern with noise, 4032x3024, -q:v 2.
# Run: python3 bench/run.py normalize [--write | --quick]
import subprocess
NEEDS = ["ffmpeg", "exiftool", "exiftran", "jpegtran"]
MASTER, N, E, T, TOUT = (f"{WORK}/normalize-{x}.jpg" for x in ("master", "vidorient", "exiftran", "jpegtran", "jpegtran-out"))
REPEATS, WARMUP = 3 if QUICK else 15, 1
def SETUP(v):
    sh(f"ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=4032x3024,noise=alls=12 -frames:v 1 -q:v 2 {MASTER}")
    sh(f"exiftool -q -overwrite_original -Orientation#=6 {MASTER}")
    return {}
def upright(label, v):
    """vidorient and exiftran must leave orientation 1 (jpegtran copies the tag as it is)."""
    f = N if label.startswith("vidorient") else E if label.startswith("exiftran") else None
    if f is None:
        return None
    r = subprocess.run(["exiftool", "-s3", "-n", "-Orientation", f], capture_output=True, text=True).stdout.strip()
    return None if r == "1" else f"{f} has orientation {r}, expected 1"
def TEARDOWN():
    subprocess.run(["rm", "-f", MASTER, N, E, T, TOUT])
EXIFTRAN, JPEGTRAN = "exiftran -ai", "jpegtran -perfect -rotate 90 -copy all"
GROUPS = [{
    "title": "Normalizing a 12 MP JPEG (orientation 6)", "ref": EXIFTRAN, "after": upright, "written": True,
    "before": f"sh -c 'cp {MASTER} {N} && cp {MASTER} {E} && cp {MASTER} {T} && rm -f {TOUT}'",
    "targets": [("ratio", "vidorient normalize", EXIFTRAN, 1.0), ("ratio", "vidorient normalize", JPEGTRAN, 1.0)],
    "commands": {
        "vidorient normalize": f"{{vidorient}} normalize {N}",
        EXIFTRAN: f"exiftran -ai {E}",
        JPEGTRAN: f"jpegtran -perfect -rotate 90 -copy all -outfile {TOUT} {T}"}}]
