# `vidorient fix` on photos (issue 10), three groups in one run:
#  1. the orientation tag of a 12 MP JPEG beside `exiftool -Orientation#=6 -overwrite_original`
#     (target: at least 10x faster, i.e. at most 0.1x its wall time);
#  2. the same on a 12 MP HEIC. vidorient writes `irot` (what HEIF readers obey); exiftool writes only
#     the EXIF tag inside, which no HEIF reader applies, so its run does less and still is the peer
#     the issue names (same target);
#  3. `audit LIB --jsonl | fix --from-audit -` over a library of 1,000 JPEGs of which 200 carry an
#     EXIF orientation of 0 (read as 1; the audit suggests 1), beside one recursive exiftool that
#     does the same job (`-if '$Orientation# == 0' -Orientation#=1 -r`), as files/s.
# The photos are made here (not committed): ffmpeg's test pattern with noise (so that it compresses
# like a photo), a camera-like EXIF block written by exiftool; the HEIC by heif-enc from the JPEG.
# Every run starts from the same files (restored untimed) and is checked after.
# Run: python3 bench/run.py photo-fix [--write | --quick]
import json
import os
import shutil
import subprocess

NEEDS = ["ffmpeg", "exiftool", "heif-enc"]
JPEG, HEIC = f"{WORK}/photo-fix-12mp.jpg", f"{WORK}/photo-fix-12mp.heic"
LIB, MASTER = f"{WORK}/photo-fix-library", f"{WORK}/photo-fix-library-master"
REPEATS, WARMUP = (5, 1) if QUICK else (30, 3)
N, WRONG = (200, 40) if QUICK else (1000, 200)


def exif_orientation(path):
    return subprocess.run(["exiftool", "-s3", "-n", "-Orientation", path], capture_output=True, text=True).stdout.strip()


