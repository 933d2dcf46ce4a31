#!/usr/bin/python3
"""Make TestMedia/content/: small real photos for the content verdict's tests.

    python3 models/photos/fetch.py --set photos --split test     # the originals, into .build-models/photos
    /usr/bin/python3 TestMedia/content/make.py [CACHE] [--out DIR]

Each photo is one of the fetched originals listed in models/photos/photos.tsv (its SHA-256
checked), decoded with its EXIF orientation applied (Debian's python3-opencv), scaled to at
most 640 px on the long side (never up), and written as a JPEG of quality 85 with no metadata:
upright pixels and no tag. `content.tsv` beside the photos says what each is (`face`: one or
more frontal faces at least 80 px tall; `scene`: a strong up and no face; `flat`: no natural
up) with its source, author and licence. Only redistributable licences: public domain, CC0,
CC-BY (attribution kept in content.tsv and README.md).
"""

import argparse
import csv
import hashlib
import os
import sys

import cv2

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LONG_SIDE = 640
QUALITY = 85

# file, kind, source id (models/photos/sources.tsv), path in the repository, author, licence
PHOTOS = [
    ("face-astronaut.jpg", "face", "scikit-image-data", "src/_skimage2/data/astronaut.png",
     "NASA (Eileen Collins, NASA Great Images database)", "public domain"),
    ("face-grace-hopper.jpg", "face", "grace-hopper", "grace_hopper.jpg",
     "U.S. Navy (official portrait of Commodore Grace M. Hopper, 1984)", "public domain"),
    ("face-chris.jpg", "face", "max-facial-recognizer", "assets/Chris.jpeg",
     "Dick Thomas Johnson, via Wikimedia Commons (Chris_Pratt_2018.jpg)", "CC-BY-2.0"),
    ("face-luciano.jpg", "face", "max-facial-recognizer", "assets/Luciano.png",
     "IBM CODAIT team", "CC0-1.0"),
    ("scene-beacon-street.jpg", "scene", "budgie-backgrounds", "backgrounds/beacon-street-sunset.jpg",
     "Matt Willett, The ADK Group", "CC0-1.0"),
    ("scene-lake-sherburne.jpg", "scene", "budgie-backgrounds", "backgrounds/lake-sherburne.jpg",
     "Jacob W. Frank", "CC0-1.0"),
    ("scene-singapore-night.jpg", "scene", "budgie-backgrounds", "backgrounds/singaporean-cityscape.jpg",
     "Romain Guy", "CC0-1.0"),
    ("scene-otters.jpg", "scene", "budgie-backgrounds", "backgrounds/oakland-zoo-otters.jpg",
     "Derrick Coetzee", "CC0-1.0"),
    ("scene-colorado-sign.jpg", "scene", "pop-os-wallpapers", "original/kait-herzog-8242.jpg",
     "Kait Herzog, via Unsplash", "public domain"),
    ("scene-rocket.jpg", "scene", "scikit-image-data", "src/_skimage2/data/rocket.jpg",
     "SpaceX (DSCOVR on Falcon 9, Cape Canaveral)", "public domain"),
    ("flat-gravel.jpg", "flat", "scikit-image-data", "src/_skimage2/data/gravel.png",
     "CC0Textures (Gravel04)", "CC0-1.0"),
    ("flat-grass.jpg", "flat", "scikit-image-data", "src/_skimage2/data/grass.png",
     "linolafett, via DeviantArt (Grass 01)", "CC0-1.0"),
    ("flat-deep-field.jpg", "flat", "scikit-image-data", "src/_skimage2/data/hubble_deep_field.jpg",
     "NASA (Hubble eXtreme Deep Field, HubbleSite 2012-37)", "public domain"),
]


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cache", nargs="?", default=os.path.join(ROOT, ".build-models", "photos"))
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    listed = {(r["source"], r["path"]): r for r in read_tsv(os.path.join(ROOT, "models", "photos", "photos.tsv"))}
    sources = {r["id"]: r for r in read_tsv(os.path.join(ROOT, "models", "photos", "sources.tsv"))}
    rows = []
    for name, kind, source, path, author, licence in PHOTOS:
        entry = listed.get((source, path))
        if entry is None or sources[source]["split"] != "test":
            sys.exit("make.py: %s/%s is not a test-split photo of models/photos/photos.tsv" % (source, path))
        original = os.path.join(args.cache, source, path)
        try:
            with open(original, "rb") as f:
                data = f.read()
        except OSError as e:
            sys.exit("make.py: %s: %s (run models/photos/fetch.py --set photos --split test)" % (original, e.strerror))
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            sys.exit("make.py: %s: sha256 differs from models/photos/photos.tsv" % original)
        image = cv2.imread(original, cv2.IMREAD_COLOR)  # EXIF orientation applied, alpha dropped (all opaque)
        if image is None:
            sys.exit("make.py: %s: not decodable" % original)
        h, w = image.shape[:2]
        scale = min(1.0, LONG_SIDE / max(w, h))
        if scale < 1.0:
            image = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
        out = os.path.join(args.out, name)
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
        if not ok:
            sys.exit("make.py: cannot encode %s" % name)
        os.makedirs(args.out, exist_ok=True)
        with open(out, "wb") as f:
            f.write(jpeg.tobytes())
        h, w = image.shape[:2]
        rows.append([name, kind, "%dx%d" % (w, h), source, sources[source]["repository"],
                     sources[source]["commit"], path, author, licence])
        print("%s %dx%d %d bytes" % (name, w, h, len(jpeg)))
    with open(os.path.join(args.out, "content.tsv"), "w", encoding="utf-8") as f:
        f.write("file\tkind\tsize\tsource\trepository\tcommit\tpath\tauthor\tlicence\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main()
