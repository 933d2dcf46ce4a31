# What `--content` costs on large phone-sized JPEGs (issue 31, "cheaper and bounded"): `audit
# --content --jobs 1` beside the tag-only audit on 8 photos of 12 MP (4000x3000, from the shared
# Landscape_*.jpg scaled up by ffmpeg when ../shared/media is there, else ffmpeg's testsrc2), and
# `inspect --content` on one (its engine's start-up included). CPU per photo is the difference
# between the content and tag-only audits' CPU, divided by the photo count; peak memory per worker
# is the `--jobs 1` audit's. Targets (issue 31): 0.10 s of CPU per photo, 250 MB per worker.
# Needs only ffmpeg (no held-out photos): python3 bench/run.py content-cost [--write | --quick]
import os
import shutil

NEEDS = ["ffmpeg"]
OK = (0, 1)
COUNT = 4 if QUICK else 8
FOLDER = f"{WORK}/content-cost-12mp"


def SETUP(v):
    # The run measures a private copy of the binary: its engine goes beside it, and the scene
    # network is named, as content.py does.
    built = os.path.dirname(os.environ.get("VIDORIENT_BIN") or os.path.join(REPO, ".build-release", "release", "x"))
    shutil.copy(os.path.join(built, "libVidorientContentEngine.so"), os.path.dirname(v["vidorient"]))
    os.environ["VIDORIENT_MODEL_DIR"] = os.path.join(REPO, ".build-models")
    os.makedirs(FOLDER, exist_ok=True)
    for i in range(COUNT):
        out = f"{FOLDER}/photo-{i}.jpg"
        if os.path.exists(out):
            continue
        source = f"{SHARED}/Landscape_{i}.jpg"
        src = ["-i", source] if os.path.exists(source) else ["-f", "lavfi", "-i", f"testsrc2=size=4000x3000:rate=1"]
        sh(" ".join(["ffmpeg", "-v", "error", "-y", *src, "-frames:v", "1", "-vf", "scale=4000:3000",
                     "-q:v", "2", out]))
    GROUPS[0]["files"] = COUNT
    GROUPS[0]["about"] = (f"{COUNT} JPEGs of 4000x3000 (12 MP, `-q:v 2`) in `{FOLDER}`; every run on one "
                          "worker. CPU per photo: (content CPU - tag-only CPU) / photos.")
    return {"folder": FOLDER, "one": f"{FOLDER}/photo-0.jpg"}


GROUPS = [{
    "title": "--content on 12 MP JPEGs, one worker", "repeats": 3, "warmup": 1, "rss_every": True,
    "targets": [("rate", "vidorient audit --content --jobs 1", 1 / 0.10)],
    "commands": {
        "vidorient audit --content --jobs 1": "{vidorient} audit --content --jsonl --no-progress --jobs 1 {folder}",
        "vidorient audit --jobs 1": "{vidorient} audit --jsonl --no-progress --jobs 1 {folder}",
        "vidorient inspect --content (one photo)": "{vidorient} inspect --content --json {one}",
    }}]
