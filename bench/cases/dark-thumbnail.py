# The default thumbnail of a dark clip (issue 21): vidorient looks 10 % in and, when that frame is
# black or flat, tries 15 %, 20 %, 30 %, 40 % and 50 %. Without --exact each try decodes the
# keyframe at or before its time, so in a short clip with a keyframe a second every try decoded the
# same first keyframe again. The clip is made here (not committed): 1.2 s of a dark, noisy 1080x1920
# H.264 picture at 30 fps with a keyframe every second, as a phone writes a clip in a dark room.
# Target (ours; the issue names the 1.7x it measured on a Pixel 7 clip): the default at most 1.1x
# `--at 10%`, which decodes one keyframe. BEFORE is the binary of c889fd2 if present in bench/work
# (copy a release build there to compare): the same commands before the keyframes were told apart.
# Run: python3 bench/run.py dark-thumbnail [--write | --quick]
import os
import subprocess
NEEDS = ["ffmpeg"]
CLIP = f"{WORK}/dark-1080p-1.2s.mp4"
BEFORE = f"{WORK}/vidorient-c889fd2"
REPEATS, WARMUP = 5 if QUICK else 20, 2
def SETUP(v):
    sh(f"ffmpeg -nostdin -v error -y -f lavfi -i color=c=0x080808:s=1080x1920:r=30:d=1.2,noise=alls=4:allf=t "
       f"-c:v libx264 -g 30 -bf 2 -pix_fmt yuv420p {CLIP}")
    return {}
def TEARDOWN():
    subprocess.run(["rm", "-f", CLIP])
commands = {
    "vidorient thumbnail (default: 10 %, skipping flat frames)": f"{{vidorient}} thumbnail {CLIP} -o {{tmp}}/d.png",
    "vidorient thumbnail --at 10%": f"{{vidorient}} thumbnail {CLIP} --at 10% -o {{tmp}}/a.png",
}
if os.path.exists(BEFORE):
    commands["c889fd2: thumbnail (default)"] = f"{BEFORE} thumbnail {CLIP} -o {{tmp}}/b.png"
    commands["c889fd2: thumbnail --at 10%"] = f"{BEFORE} thumbnail {CLIP} --at 10% -o {{tmp}}/c.png"
GROUPS = [{
    "title": "The default thumbnail of a dark 1.2 s 1080p clip", "ref": "vidorient thumbnail --at 10%",
    "targets": [("ratio", "vidorient thumbnail (default: 10 %, skipping flat frames)", "vidorient thumbnail --at 10%", 1.1)],
    "commands": commands}]
