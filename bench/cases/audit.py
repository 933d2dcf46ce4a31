# `vidorient audit LIB --jsonl` beside `exiftool -r -j LIB` and `mediainfo --Output=JSON LIB` on the
# same generated library with a warm cache (issue 5); vidorient alone on clips only, on 10x the
# files (memory) and with --deep. Libraries: bench/make_library.py, under bench/work/, reused.
# Run: python3 bench/run.py audit [--write | --quick]
import collections
import json
import os
import subprocess

NEEDS = ["exiftool", "mediainfo"]
OK = (0, 1)  # 1: findings (vidorient), or errors in some files (exiftool)
REPEATS, WARMUP = 3, 1
N = 500 if QUICK else 5000
TIMES = 2 if QUICK else 10


def library(mode, name, *args):
    out = subprocess.run(["python3", f"{REPO}/bench/make_library.py", mode, f"{WORK}/{name}", *args],
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"bench: error: making bench/work/{name} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def SETUP(v):
    both = ["--shared", SHARED] if os.path.isdir(SHARED) else []
    libs = {"library": library("mixed", "library", "--files", str(N), "--testmedia", f"{REPO}/TestMedia", *both)}
    libs["library-clips"] = library("clips", "library-clips", "--files", str(N), "--from", f"{WORK}/library")
    libs["library-sub"] = library("subset", "library-sub", "--every", "10", "--from", f"{WORK}/library")
    libs["library-x10"] = library("times", "library-x10", "--copies", str(TIMES), "--from", f"{WORK}/library")
    subprocess.run(f"find {WORK}/library -type f -print0 | xargs -0 cat > /dev/null", shell=True)  # a warm cache
    for g in GROUPS:
        g["files"] = {label: libs[lib]["files"] for label, lib in LIB_OF.items()}
    k = libs["library"]["by_kind"]
    GROUPS[0]["about"] = (f"`library`: {N:,} files ({k.get('clip', 0):,} clips, {k.get('photo', 0):,} JPEGs, "
                          f"{k.get('bad', 0):,} bad files) in {libs['library']['folders']:,} folders, "
                          f"{libs['library']['bytes'] / 2**20:,.0f} MiB, copied from "
                          + ("../shared/media's phone clips and photos" if both else
                             "**TestMedia's 160x96 clips (../shared/media was absent)**") + " and TestMedia; "
                          f"`library-sub` every 10th of its files, `library-clips` {N:,} links to its clips only, "
                          f"`library-x10` {TIMES} linked copies of it.")
    return {}


LIB_OF = {"vidorient audit LIB": "library", "exiftool -r -j LIB": "library", "mediainfo LIB": "library",
          "vidorient audit SUB": "library-sub", "exiftool -r -j SUB": "library-sub", "mediainfo SUB": "library-sub",
          "vidorient audit CLIPS": "library-clips", "vidorient audit X10": "library-x10",
          "vidorient audit LIB --deep": "library"}
V, E, M = "{vidorient} audit {work}/%s --jsonl", "exiftool -r -j {work}/%s", "mediainfo --Output=JSON {work}/%s"
GROUPS = [
    {"title": "The library, warm cache", "repeats": 3, "rss_every": True,
     "targets": [("ratio", "vidorient audit LIB", "exiftool -r -j LIB", 0.05),
                 ("ratio", "vidorient audit LIB", "mediainfo LIB", 0.2)],
     "commands": {"vidorient audit LIB": V % "library", "exiftool -r -j LIB": E % "library",
                  "mediainfo LIB": M % "library"}},
    {"title": "The same on library-sub (a tenth of the files, the same mix)", "repeats": 5, "rss_every": True,
     "commands": {"vidorient audit SUB": V % "library-sub", "exiftool -r -j SUB": E % "library-sub",
                  "mediainfo SUB": M % "library-sub"}},
    {"title": "vidorient alone: clips only, 10× the files, and --deep", "repeats": 3, "rss_every": True,
     "targets": [("rate", "vidorient audit CLIPS", 5000), ("rss", "vidorient audit X10", "vidorient audit LIB", 1.10)],
     "commands": {"vidorient audit LIB": V % "library", "vidorient audit CLIPS": V % "library-clips",
                  "vidorient audit X10": V % "library-x10", "vidorient audit LIB --deep": V % "library" + " --deep"}},
]


def CHECK(c, stdout, v):
    """How many files each tool reported (every tool must report every file), and vidorient's findings."""
    text = open(stdout, errors="replace").read()
    want = GROUPS[0]["files"][c.label]
    if c.argv[0] == v["vidorient"]:
        recs = [json.loads(l) for l in text.splitlines() if l.strip()]
        codes = collections.Counter(f["code"] for r in recs for f in r["findings"])
        note = "; findings " + ", ".join(f"`{k}` {n:,}" for k, n in sorted(codes.items()))
    else:
        recs = json.loads(text or "[]")
        recs = recs if isinstance(recs, list) else [recs]
        note = f", {sum('Error' in d for d in recs)} errors" if c.argv[0] == "exiftool" else ""
    return f"{len(recs):,} files reported" + ("" if len(recs) == want else f" **of {want:,}**") + note
