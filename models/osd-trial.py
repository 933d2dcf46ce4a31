#!/usr/bin/env python3
"""Tesseract's orientation detection on pages made for the trial (docs/content.md, "Tesseract's
orientation detection, tried"): not part of vidorient, a first look before building a text signal.

Draws 35 pictures with FFmpeg's drawtext from paragraphs of the GPL-3 and Apache-2.0 texts in
/usr/share/common-licenses (15 pages of 1240x1754, 10
terminal-like screens of 1280x800, 10 signs of 800x600), turns each by 0/90/180/270 degrees
clockwise (the pixels), and runs `tesseract PICTURE stdout --psm 0` on each, at full size and
shrunk to 1000 and 640 px on the longest side: how many it answers, how many right (its `Rotate`,
the clockwise turn that makes the picture upright), and its CPU time; then vidorient's own verdict
(`audit --content`) on the full-size ones.

    apt-get install tesseract-ocr tesseract-ocr-osd
    python3 models/osd-trial.py .build/release/vidorient /tmp/osd
"""
import glob, json, os, random, re, subprocess, sys, textwrap, time

BIN, WORK = os.path.abspath(sys.argv[1]), sys.argv[2]
FONTS = {name: f"/usr/share/fonts/truetype/dejavu/DejaVu{name}.ttf" for name in ("Sans", "Serif", "SansMono")}
SIGNS = ["EXIT ONLY", "Platform 4 trains to the city", "NO PARKING AT ANY TIME", "Open daily 9 to 5",
         "Fresh bread and coffee", "Welcome to the museum", "Keep this door closed", "Bus stop",
         "Caution wet floor", "Gate B12 departures"]


def draw(name, size, background, colour, font, points, text, width):
    os.makedirs(f"{WORK}/pages", exist_ok=True)
    text_file = f"{WORK}/pages/{name}.txt"
    open(text_file, "w").write(textwrap.fill(text, width))
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"color=c={background}:s={size}",
                    "-frames:v", "1", "-vf", f"drawtext=fontfile={FONTS[font]}:textfile={text_file}:"
                    f"fontcolor={colour}:fontsize={points}:x=60:y=60:line_spacing=8", f"{WORK}/pages/{name}.png"],
                   check=True)


def pages():
    random.seed(5)
    # Text that does not change with the project: Debian's copies of two licences, as one stream
    # of words cut into windows.
    words = " ".join(open(path).read() for path in ("/usr/share/common-licenses/GPL-3",
                                                    "/usr/share/common-licenses/Apache-2.0")).split()
    text = re.sub(r"[`*|#\[\]()_:%\\']", "", " ".join(words))
    for i in range(15):
        points = random.choice([22, 26, 30])
        draw(f"page{i:02d}", "1240x1754", "white", "black", ["Sans", "Serif", "SansMono"][i % 3], points,
             text[i * 2200:(i + 1) * 2200], int(1120 / (points * 0.55)))
    for i in range(10):
        start = 30000 + i * 1400
        draw(f"screen{i:02d}", "1280x800", "0x101010", random.choice(["0xe0e0e0", "0x30e030"]), "SansMono", 18,
             text[start:start + 1400], 105)
    for i, sign in enumerate(SIGNS):
        draw(f"sign{i:02d}", "800x600", random.choice(["0xf0e6c8", "0x2040a0", "white"]),
             random.choice(["black", "white", "0x202020"]), "Sans", 56, sign, 20)


def turned(side):
    folder = f"{WORK}/turned-{side or 'full'}"
    os.makedirs(folder, exist_ok=True)
    scale = f",scale='if(gt(iw,ih),{side},-2)':'if(gt(iw,ih),-2,{side})'" if side else ""
    for page in sorted(glob.glob(f"{WORK}/pages/*.png")):
        base = os.path.basename(page)[:-4]
        for turn, chain in ((0, "null"), (90, "transpose=1"), (180, "transpose=1,transpose=1"), (270, "transpose=2")):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", page, "-vf", chain + scale,
                            f"{folder}/{base}_{turn}.png"], check=True)
    return folder


def tesseract(folder):
    kinds = {}
    for picture in sorted(glob.glob(f"{folder}/*.png")):
        name = os.path.basename(picture)
        turn = int(name.rsplit("_", 1)[1][:-4])
        before = os.times()
        out = subprocess.run(["tesseract", picture, "stdout", "--psm", "0"], capture_output=True, text=True,
                             env={**os.environ, "OMP_THREAD_LIMIT": "1"})
        after = os.times()
        rotate = re.search(r"Rotate: (\d+)", out.stdout + out.stderr)
        kind = kinds.setdefault(re.sub(r"\d.*", "", name), {"n": 0, "answered": 0, "right": 0, "cpu": 0.0})
        kind["n"] += 1
        kind["cpu"] += (after.children_user - before.children_user) + (after.children_system - before.children_system)
        if rotate:
            kind["answered"] += 1
            kind["right"] += int(rotate.group(1)) == (360 - turn) % 360
    for name, kind in kinds.items():
        print(f"  {name}: answered {kind['answered']} of {kind['n']}, right {kind['right']}, "
              f"{kind['cpu'] / kind['n']:.2f} s of CPU each")


pages()
for side in (None, 1000, 640):
    print(f"tesseract --psm 0, {'full size' if side is None else f'shrunk to {side} px'}:")
    tesseract(turned(side))
out = subprocess.run([BIN, "audit", "--content", "--jsonl", "--no-progress", f"{WORK}/turned-full"],
                     capture_output=True, text=True)
opinions = [json.loads(line) for line in out.stdout.splitlines()]
judged = [r for r in opinions if (r.get("content") or {}).get("turn_needed") is not None]
right = [r for r in judged if r["content"]["turn_needed"] == (360 - int(r["path"].rsplit("_", 1)[1][:-4])) % 360]
print(f"vidorient audit --content: {len(judged)} opinions on {len(opinions)} pictures, {len(right)} right")
