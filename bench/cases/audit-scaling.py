# How the audit scales with --jobs (issue 21): `vidorient audit LIB --jsonl --no-progress --jobs J` on a
# generated library of small files (TestMedia's clips, JPEGs and bad files, copied: every file its own
# inode and pages), page cache warm, at J = 1, 2, 4, ... up to nproc, and 2 x nproc (more workers than
# cores must not be slower); then the same with a warm result cache (`--cache-path`, nothing changed
# since it was filled), beside `find LIB -type f` (a walk that stats every file and reads none) and two
# `--jobs 1` runs at once (what the machine gives two processes that share nothing of ours: the
# ceiling for --jobs 2 on it).
# Files/s for each; the speed-up from --jobs 1 is the inverse of the ratio column. Targets: --jobs 2 at
# least 1.8x --jobs 1 (16 cores: --jobs 16 at least 12x); the warm cache at least 300,000 files/s on 2
# cores (600,000 on 16) and, on 2 cores, --jobs 2 at least 1.8x --jobs 1. The two other batch commands
# at the same --jobs: `thumbnail DIR --out-dir OUT` on
# every 50th file of the library (clips, JPEGs and bad files: exit status 2 for those), and
# `fix --from-audit AUDIT.jsonl --in-place` on copies of TestMedia's scaled-2x.mp4 (the audit suggests
# a fix for each), reset from a pristine copy and synced before every run. And `audit --content` at the
# same --jobs on the photos of scikit-image's data folder (.build-models/skimage-data, from .ci/setup;
# copied 4 times), each run's peak RSS beside it: the memory of one content engine per worker; and
# `thumbnail` of those same photos (no clip among them, so no FFmpeg) at each --jobs.
# Run: python3 bench/run.py audit-scaling [--write | --quick]
import json
import os
import shutil
import subprocess

OK = (0, 1)  # 1: findings
REPEATS, WARMUP = (3, 1) if QUICK else (10, 2)
N = 2000 if QUICK else 20000
LIB, CACHE = f"{WORK}/library-small", f"{WORK}/library-small-cache.sqlite"
THUMBS, SHEET = f"{WORK}/library-small-every-50", f"{WORK}/scaling-thumbnails"
PHOTO_SHEET = f"{WORK}/scaling-photo-thumbnails"
FIXES = 200 if QUICK else 2000
FIX, PRISTINE, FIX_AUDIT = f"{WORK}/fix-library", f"{WORK}/fix-library-pristine", f"{WORK}/fix-library.jsonl"
SKIMAGE, CONTENT = f"{REPO}/.build-models/skimage-data", f"{WORK}/content-photos"

JOBS = sorted({j for j in (1 << k for k in range(12)) if j <= NPROC} | {NPROC, 2 * NPROC})
# A fix waits on the disk (an fsync per file), so it is also run with more workers than cores.
FIX_JOBS = JOBS + [4 * NPROC, 8 * NPROC]


