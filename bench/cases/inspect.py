# `vidorient inspect --json FILE` beside ffprobe, exiftool and mediainfo on the same files (issue 1;
# issue 11: MP4/MOV are described by the box layer without FFmpeg, so the targets are now at most
# 0.25x ffprobe and no slower than mediainfo).
# Run: python3 bench/run.py inspect [--write | --quick]
import subprocess

NEEDS = ["ffprobe", "exiftool", "mediainfo", "gcc", "pkg-config"]
# iphone_rotated.mov is the iPhone MOV with GPS; sample_portrait.mp4 the Android-style MP4 (loci, B-frames,
# an audio track opening with an empty edit).
FILES = testmedia("orient-6.mp4", "orient-5-hevc.mov", "audio-first.mov", "orient-6.jpg") + shared(
    "iphone_rotated.mov", "dolbyVision-hdr.MOV", "sample_rotate_and_reflect.mp4", "sample_portrait.mp4",
    "Landscape_6.jpg")
TOOLS = {
    "vidorient": "{vidorient} inspect --json {file}",
    "ffprobe": "ffprobe -v error -show_format -show_streams -of json {file}",
    "exiftool": "exiftool -j {file}",
    "mediainfo": "mediainfo --Output=JSON {file}",
    # the floor beside the tools: vidorient minus this is the time not spent loading FFmpeg
    "empty-ffmpeg-link": "{tmp}/empty-ffmpeg-link",
}
TARGETS = {"ffprobe": 0.25, "mediainfo": 1.0}
REPEATS, WARMUP = 60, 3


def SETUP(v):
    """The floors, built with gcc: an empty program; bench/empty-ffmpeg-link.c linked with the
    libav* vidorient links (its floor); the same linked with the FFmpeg libraries ffprobe loads."""
    open(f"{v['tmp']}/empty.c", "w").write("int main(void) { return 0; }\n")
    sh("gcc -O2 {tmp}/empty.c -o {tmp}/empty-process", **v)
    flags = sh("pkg-config --cflags --libs libavformat libavcodec libavutil").split()
    sh(["gcc", "-O2", "-Wl,--no-as-needed", f"{REPO}/bench/empty-ffmpeg-link.c", "-o", f"{v['tmp']}/empty-ffmpeg-link"] + flags)
    ldd = subprocess.run(["ldd", subprocess.getoutput("command -v ffprobe")], capture_output=True, text=True).stdout
    libs = [w[2] for w in (l.split() for l in ldd.splitlines()) if len(w) > 2 and w[2].startswith("/")
            and w[0].startswith(("libavdevice", "libavfilter", "libavformat", "libavcodec", "libavutil",
                                 "libswresample", "libswscale", "libpostproc"))]
    sh(["gcc", "-O2", "-Wl,--no-as-needed", f"{REPO}/bench/empty-ffmpeg-link.c", "-o", f"{v['tmp']}/empty-ffprobe-libs"]
       + sh("pkg-config --cflags libavformat").split() + libs)
    return {"all": v["files"]}


GROUPS = [
    {"title": "The floor: starting a process", "ref": "empty-ffmpeg-link",
     "about": "An empty C program; `bench/empty-ffmpeg-link.c` linked with libavformat, libavcodec and "
              "libavutil (vidorient's floor); the same linked with every FFmpeg library ffprobe loads "
              "(ffprobe's floor); and `vidorient --version` (floor + Swift runtime + argument parsing).",
     "commands": {"empty process": "{tmp}/empty-process", "empty-ffmpeg-link": "{tmp}/empty-ffmpeg-link",
                  "empty-ffprobe-libs": "{tmp}/empty-ffprobe-libs", "vidorient --version": "{vidorient} --version"}},
    {"title": "Batch: all the files", "ref": "sh loop: ffprobe per file", "repeats": 20,
     "commands": {
         "vidorient inspect --json (all files, one process)": "{vidorient} inspect --json {all}",
         "sh loop: ffprobe per file":
             "sh -c 'for f; do ffprobe -v error -show_format -show_streams -of json \"$f\"; done' sh {all}",
         "sh loop: vidorient inspect --json per file": "sh -c 'for f; do \"$0\" inspect --json \"$f\"; done' {vidorient} {all}",
         "exiftool -j (all files, one process)": "exiftool -j {all}",
         "mediainfo --Output=JSON (all files, one process)": "mediainfo --Output=JSON {all}"}},
]


def CHECK(c, stdout, v):
    """The floors: how many shared libraries each program loads (`ldd`)."""
    if c.file is not None or c.label not in GROUPS[0]["commands"]:
        return None
    ldd = subprocess.run(["ldd", c.argv[0]], capture_output=True, text=True).stdout
    return f"{sum('=> /' in l for l in ldd.splitlines())} shared libraries"
