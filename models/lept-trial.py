#!/usr/bin/env python3
"""Leptonica's text orientation detection, tried on pages of text and screens (docs/content.md,
"Leptonica's text orientation, tried"): the trial that chose the numbers of vidorient's fourth
reading, the letter shapes (ContentPolicy.letterConfidence, letterRatio, ContentEngine.textSide),
for the pages Tesseract's orientation detection leaves without an answer (two in five). The engine
does the same since (vo_content_letter_shapes), but for the order of its conversions.

Leptonica (liblept.so.5, which Tesseract links: no new package) counts the ascenders and the
descenders of Latin text with hit-miss templates on a 1-bit picture (`pixOrientDetect`, up against
down and left against right, each a signed confidence), then decides (`makeOrientDecision`). For
every picture of the given splits (models/photos), each in its four turns, as vidorient judges text
(its EXIF orientation applied, a transparent one over white, then fitted to SIDE pixels on its
longest side, enlarged or shrunk), made 1-bit by an
adaptive threshold (text dark, whatever the lighting; a light-on-dark screen inverted when most of
it is dark): both confidences, written to OUT.tsv, then coverage and precision for each minimum
confidence and ratio, pages and photos apart. `--summarize OUT.tsv` prints the tables again.

    /usr/bin/python3 models/lept-trial.py --pages text-choose --photos validation --photo-limit 300 --out /tmp/lept
    /usr/bin/python3 models/lept-trial.py --summarize /tmp/lept.tsv
    /usr/bin/python3 models/text-signal.py --pages text-choose --photos validation --photo-limit 50 --out /tmp/tc
    /usr/bin/python3 models/lept-trial.py --summarize /tmp/lept.tsv --beside /tmp/tc.tsv
"""
import argparse, csv, ctypes, os, sys, tempfile, time
import cv2
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import content_engine as ce

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# makeOrientDecision's orientations (leptonica's alltypes.h), as the clockwise quarter turns that
# make the picture upright (pixOrientCorrect: LEFT is turned by pixRotateOrth(pix, 1), 90 degrees
# clockwise; RIGHT by 3).
TURNS = {1: 0, 2: 1, 3: 2, 4: 3}