def SETUP(v):
    out = subprocess.run(["python3", f"{REPO}/bench/make_library.py", "mixed", LIB, "--files", str(N),
                          "--testmedia", f"{REPO}/TestMedia"], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"bench: error: making {LIB} failed: {out.stderr.strip()}")
    lib = json.loads(out.stdout)
    subprocess.run(f"find {LIB} -type f -print0 | xargs -0 cat > /dev/null", shell=True)  # a warm page cache
    sub = json.loads(subprocess.run(["python3", f"{REPO}/bench/make_library.py", "subset", THUMBS, "--every", "50",
                                     "--from", LIB], capture_output=True, text=True, check=True).stdout)
    # FIXES copies of one clip whose audit suggests a fix, in 20 folders; the audit of them, once.
    subprocess.run(["rm", "-rf", PRISTINE, FIX])
    for i in range(FIXES):
        folder = f"{PRISTINE}/{i % 20:02d}"
        os.makedirs(folder, exist_ok=True)
        shutil.copyfile(f"{REPO}/TestMedia/scaled-2x.mp4", f"{folder}/clip-{i:05d}.mp4")
    subprocess.run(["cp", "-a", PRISTINE, FIX], check=True)
    with open(FIX_AUDIT, "w") as out:
        subprocess.run([v["vidorient"], "audit", FIX, "--jsonl", "--no-progress"], stdout=out)
    suggested = sum('"suggested_fix":{' in l for l in open(FIX_AUDIT))
    if suggested != FIXES:
        raise SystemExit(f"bench: error: the audit of {FIX} suggests {suggested} fixes, expected {FIXES}")
    # The content audit's photos: scikit-image's colour and grey samples, 4 copies of each.
    shutil.rmtree(CONTENT, ignore_errors=True)
    photos = sorted(n for n in os.listdir(SKIMAGE) if n.endswith((".png", ".jpg"))) if os.path.isdir(SKIMAGE) else []
    for copy in range(4):
        os.makedirs(f"{CONTENT}/{copy}", exist_ok=True)
        for name in photos:
            shutil.copyfile(f"{SKIMAGE}/{name}", f"{CONTENT}/{copy}/{name}")
    GROUPS[5]["files"] = GROUPS[6]["files"] = 4 * len(photos)
    # The result cache filled once, untimed; every timed run finds every file unchanged.
    subprocess.run(f"rm -rf {CACHE}*", shell=True)
    subprocess.run([v["vidorient"], "audit", LIB, "--jsonl", "--no-progress", "--cache-path", CACHE],
                   stdout=subprocess.DEVNULL)
    k = lib["by_kind"]
    for g in GROUPS[:2]:
        g["files"] = lib["files"]
    GROUPS[2]["files"], GROUPS[3]["files"], GROUPS[4]["files"] = sub["files"], FIXES, 5 * lib["files"]
    GROUPS[0]["about"] = (f"`library-small`: {lib['files']:,} files ({k.get('clip', 0):,} clips, "
                          f"{k.get('photo', 0):,} JPEGs, {k.get('bad', 0):,} bad files; TestMedia's, copied) in "
                          f"{lib['folders']:,} folders, {lib['bytes'] / 2**20:,.0f} MiB. Speed-up from --jobs 1 = "
                          f"1 ÷ the ratio. nproc = {NPROC}.")
    return {}


def jobs_label(j, extra=""):
    return f"--jobs {j}{extra}" + (f" ({j // NPROC} × nproc)" if j > NPROC else "")


AUDIT = "{vidorient} audit %s --jsonl --no-progress --jobs %d"
TARGETS = ([("ratio", jobs_label(2), jobs_label(1), round(1 / 1.8, 4))] if NPROC >= 2 else []) \
    + ([("ratio", jobs_label(16), jobs_label(1), round(1 / 12, 4))] if NPROC >= 16 else [])
