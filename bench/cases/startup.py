# What a vidorient process costs before it does anything (issue 11): `vidorient --version` and
# `vidorient orientation --exif 6` beside `mediainfo --version`, a Swift program that only prints
# (built as the Makefile builds vidorient: -O, static Swift standard library) and two floors in C (an
# empty program; bench/empty-ffmpeg-link.c, linked with FFmpeg as vidorient was before FFmpeg was
# opened on first use). Then `fix --rotation 90 --in-place` of a 1 GiB MP4 beside exiftool
# -Rotation=90, the command whose time was nine tenths start-up.
# Run: python3 bench/run.py startup [--write | --quick]
import os
import struct
import subprocess

NEEDS = ["mediainfo", "exiftool", "ffmpeg", "ffprobe", "gcc", "pkg-config", "swiftc"]
MIB = 64 if QUICK else 1024
BIG = f"{WORK}/startup-big.mp4"
REPEATS, WARMUP = 7, 1


def padded_mp4(small, big, mib):
    """`small` (ftyp, mdat, moov: moov after mdat, as cameras and ffmpeg write it) with its mdat
    grown by `mib` MiB of zeros at its end: every sample offset (stco) still points where it did,
    and moov moves 1 GiB further, as in a long phone clip."""
    data = open(small, "rb").read()
    position, boxes = 0, []
    while position < len(data):
        size, kind = struct.unpack(">I4s", data[position:position + 8])
        if size < 8:
            raise SystemExit(f"bench: error: {small}: a {kind} box of size {size}; expected 32-bit sizes")
        boxes.append((kind, data[position:position + size]))
        position += size
    if [k for k, _ in boxes][-2:] != [b"mdat", b"moov"]:
        raise SystemExit(f"bench: error: {small}: boxes {[k for k, _ in boxes]}, expected ... mdat, moov")
    padding = mib * 1048576
    with open(big, "wb") as out:
        for kind, box in boxes:
            if kind != b"mdat":
                out.write(box)
                continue
            out.write(struct.pack(">I", len(box) + padding) + box[4:])
            zeros = bytes(1048576)
            for _ in range(mib):
                out.write(zeros)


def SETUP(v):
    tmp = v["tmp"]
    open(f"{tmp}/empty.c", "w").write("int main(void) { return 0; }\n")
    sh("gcc -O2 {tmp}/empty.c -o {tmp}/empty-process", **v)
    flags = sh("pkg-config --cflags --libs libavformat libavcodec libavutil").split()
    sh(["gcc", "-O2", "-Wl,--no-as-needed", f"{REPO}/bench/empty-ffmpeg-link.c", "-o", f"{tmp}/empty-ffmpeg-link"] + flags)
    open(f"{tmp}/hello.swift", "w").write('print("hello")\n')
    sh(["swiftc", "-O", "-static-stdlib", f"{tmp}/hello.swift", "-o", f"{tmp}/swift-hello"])
    small = f"{tmp}/small.mp4"
    sh(f"ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=1920x1080:r=30 -t 2 -c:v libx264 -preset ultrafast "
       f"-pix_fmt yuv420p {small}")
    padded_mp4(small, BIG, MIB)
    GROUPS[1]["about"] = (f"The file: 2 s of 1080p H.264 whose mdat is padded to {os.path.getsize(BIG) / 2**30:.2f} GiB "
                          "(moov after mdat). Before each run, `vidorient fix --reset --in-place` and `sync`, untimed.")
    return {}


def rotated(label, v):
    """What each fix must leave: ffprobe reads a rotation of -90 (FFmpeg's is counter-clockwise)."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                        "stream_side_data=rotation", "-of", "csv=p=0", BIG], capture_output=True, text=True).stdout.split()
    return None if r[:1] == ["-90"] else f"{BIG} has rotation {r[:1] or 'none'}, expected -90"


def CHECK(c, stdout, v):
    """How many shared libraries each start-up row maps (`ldd`)."""
    if c.label not in GROUPS[0]["commands"]:
        return None
    ldd = subprocess.run(["ldd", c.argv[0]], capture_output=True, text=True).stdout
    return f"{sum('=> /' in l for l in ldd.splitlines())} shared libraries (ldd)"


def TEARDOWN():
    subprocess.run(["rm", "-f", BIG])


EXIF = "exiftool -Rotation=90 -overwrite_original"
GROUPS = [
    {"title": "Start-up", "ref": "mediainfo --version", "repeats": 40,
     "about": "Whole processes. `orientation --exif 6` parses its arguments and prints a table; neither "
              "row needs FFmpeg, which vidorient now opens only when a file needs pixels or a non-ISO "
              "container. Issue 11's target: each at most 10 ms and no slower than `mediainfo --version`.",
     "targets": [("ratio", "vidorient --version", "mediainfo --version", 1.0),
                 ("ratio", "vidorient orientation --exif 6", "mediainfo --version", 1.0)],
     "commands": {
         "vidorient --version": "{vidorient} --version",
         "vidorient orientation --exif 6": "{vidorient} orientation --exif 6",
         "mediainfo --version": "mediainfo --version",
         "swift hello (-O -static-stdlib)": "{tmp}/swift-hello",
         "empty process (C)": "{tmp}/empty-process",
         "empty-ffmpeg-link (C linked with FFmpeg)": "{tmp}/empty-ffmpeg-link"}},
    {"title": f"Fixing a {MIB} MiB MP4 in place", "ref": EXIF, "after": rotated, "written": True,
     "before": f"sh -c '{{vidorient}} fix {BIG} --reset --in-place >/dev/null && sync'",
     "targets": [("ratio", "vidorient fix --rotation 90 --in-place", EXIF, 1 / 300)],
     "commands": {
         "vidorient fix --rotation 90 --in-place": f"{{vidorient}} fix {BIG} --rotation 90 --in-place",
         EXIF: f"exiftool -q -Rotation=90 -overwrite_original {BIG}"}},
]