def make_library():
    """N small camera JPEGs; WRONG of them with the Orientation value patched to 0 (exiftool will not
    write an invalid value: the offset is found by writing 1 and 2 and comparing the bytes)."""
    shutil.rmtree(MASTER, ignore_errors=True)
    os.makedirs(MASTER)
    one, two = f"{WORK}/photo-fix-small-1.jpg", f"{WORK}/photo-fix-small-2.jpg"
    sh(f"ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=1024x768,noise=alls=12 -frames:v 1 -q:v 3 {one}")
    sh(["exiftool", "-q", "-overwrite_original", "-Orientation#=1", "-Make=BenchCam", "-Model=One", one])
    shutil.copy(one, two)
    sh(["exiftool", "-q", "-overwrite_original", "-Orientation#=2", two])
    good, other = open(one, "rb").read(), open(two, "rb").read()
    diff = [i for i in range(len(good)) if good[i] != other[i]]
    if len(good) != len(other) or len(diff) != 1:
        raise SystemExit(f"bench: error: the Orientation value of {one} is not one byte apart from {two}")
    bad = bytearray(good)
    bad[diff[0]] = 0
    for i in range(N):
        folder = f"{MASTER}/{i // 100:02d}"
        os.makedirs(folder, exist_ok=True)
        with open(f"{folder}/IMG_{i:04d}.jpg", "wb") as f:
            f.write(bad if i % (N // WRONG) == 0 else good)
    os.remove(one)
    os.remove(two)


def SETUP(v):
    if not os.path.exists(JPEG):
        sh(f"ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=4032x3024,noise=alls=12 -frames:v 1 -q:v 2 {JPEG}")
        sh(["exiftool", "-q", "-overwrite_original", "-Orientation#=1", "-Make=BenchCam", "-Model=One",
            "-DateTimeOriginal=2024:05:01 12:00:00", JPEG])
    if not os.path.exists(HEIC):
        sh(f"heif-enc -q 50 {JPEG} -o {HEIC}")
        # An irot to turn in place from then on (the first fix inserts the property).
        sh(f"{{vidorient}} fix {HEIC} --orientation 6", **v)
    make_library()
    GROUPS[2]["files"] = {label: N for label in GROUPS[2]["commands"]}
    GROUPS[2]["about"] = (f"`photo-fix-library`: {N:,} JPEGs of 1024x768 ({os.path.getsize(JPEG) // 1024:,} KiB "
                          f"for the 12 MP one) in {N // 100} folders, {WRONG} with EXIF orientation 0.")
    return {}


def oriented(path, want):
    def check(label, v):
        if label.startswith("vidorient --version"):
            return None
        if path.endswith(".heic") and label.startswith("vidorient"):
            r = subprocess.run([v["vidorient"], "inspect", "--json", path], capture_output=True, text=True).stdout
            shown = (json.loads(r).get("photo") or {}).get("exif_orientation") if r else None
            return None if shown == 6 else f"{path} shows EXIF {shown}, expected 6"
        r = exif_orientation(path)
        return None if r == want else f"{path} has orientation {r or 'none'}, expected {want}"
    return check


def swept(label, v):
    """Every patched file reads 1 and no other file changed."""
    r = subprocess.run(["exiftool", "-q", "-q", "-r", "-if", "$Orientation# != 1", "-p", "$FilePath", LIB],
                       capture_output=True, text=True).stdout.split()
    return None if not r else f"{len(r)} files still not at orientation 1 (first: {r[0]})"


def TEARDOWN():
    shutil.rmtree(LIB, ignore_errors=True)
    shutil.rmtree(MASTER, ignore_errors=True)


EXIF = "exiftool -Orientation#=6 -overwrite_original"
EXIF_SWEEP = "exiftool -if '$Orientation# == 0' -Orientation#=1 -r"
GROUPS = [{
    "title": "Setting the orientation tag of a 12 MP JPEG", "ref": EXIF, "after": oriented(JPEG, "6"), "written": True,
    "before": f"{{vidorient}} fix {JPEG} --reset --in-place",
    "targets": [("ratio", "vidorient fix --orientation 6", EXIF, 0.1),
                ("ratio", "vidorient fix --orientation 6 --in-place", EXIF, 0.1)],
    "commands": {
        "vidorient fix --orientation 6": f"{{vidorient}} fix {JPEG} --orientation 6",
        "vidorient fix --orientation 6 --in-place": f"{{vidorient}} fix {JPEG} --orientation 6 --in-place",
        EXIF: f"exiftool -q -Orientation#=6 -overwrite_original {JPEG}",
        "vidorient --version (start-up alone)": "{vidorient} --version"}}, {
    "title": "Setting the orientation of a 12 MP HEIC (vidorient: irot; exiftool: the EXIF tag only)", "ref": EXIF,
    "after": oriented(HEIC, "6"), "written": True,
    "before": f"sh -c '{{vidorient}} fix {HEIC} --orientation 1 --in-place >/dev/null && exiftool -q -n -Orientation=1 -overwrite_original {HEIC}'",
    "targets": [("ratio", "vidorient fix --orientation 6", EXIF, 0.1),
                ("ratio", "vidorient fix --orientation 6 --in-place", EXIF, 0.1)],
    "commands": {
        "vidorient fix --orientation 6": f"{{vidorient}} fix {HEIC} --orientation 6",
        "vidorient fix --orientation 6 --in-place": f"{{vidorient}} fix {HEIC} --orientation 6 --in-place",
        EXIF: f"exiftool -q -Orientation#=6 -overwrite_original {HEIC}"}}, {
    "title": f"Audit, then fix what it suggests, over {N:,} JPEGs ({WRONG} with orientation 0)", "ref": EXIF_SWEEP,
    "repeats": 3 if QUICK else 7, "warmup": 1, "after": swept, "written": True,
    "before": f"sh -c 'rm -rf {LIB} && cp -a {MASTER} {LIB}'",
    "commands": {
        "vidorient audit, piped to fix --from-audit -":
            f"sh -c '{{vidorient}} audit {LIB} --jsonl | {{vidorient}} fix --from-audit - --no-progress'",
        EXIF_SWEEP: f"exiftool -q -q -if '$Orientation# == 0' -n -Orientation=1 -overwrite_original -r {LIB}"}}]