WARM = 600000 if NPROC >= 16 else 300000  # issue 32
PAIR = "two --jobs 1 --cache at once (2 × the files)"
GROUPS = [
    {"title": "The audit at each --jobs, page cache warm, no result cache", "ref": jobs_label(1),
     "targets": TARGETS,
     "commands": {jobs_label(j): AUDIT % (LIB, j) for j in JOBS}},
    {"title": "The audit at each --jobs with a warm result cache (nothing changed), beside find",
     "ref": jobs_label(1, " --cache"),
     "targets": [("rate", jobs_label(NPROC, " --cache"), WARM)]
     + ([("ratio", jobs_label(2, " --cache"), jobs_label(1, " --cache"), round(1 / 1.8, 4))] if NPROC >= 2 else []),
     "commands": {**{jobs_label(j, " --cache"): AUDIT % (LIB, j) + f" --cache-path {CACHE}" for j in JOBS},
                  # The machine's own ceiling for two: two one-job audits that share nothing but the
                  # machine, at once (twice the files; each writes to /dev/null, as sorted as the rest).
                  **({PAIR: "sh -c '%s > /dev/null & %s > /dev/null; wait'" % ((AUDIT % (LIB, 1)
                                                                                 + f" --cache-path {CACHE}",) * 2)}
                     if NPROC >= 2 else {}),
                  "find LIB -type f": f"find {LIB} -type f"}},
    {"title": "thumbnail over a folder (every 50th file of the library) at each --jobs", "ref": jobs_label(1),
     "repeats": 3 if QUICK else 5, "ok": (0, 2), "before": f"rm -rf {SHEET}",
     "commands": {jobs_label(j): f"{{vidorient}} thumbnail {THUMBS} --out-dir {SHEET} --quiet --jobs {j}"
                  for j in JOBS}},
    {"title": "fix --from-audit --in-place at each --jobs (one clip copied, reset and synced before each run)",
     "ref": jobs_label(1), "repeats": 3 if QUICK else 5,
     # a fix refuses a file whose identity (inode included) is not the audited one: audited again after the copy
     "before": f"sh -c 'rm -rf {FIX} && cp -a {PRISTINE} {FIX} && {{vidorient}} audit {FIX} --jsonl --no-progress"
               f" > {FIX_AUDIT}; sync'",
     "commands": {jobs_label(j): f"{{vidorient}} fix --from-audit {FIX_AUDIT} --in-place --no-progress --jobs {j}"
                  for j in FIX_JOBS}},
    # Issue 32, round 8: a sorted audit holds only what finished ahead of a slower file, not the output.
    {"title": "The library given five times (100,000 records), sorted, warm result cache: the memory held",
     "ref": jobs_label(1), "repeats": 3 if QUICK else 5,
     "commands": {jobs_label(j): AUDIT % (" ".join([LIB] * 5), j) + f" --cache-path {CACHE}" for j in (1, 2)}},
    {"title": "audit --content at each --jobs (scikit-image's sample photos, 4 copies)", "ref": jobs_label(1),
     "repeats": 3 if QUICK else 5,
     "targets": [("ratio", jobs_label(2), jobs_label(1), round(1 / 1.8, 4))] if NPROC >= 2 else [],
     "commands": {jobs_label(j): f"{{vidorient}} audit {CONTENT} --content --jsonl --no-progress --jobs {j}"
                  for j in JOBS}},
    # Issue 32, round 9: a photo's thumbnail opens no FFmpeg, whose loading (one lock, ~30 ms) every
    # worker waited on; the same photos as the content audit, each thumbnailed at 320 px.
    {"title": "thumbnail over a folder of photos (the content audit's, PNG and JPEG) at each --jobs",
     "ref": jobs_label(1), "repeats": 3 if QUICK else 5, "ok": (0, 2), "before": f"rm -rf {PHOTO_SHEET}",
     "targets": [("ratio", jobs_label(2), jobs_label(1), round(1 / 1.8, 4))] if NPROC >= 2 else [],
     "commands": {jobs_label(j): f"{{vidorient}} thumbnail {CONTENT} --out-dir {PHOTO_SHEET} --name '{{relpath}}/{{stem}}.jpg'"
                  f" --quiet --jobs {j}"
                  for j in JOBS}},
]


def CHECK(c, stdout, v):
    """How many files each audit reported, thumbnails written, files fixed."""
    if c.label == PAIR:
        return "output to /dev/null"
    lines = sum(1 for l in open(stdout, errors="replace") if l.strip())
    if c.argv[1] == "thumbnail":
        folder, group = (PHOTO_SHEET, GROUPS[6]) if CONTENT in c.argv else (SHEET, GROUPS[2])
        made = sum(len(files) for _, _, files in os.walk(folder))
        return f"{made:,} thumbnails of {group['files']:,} files"
    if c.argv[1] == "fix":
        return f"{lines:,} lines on stdout"
    want = GROUPS[5]["files"] if "--content" in c.argv else GROUPS[4]["files"] if c.argv.count(LIB) == 5 \
        else GROUPS[0]["files"]
    return f"{lines:,} lines" + ("" if lines == want else f" **of {want:,}**")
