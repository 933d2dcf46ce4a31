#!/usr/bin/python3
"""Contact sheets of listed photos, for checking by eye that each is upright as displayed.

    /usr/bin/python3 models/photos/sheets.py OUTDIR [--source ID] [--split S] [--list FILE]

Reads photos.tsv (or --list) and the cache that fetch.py fills, decodes each photo
with Debian's python3-opencv (cv2.imread applies the EXIF orientation, so a sheet
shows what a viewer shows), and writes PNG sheets of 10 x 8 thumbnails, each
labelled with its row number in the list (header excluded, counting from 0).
"""

import argparse
import csv
import os

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--list", default=os.path.join(HERE, "photos.tsv"))
    ap.add_argument("--cache", default=os.path.join(ROOT, ".build-models", "photos"))
    ap.add_argument("--source")
    ap.add_argument("--split")
    ap.add_argument("--cols", type=int, default=10)
    ap.add_argument("--rows", type=int, default=8)
    ap.add_argument("--cell", type=int, default=176)
    a = ap.parse_args()
    with open(a.list, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    if a.split:
        with open(os.path.join(HERE, "sources.tsv"), newline="", encoding="utf-8") as f:
            split = {s["id"]: s["split"] for s in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)}
    items = [(i, r) for i, r in enumerate(rows)
             if (not a.source or r["source"] == a.source) and (not a.split or split[r["source"]] == a.split)]
    os.makedirs(a.outdir, exist_ok=True)
    label, per = 18, a.cols * a.rows
    for start in range(0, len(items), per):
        sheet = np.full((a.rows * (a.cell + label), a.cols * a.cell, 3), 40, np.uint8)
        for k, (i, r) in enumerate(items[start:start + per]):
            y0, x0 = (k // a.cols) * (a.cell + label), (k % a.cols) * a.cell
            img = cv2.imread(os.path.join(a.cache, r["source"], r["path"]), cv2.IMREAD_COLOR)
            if img is not None:
                h, w = img.shape[:2]
                s = (a.cell - 4) / max(h, w)
                t = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
                th, tw = t.shape[:2]
                yy, xx = y0 + label + (a.cell - th) // 2, x0 + (a.cell - tw) // 2
                sheet[yy:yy + th, xx:xx + tw] = t
            cv2.putText(sheet, str(i), (x0 + 3, y0 + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 255, 255), 1,
                        cv2.LINE_AA)
        out = os.path.join(a.outdir, "sheet_%05d.png" % start)
        cv2.imwrite(out, sheet)
        print(out)


if __name__ == "__main__":
    main()
