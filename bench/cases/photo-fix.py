# `vidorient fix --orientation 6` on a 12 MP JPEG (issue 10) beside `exiftool -Orientation#=6
# -overwrite_original` (target: at least 10x faster, i.e. at most 0.1x its wall time). The JPEG is made
# here (not committed): a 12 MP test pattern with noise (so that it compresses like a photo), encoded by
# ffmpeg, with a camera-like EXIF block written by exiftool (Orientation 1, Make, Model, a date).
# Every run starts from the same file (reset to orientation 1 in place, untimed) and must leave
# exiftool reading Orientation 6.
# Run: python3 bench/run.py photo-fix [--write | --quick]
import subprocess

NEEDS = ["ffmpeg", "exiftool"]
PHOTO = f"{WORK}/photo-fix-12mp.jpg"
REPEATS, WARMUP = (5, 1) if QUICK else (30, 3)


def SETUP(v):
    sh(f"ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=4032x3024,noise=alls=12 -frames:v 1 -q:v 2 {PHOTO}")
    sh(["exiftool", "-q", "-overwrite_original", "-Orientation#=1", "-Make=BenchCam", "-Model=One",
        "-DateTimeOriginal=2024:05:01 12:00:00", PHOTO])
    return {}


def oriented(label, v):
    """What every command but --version must leave: exiftool reads Orientation 6."""
    if label.startswith("vidorient --version"):
        return None
    r = subprocess.run(["exiftool", "-s3", "-n", "-Orientation", PHOTO], capture_output=True, text=True).stdout.strip()
    return None if r == "6" else f"{PHOTO} has orientation {r or 'none'}, expected 6"


def TEARDOWN():
    subprocess.run(["rm", "-f", PHOTO])


EXIF = "exiftool -Orientation#=6 -overwrite_original"
GROUPS = [{
    "title": "Setting the orientation tag of a 12 MP JPEG", "ref": EXIF, "after": oriented, "written": True,
    "before": f"{{vidorient}} fix {PHOTO} --reset --in-place",
    "targets": [("ratio", "vidorient fix --orientation 6", EXIF, 0.1),
                ("ratio", "vidorient fix --orientation 6 --in-place", EXIF, 0.1)],
    "commands": {
        "vidorient fix --orientation 6": f"{{vidorient}} fix {PHOTO} --orientation 6",
        "vidorient fix --orientation 6 --in-place": f"{{vidorient}} fix {PHOTO} --orientation 6 --in-place",
        EXIF: f"exiftool -q -Orientation#=6 -overwrite_original {PHOTO}",
        "vidorient --version (start-up alone)": "{vidorient} --version"}}]