def leptonica():
    lib = ctypes.CDLL("liblept.so.5")
    lib.pixRead.restype = ctypes.c_void_p
    lib.pixRead.argtypes = [ctypes.c_char_p]
    lib.pixConvertTo1.restype = ctypes.c_void_p
    lib.pixConvertTo1.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.pixOrientDetect.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_float),
                                    ctypes.c_int, ctypes.c_int]
    lib.makeOrientDecision.argtypes = [ctypes.c_float, ctypes.c_float, ctypes.c_float, ctypes.c_float,
                                       ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    lib.pixDestroy.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.setMsgSeverity.argtypes = [ctypes.c_int]
    lib.setMsgSeverity(6)  # L_SEVERITY_NONE: no messages on stderr
    return lib


def binary(rgb):
    """Dark text on white, 8-bit (0 or 255): an adaptive threshold, the picture inverted first when
    most of it is dark (a terminal, a dark-mode screen)."""
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    if np.median(grey) < 110:
        grey = 255 - grey
    block = max(15, (min(grey.shape) // 40) | 1)
    return cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, block, 15)


def shown(path):
    """The picture as displayed, RGB: its EXIF orientation applied; a transparent one over white (as a
    viewer shows a PNG page whose background is transparent)."""
    image = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if image is not None and image.ndim == 3 and image.shape[2] == 4:
        alpha = image[..., 3:].astype(np.float32) / 255
        over = image[..., :3].astype(np.float32) * alpha + 255 * (1 - alpha)
        return cv2.cvtColor(over.astype(np.uint8), cv2.COLOR_BGR2RGB)
    return ce.displayed_picture(path, side=100000)


def enlarged(rgb, side):
    """Fitted to `side` pixels on its longest side, enlarged (cubic) as well as shrunk: Leptonica's
    templates are made for text scanned at about 300 pixels an inch."""
    height, width = rgb.shape[:2]
    scale = side / max(width, height)
    if abs(scale - 1) < 0.05:
        return rgb
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return cv2.resize(rgb, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)


def detect(lib, picture, scratch):
    """Leptonica's up and left confidences for an 8-bit 0/255 picture."""
    cv2.imwrite(scratch, picture)
    pix8 = ctypes.c_void_p(lib.pixRead(scratch.encode()))
    pix1 = ctypes.c_void_p(lib.pixConvertTo1(pix8, 128))
    up, left = ctypes.c_float(), ctypes.c_float()
    status = lib.pixOrientDetect(pix1, ctypes.byref(up), ctypes.byref(left), 0, 0)
    lib.pixDestroy(ctypes.byref(pix1))
    lib.pixDestroy(ctypes.byref(pix8))
    return (up.value, left.value) if status == 0 else None


def decide(lib, up, left, minupconf, minratio):
    orient = ctypes.c_int()
    lib.makeOrientDecision(up, left, minupconf, minratio, ctypes.byref(orient), 0)
    return TURNS.get(orient.value)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", nargs="*", default=["text-choose"])
    ap.add_argument("--photos", nargs="*", default=["validation"])
    ap.add_argument("--photo-limit", type=int, default=0, help="every k-th photo so that at most this many")
    ap.add_argument("--side", type=int, default=2400, help="the longest side the picture is fitted into")
    ap.add_argument("--out")
    ap.add_argument("--summarize", help="an earlier run's OUT.tsv: print its tables, read nothing")
    ap.add_argument("--beside", help="models/text-signal.py's OUT.tsv of the same pictures: Leptonica where "
                                     "Tesseract's reading, as vidorient takes it, gives no answer")
    args = ap.parse_args()
    lib = leptonica()
    if args.summarize:
        rows = list(csv.DictReader(open(args.summarize), delimiter="\t"))
        summarize(lib, rows)
        if args.beside:
            beside(lib, rows, list(csv.DictReader(open(args.beside), delimiter="\t")))
        return
    if not args.out:
        ap.error("--out or --summarize is needed")
    chosen = ce.pictures(ROOT, args.pages, args.photos, args.photo_limit)
    scratch = os.path.join(tempfile.mkdtemp(), "page.pgm")
    with open(args.out + ".tsv", "w") as out:
        out.write("kind\tsource\tpath\tturn\tup\tleft\tcpu_s\n")
        for kind, r in chosen:
            path = f"{ROOT}/.build-models/photos/{r['source']}/{r['path']}"
            if not os.path.exists(path):
                print(f"lept-trial: missing {path}", file=sys.stderr)
                continue
            page = binary(enlarged(shown(path), args.side))
            for t in range(4):
                start = time.process_time()
                reading = detect(lib, ce.turned(page, t), scratch)
                cpu = time.process_time() - start
                up, left = reading if reading else ("", "")
                out.write("\t".join(map(str, [kind, r["source"], r["path"], t * 90, up, left, f"{cpu:.3f}"])) + "\n")
                out.flush()
    summarize(lib, list(csv.DictReader(open(args.out + ".tsv"), delimiter="\t")))


def summarize(lib, rows):
    print("| min confidence | min ratio | pages: coverage | pages: precision | photos: answered | photos: wrong |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for minupconf in (2.0, 4.0, 7.0, 10.0, 15.0):
        for minratio in (1.5, 2.5, 4.0):
            tally = {"page": [0, 0, 0], "photo": [0, 0, 0]}
            for row in rows:
                counts = tally[row["kind"]]
                counts[0] += 1
                if row["up"] == "":
                    continue
                said = decide(lib, float(row["up"]), float(row["left"]), minupconf, minratio)
                if said is not None:
                    counts[1] += 1
                    counts[2] += said == (4 - int(row["turn"]) // 90) % 4
            (pn, ps, pr), (fn, fs, fr) = tally["page"], tally["photo"]
            print(f"| {minupconf} | {minratio} | {ps / max(pn, 1):.1%} ({ps} of {pn}) | "
                  f"{pr / max(ps, 1):.2%} ({pr} of {ps}) | {fs} of {fn} | {fs - fr} |")


def beside(lib, rows, tesseract, floor=0.5, confidence=3.0):
    """Tesseract as vidorient takes it (the picture's text likeness at least `floor`, its reading's
    confidence at least `confidence`: ContentEngine's policy), and where that gives no answer,
    Leptonica's, for pictures as much like a page; pages and photos apart."""
    read = {(r["kind"], r["source"], r["path"], r["turn"]): r for r in tesseract}
    print(f"\nTesseract (likeness >= {floor}, confidence >= {confidence}), then Leptonica where it has no answer:\n")
    print("| min confidence | min ratio | pages: Tesseract right / said | pages: Leptonica added right / said "
          "| pages: judged right | photos: Leptonica said (wrong) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for minupconf in (4.0, 7.0, 10.0, 15.0):
        for minratio in (2.5, 4.0):
            tally = {"page": [0, 0, 0, 0, 0], "photo": [0, 0, 0, 0, 0]}
            for row in rows:
                t = read.get((row["kind"], row["source"], row["path"], row["turn"]))
                if t is None:
                    continue
                counts = tally[row["kind"]]
                counts[0] += 1
                truth = (4 - int(row["turn"]) // 90) % 4
                if float(t["likeness"]) < floor:
                    continue
                if t["read"] == "1" and float(t["confidence"]) >= confidence:
                    counts[1] += 1
                    counts[2] += int(t["rotation"]) // 90 == truth
                    continue
                if row["up"] == "":
                    continue
                said = decide(lib, float(row["up"]), float(row["left"]), minupconf, minratio)
                if said is not None:
                    counts[3] += 1
                    counts[4] += said == truth
            n, ts, tr, ls, lr = tally["page"]
            _, _, _, fs, fr = tally["photo"]
            print(f"| {minupconf} | {minratio} | {tr} / {ts} | {lr} / {ls} | {(tr + lr) / max(n, 1):.1%} of {n} "
                  f"| {fs} ({fs - fr}) of {tally['photo'][0]} |")


if __name__ == "__main__":
    main()
