#!/usr/bin/env python3
"""The text signal's numbers (docs/content.md, "Pages of text and screens"): for every picture of
the given splits, each in its four turns, how much it looks like a page or a screen
(`ContentEvidence.textLikeness`: the scene network's probability of ContentEngine.textClasses, the
most of any turn, at the scene's side) and what Tesseract's orientation detection reads in it fitted
into ContentEngine.textSide (a smaller picture enlarged toward it, at most twice, by the engine),
through the engine library vidorient runs (vo_content_scene_classes,
vo_content_text_orientation). Writes every reading to OUT.tsv, then prints a table of coverage and
precision for each likeness floor and confidence, pages and photos apart: for the picture read as
it is (what vidorient does), and, from the same readings, round 7's trial left out (docs/content.md):
where that reading falls below the confidence, its four quarter turns combined (each reading votes
with its confidence for the turn it says is upright; the winner's lead over its strongest rival must
reach the confidence). `--summarize OUT.tsv` prints the tables again from an earlier run's readings.

The numbers shipped were chosen on `--pages text-choose --photos validation test test2
--photo-limit 600` (models/photos); test4's pages are the held-out measurement, made once with the
numbers fixed.

    /usr/bin/python3 models/text-signal.py --pages text-choose --photos validation test test2 --photo-limit 600 --out /tmp/tc
    /usr/bin/python3 models/text-signal.py --summarize /tmp/tc.tsv
"""
import argparse, csv, ctypes, os, sys, time
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import content_engine as ce

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEXT_CLASSES = [446, 549, 692, 916, 917, 918, 919, 921, 922, 782, 664, 851, 527, 620, 681, 590, 487, 781]
SCENE_SIDE, TEXT_SIDE = 160, 3200


class Text(ctypes.Structure):
    _fields_ = [("rotation", ctypes.c_int), ("confidence", ctypes.c_float), ("script", ctypes.c_char * 32),
                ("script_confidence", ctypes.c_float)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", nargs="*", default=["text-choose"])
    ap.add_argument("--photos", nargs="*", default=["validation"])
    ap.add_argument("--out")
    ap.add_argument("--summarize", help="an earlier run's OUT.tsv: print its tables, read nothing")
    ap.add_argument("--photo-limit", type=int, default=0, help="every k-th photo so that at most this many")
    args = ap.parse_args()
    if args.summarize:
        summarize(list(csv.DictReader(open(args.summarize), delimiter="\t")))
        return
    if not args.out:
        ap.error("--out or --summarize is needed")
    library, model = ce.default_paths(ROOT)
    engine = ce.Engine(library, model)
    lib = engine.lib
    lib.vo_content_scene_classes.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 5 + [
        ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_float), ctypes.c_char_p, ctypes.c_size_t]
    lib.vo_content_text_orientation.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 4 + [
        ctypes.POINTER(Text), ctypes.c_char_p, ctypes.c_size_t]
    error = ctypes.create_string_buffer(600)

    def likeness(rgb):
        best = 0.0
        for k in range(4):
            picture = ce.turned(rgb, k)
            h, w = picture.shape[:2]
            features, logits = np.zeros(1280, np.float32), np.zeros(1000, np.float32)
            assert lib.vo_content_scene_classes(engine.engine, picture.ctypes.data, w, h, w * 3, SCENE_SIDE, 0,
                                                features.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                                logits.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), error, 600) == 0
            e = np.exp(logits.astype(np.float64) - logits.max())
            best = max(best, float(e[TEXT_CLASSES].sum() / e.sum()))
        return best

    def read(rgb):
        h, w = rgb.shape[:2]
        reading = Text()
        status = lib.vo_content_text_orientation(engine.engine, rgb.ctypes.data, w, h, w * 3, TEXT_SIDE,
                                                 ctypes.byref(reading), error, 600)
        if status < 0:
            raise RuntimeError(error.value.decode())
        return (reading.rotation, reading.confidence, reading.script.decode()) if status == 1 else None

    chosen = ce.pictures(ROOT, args.pages, args.photos, args.photo_limit)
    out = open(args.out + ".tsv", "w")
    out.write("kind\tsource\tpath\tturn\tlikeness\tread\trotation\tconfidence\tscript\tright\tcpu_s\n")
    results = []
    for kind, r in chosen:
        path = f"{ROOT}/.build-models/photos/{r['source']}/{r['path']}"
        small = ce.displayed_picture(path)
        like = likeness(small)
        full = ce.fit(ce.displayed_picture(path, side=100000), TEXT_SIDE)
        for t in range(4):
            start = time.process_time()
            reading = read(ce.turned(full, t))
            cpu = time.process_time() - start
            right = reading is not None and reading[0] == (360 - 90 * t) % 360
            results.append((kind, like, reading, right))
            out.write("\t".join(map(str, [kind, r["source"], r["path"], t * 90, f"{like:.4f}", int(reading is not None),
                                          reading[0] if reading else "", f"{reading[1]:.2f}" if reading else "",
                                          reading[2] if reading else "", int(right), f"{cpu:.3f}"])) + "\n")
            out.flush()
    out.close()
    summarize(list(csv.DictReader(open(args.out + ".tsv"), delimiter="\t")))


