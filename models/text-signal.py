#!/usr/bin/env python3
"""The text signal's numbers (docs/content.md, "Pages of text and screens"): for every picture of
the given splits, each in its four turns, how much it looks like a page or a screen
(`ContentEvidence.textLikeness`: the scene network's probability of ContentEngine.textClasses, the
most of any turn, at the scene's side) and what Tesseract's orientation detection reads in it fitted
into ContentEngine.textSide (a smaller picture enlarged toward it, at most twice, by the engine),
through the engine library vidorient runs (vo_content_scene_classes,
vo_content_text_orientation). Prints a table of coverage and precision for each likeness floor and
confidence, pages and photos apart, and writes every reading to OUT.tsv.

The numbers shipped were chosen on `--pages text-choose --photos validation` (models/photos);
test4's pages are the held-out measurement, made once with the numbers fixed.

    /usr/bin/python3 models/text-signal.py --pages text-choose --photos validation --out /tmp/text-choose
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
    ap.add_argument("--out", required=True)
    ap.add_argument("--photo-limit", type=int, default=0, help="every k-th photo so that at most this many")
    args = ap.parse_args()
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

    sources = {r["id"]: r for r in csv.DictReader(open(f"{ROOT}/models/photos/sources.tsv"), delimiter="\t")}
    rows = list(csv.DictReader(open(f"{ROOT}/models/photos/photos.tsv"), delimiter="\t"))
    chosen = []
    for kind, splits in (("page", args.pages), ("photo", args.photos)):
        picked = [r for r in rows if sources[r["source"]]["split"] in splits and r["up"] == "yes"]
        if kind == "photo" and args.photo_limit and len(picked) > args.photo_limit:
            step = len(picked) / args.photo_limit
            picked = [picked[int(i * step)] for i in range(args.photo_limit)]
        chosen += [(kind, r) for r in picked]
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
    print("| likeness floor | confidence | pages: coverage | pages: precision | photos: read | photos: wrong |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for floor in (0.1, 0.2, 0.3, 0.5, 0.7):
        for confidence in (1, 2, 3, 5, 8, 10, 15):
            def tally(kind):
                n = sum(1 for k, *_ in results if k == kind)
                said = [right for k, like, reading, right in results
                        if k == kind and like >= floor and reading and reading[1] >= confidence]
                return n, len(said), sum(said)
            pn, ps, pr = tally("page")
            fn, fs, fr = tally("photo")
            print(f"| {floor} | {confidence} | {ps / max(pn, 1):.1%} ({ps} of {pn}) | "
                  f"{pr / max(ps, 1):.2%} ({pr} of {ps}) | {fs} of {fn} | {fs - fr} |")


if __name__ == "__main__":
    main()
