# `vidorient audit LIB --jsonl` on a library of 5,000 small photos (HEIC with and without thumbnails,
# JPEG with and without EXIF orientation, PNG, TIFF, WebP; made by bench/make_library.py with ffmpeg,
# cwebp, heif-enc and exiftool) beside `exiftool -r -fast LIB` (the photo issue). Targets: at least
# 5,000 files/s, at least 20x exiftool, peak memory flat at 10x the files.
# Run: python3 bench/run.py photo-audit [--write | --quick]
import json
import subprocess

NEEDS = ["ffmpeg", "cwebp", "heif-enc", "exiftool"]
OK = (0, 1)  # 1: findings (vidorient), or errors in some files (exiftool)
N = 500 if QUICK else 5000
TIMES = 2 if QUICK else 10


def library(*args):
    out = subprocess.run(["python3", f"{REPO}/bench/make_library.py", *args], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"bench: error: making {args[1]} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def SETUP(v):
    lib = library("photos", f"{WORK}/photo-library", "--files", str(N))
    big = library("times", f"{WORK}/photo-library-x10", "--copies", str(TIMES), "--from", f"{WORK}/photo-library")
    subprocess.run(f"find {WORK}/photo-library -type f -print0 | xargs -0 cat > /dev/null", shell=True)  # warm cache
    GROUPS[0]["files"] = {"vidorient audit LIB": lib["files"], "exiftool -r -fast LIB": lib["files"],
                          "vidorient audit X10": big["files"]}
    GROUPS[0]["about"] = (f"`photo-library`: {lib['files']:,} photos ("
                          + ", ".join(f"{n:,} {k}" for k, n in sorted(lib["by_kind"].items()))
                          + f") in {lib['folders']:,} folders, {lib['bytes'] / 2**20:,.0f} MiB; "
                          f"`photo-library-x10`: {TIMES} hard-linked copies of it.")
    return {}


GROUPS = [{
    "title": "The photo library, warm cache", "repeats": 3, "rss_every": True,
    "targets": [("rate", "vidorient audit LIB", 5000), ("ratio", "vidorient audit LIB", "exiftool -r -fast LIB", 0.05),
                ("rss", "vidorient audit X10", "vidorient audit LIB", 1.10)],
    "commands": {"vidorient audit LIB": "{vidorient} audit {work}/photo-library --jsonl",
                 "exiftool -r -fast LIB": "exiftool -r -fast {work}/photo-library",
                 "vidorient audit X10": "{vidorient} audit {work}/photo-library-x10 --jsonl"}}]


def CHECK(c, stdout, v):
    """How many files each tool reported."""
    lines = open(stdout, errors="replace").read().splitlines()
    n = sum(1 for l in lines if l.strip()) if c.argv[0] == v["vidorient"] else sum(l.startswith("======== ") for l in lines)
    want = GROUPS[0]["files"][c.label]
    return f"{n:,} files reported" + ("" if n == want else f" **of {want:,}**")