def summarize(rows):
    """The tables, from the readings (one row per picture and turn, as OUT.tsv has them)."""
    pictures = {}
    for row in rows:
        pictures.setdefault((row["kind"], row["source"], row["path"]), {})[int(row["turn"]) // 90] = row
    pictures = {key: turns for key, turns in pictures.items() if len(turns) == 4}

    def reading(row):
        return (int(row["rotation"]) // 90, float(row["confidence"])) if row["read"] == "1" else None

    def combined(turns, shown):
        """The picture shown turned `shown`, read in its four turns and combined: (turn, lead) or None."""
        votes, seen = [0.0] * 4, set()
        for k in range(4):
            r = reading(turns[(shown + k) % 4])
            if r:
                votes[(k + r[0]) % 4] += r[1]
                seen.add((k + r[0]) % 4)
        if not seen:
            return None
        winner = max(seen, key=lambda u: votes[u])
        return winner, votes[winner] - max((votes[u] for u in seen if u != winner), default=0.0)

    def alone(turns, shown, confidence):
        r = reading(turns[shown])
        return r[0] if r and r[1] >= confidence else None

    def four(turns, shown, confidence):
        said = alone(turns, shown, confidence)
        if said is not None:
            return said
        c = combined(turns, shown)
        return c[0] if c and c[1] >= confidence else None

    for title, decide in (("The picture read as it is:", alone),
                          ("Where that is below the confidence, its four turns combined (a trial, left out):", four)):
        print(f"\n{title}\n")
        print("| likeness floor | confidence | pages: coverage | pages: precision | photos: read | photos: wrong |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: |")
        for floor in (0.1, 0.2, 0.3, 0.5, 0.7):
            for confidence in (1, 2, 3, 5, 8, 10, 15):
                tally = {"page": [0, 0, 0], "photo": [0, 0, 0]}
                for (kind, _, _), turns in pictures.items():
                    for shown in range(4):
                        counts = tally[kind]
                        counts[0] += 1
                        said = decide(turns, shown, confidence) if float(turns[shown]["likeness"]) >= floor else None
                        if said is not None:
                            counts[1] += 1
                            counts[2] += said == (4 - shown) % 4
                (pn, ps, pr), (fn, fs, fr) = tally["page"], tally["photo"]
                print(f"| {floor} | {confidence} | {ps / max(pn, 1):.1%} ({ps} of {pn}) | "
                      f"{pr / max(ps, 1):.2%} ({pr} of {ps}) | {fs} of {fn} | {fs - fr} |")


if __name__ == "__main__":
    main()
