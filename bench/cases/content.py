# The content verdict (issue 19, docs/content.md): how often it is right and what it costs.
#
# Precision and coverage with the vidorient binary itself, on the held-out split of models/photos:
# `test3` (441 photos from 20 sources, gathered after every choice was made; `test` and `test2`, looked at,
# now help choose: see docs/content.md): every photo in its four quarter turns, made by `vidorient fix --rotation +90/180/270` on copies (the tag turns the displayed
# picture; the pixels are the photo's own), judged by one `audit --content --jsonl` over them all.
# test4 too (650 photos and 183 pages of text and screens from 53 sources, gathered for issue 31
# before any of its choices), its photos and its pages apart; and `text-choose`, the pages the text
# signal's numbers were chosen on, for comparison (not a held-out figure).
# The right answer is the turn that undoes the one applied; for a photo with no natural up
# (photos.tsv `up` = none) it is no opinion. The same for the real videos of models/videos: each
# MP4/MOV turned by its matrix (`fix --rotation`), judged from its frames; the held-out clips
# (videos.tsv), then those gathered to choose rules for clips on (choose.tsv), apart.
#
# Then the cost: `audit --content` beside the tag-only audit on a sample of 40 of those photos,
# on one core (`--jobs 1`: the 0.3 s a photo target) and on every core; and each signal alone, on
# one core, through the same engine library (models/content_engine.py, as training measured it).
#
# Needs the sets fetched: python3 models/photos/fetch.py --set all
# Run: /usr/bin/python3 bench/run.py content [--write | --quick]   (Debian's python3-opencv: the signals timed alone)
import csv
import filecmp
import json
import os
import shutil
import subprocess
import sys
import time

NEEDS = ["exiftool"]
OK = (0, 1)
PHOTOS = os.path.join(REPO, ".build-models", "photos")
VIDEOS = os.path.join(REPO, ".build-models", "videos")
SAMPLE = 12 if QUICK else 40
TURNS = (0, 90, 180, 270)


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


HELD_OUT = ("test3", "test4", "text-choose")
SOURCES = {row["id"]: row for row in read_tsv(os.path.join(REPO, "models/photos/sources.tsv"))}


def is_text(row):
    """A page of text or a screen: its source's content says `text:`."""
    return SOURCES[row["source"]]["content"].startswith("text:")


def test_photos(held_out):
    rows = [r for r in read_tsv(os.path.join(REPO, "models/photos/photos.tsv"))
            if SOURCES[r["source"]]["split"] == held_out]
    rows.sort(key=lambda r: r["sha256"])
    return rows[:60] if QUICK else rows


def turned_copies(rows, folder, source_dir, name_of):
    """Each file copied four times, the copies turned 90/180/270 further by `vidorient fix
    --rotation +N`; returns {copy path: row}. What was turned is read back from the audit (a copy
    `fix` refused is judged as it is)."""
    shutil.rmtree(folder, ignore_errors=True)
    made = {}
    for i, row in enumerate(rows):
        original = os.path.join(source_dir, row["source"], row["path"])
        base, ext = os.path.splitext(name_of(row, i))
        for turn in TURNS:
            copy = os.path.join(folder, f"t{turn}", base + ext)
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            shutil.copyfile(original, copy)
            made[copy] = row
    for turn in TURNS[1:]:
        copies = [p for p in made if f"/t{turn}/" in p]
        subprocess.run([_v["vidorient"], "fix", "--rotation", f"+{turn}"] + copies, capture_output=True)
    return made


def judge(folder, made, has_up):
    """One audit --content over the folder; the tally of right, wrong and no-opinion answers. The
    turn applied to a copy is its displayed rotation less its t0 sibling's (a mirror, if any, is
    the same in both), and the right answer is the turn that undoes it."""
    started = time.monotonic()
    out = subprocess.run([_v["vidorient"], "audit", "--content", "--jsonl", "--no-progress", folder],
                         capture_output=True, text=True)
    seconds = time.monotonic() - started
    records = {}
    for line in out.stdout.splitlines():
        record = json.loads(line)
        described = record.get("photo") or record.get("video") or {}
        records[record["path"]] = (described.get("rotation"), record.get("content"))
    tally = tallied(records, made, has_up)
    tally["seconds"] = seconds
    return tally


def tallied(records, made, has_up):
    """The tally of `made`'s copies (a subset may be given) from the audit's records."""
    tally = {"files": 0, "opinions": 0, "right": 0, "with_up": 0, "opinions_with_up": 0, "errors": 0, "not_turned": 0,
             "by_signal": {}, "seconds": None, "outcomes": records}
    for path, row in made.items():
        rotation, content = records.get(path, (None, None))
        base = records.get(path.replace("/t90/", "/t0/").replace("/t180/", "/t0/").replace("/t270/", "/t0/"), (None,))[0]
        if content is None or rotation is None or base is None:
            tally["errors"] += 1
            continue
        tally["files"] += 1
        applied = (rotation - base) % 360
        tally["not_turned"] += applied == 0 and "/t0/" not in path
        up = has_up(row)
        tally["with_up"] += up
        if content["turn_needed"] is None:
            continue
        tally["opinions"] += 1
        tally["opinions_with_up"] += up
        right = up and content["turn_needed"] == (360 - applied) % 360
        tally["right"] += right
        signal = tally["by_signal"].setdefault(content["decided_by"], [0, 0])
        signal[0] += 1
        signal[1] += right
    return tally


def wilson(k, n, z=1.96):
    """The Wilson score interval of k successes in n (95% by default)."""
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    centre, spread = p + z * z / (2 * n), z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return (centre - spread) / (1 + z * z / n), (centre + spread) / (1 + z * z / n)


def describe(name, tally):
    n, right = tally["opinions"], tally["right"]
    precision = right / n if n else float("nan")
    coverage = tally["opinions_with_up"] / tally["with_up"] if tally["with_up"] else float("nan")
    signals = ", ".join(f"{s}: {r:,} right of {c:,}" for s, (c, r) in sorted(tally["by_signal"].items()))
    timing = (f" judged in {tally['seconds']:.0f} s on {NPROC} cores ({tally['files'] / tally['seconds']:.1f} files/s)"
              if tally["seconds"] else "")
    low, high = wilson(right, n)
    return (f"{name}: {tally['files']:,} files{timing}; **precision {precision:.2%}** ({right:,} right of "
            f"{n:,} opinions; Wilson 95% {low:.1%}–{high:.1%}), **coverage {coverage:.1%}** of the "
            f"{tally['with_up']:,} with a natural up ({signals})"
            + (f"; {tally['errors']} could not be judged" if tally["errors"] else "")
            + (f"; {tally['not_turned']} copies `fix` could not turn, judged as they are" if tally["not_turned"] else ""))


def video_lines(listing, label):
    """The clips of one list of models/videos, each MP4/MOV in its four turns: all, then camera
    footage and screen recordings apart (`kind`: where the scene has least to go on)."""
    listed = [r for r in read_tsv(os.path.join(REPO, "models/videos", listing))
              if os.path.splitext(r["path"])[1].lower() in (".mp4", ".mov", ".m4v")]
    present = [r for r in listed if os.path.isfile(os.path.join(VIDEOS, r["source"], r["path"]))]
    if len(present) < len(listed):
        # Say so rather than drop the line or measure a part of the set as if it were all of it.
        return [f"{label}): not measured in this run ({len(present)} of the {len(listed)} MP4/MOV clips "
                "are in .build-models/videos; `python3 models/photos/fetch.py --set all` brings them)"]
    name = os.path.splitext(listing)[0]
    video_dir = os.path.join(WORK, f"content-{name}")
    vmade = turned_copies(listed, video_dir, VIDEOS, lambda row, i: f"{i:03d}{os.path.splitext(row['path'])[1]}")
    # A clip `fix` cannot turn (a fragmented MP4, a Matroska file named .mp4) would count its
    # upright copy four times: it is left out, and said.
    unturned = {path.replace("/t90/", "/t0/") for path in vmade
                if "/t90/" in path and filecmp.cmp(path, path.replace("/t90/", "/t0/"), shallow=False)}
    left_out = sorted({vmade[path]["path"] for path in unturned})
    upright = lambda path: path.replace("/t90/", "/t0/").replace("/t180/", "/t0/").replace("/t270/", "/t0/")
    for path in [path for path in vmade if upright(path) in unturned]:
        os.remove(path)
        del vmade[path]
    videos = judge(video_dir, vmade, lambda row: row["up"] != "none")
    count = len(listed) - len(left_out)
    lines = [describe(f"{label}, {count} MP4/MOV × 4 turns)", videos)
             + (f"; left out, as `fix` cannot turn them: {', '.join(left_out)}" if left_out else "")]
    for kind in ("camera", "screen"):
        some = {path: row for path, row in vmade.items() if row.get("kind", "camera") == kind}
        count = sum(1 for path in some if "/t0/" in path)
        lines.append(describe(f"of which {kind} ({count} clips × 4 turns)",
                              tallied(videos["outcomes"], some, lambda row: row["up"] != "none")))
    return lines


def signal_costs(paths):
    """Each signal alone on one core, ms a photo (4 turns), through the engine library."""
    sys.path.insert(0, os.path.join(REPO, "models"))
    import content_engine
    engine_path = os.path.join(os.path.dirname(_v["vidorient"]), "libVidorientContentEngine.so")
    model = os.path.join(REPO, ".build-models", "scene-efficientnet-lite0-upright.onnx")
    engine = content_engine.Engine(engine_path, model, threads=1)
    side, mirror, face_side, face_upsample = head_setting()
    pictures = [content_engine.displayed_picture(p) for p in paths]
    costs = {}
    for label, run in (("faces", lambda t: engine.faces(t, face_side, face_upsample)),
                       ("scene", lambda t: engine.scene(t, side, mirror))):
        started = time.process_time()
        for picture in pictures:
            for k in range(4):
                run(content_engine.turned(picture, k))
        costs[label] = (time.process_time() - started) * 1000 / len(pictures)
    return costs, (side, mirror, face_side, face_upsample)


def head_setting():
    text = open(os.path.join(REPO, "Sources/VidorientContent/UprightHead.swift")).read()
    side = int(text.split("static let sceneSide = ")[1].split()[0])
    mirror = text.split("static let sceneMirror = ")[1].split()[0] == "true"
    number = lambda name: int(text.split(f"static let {name} = ")[1].split()[0])
    return side, mirror, number("faceSide"), number("faceUpsample")


def SETUP(v):
    global _v
    _v = v
    # The run measures a private copy of the binary: its engine goes beside it, as in a build, and
    # the scene network is named (the copy has no .build-models above it).
    built = os.path.dirname(os.environ.get("VIDORIENT_BIN") or os.path.join(REPO, ".build-release", "release", "x"))
    shutil.copy(os.path.join(built, "libVidorientContentEngine.so"), os.path.dirname(v["vidorient"]))
    os.environ["VIDORIENT_MODEL_DIR"] = os.path.join(REPO, ".build-models")
    if not os.path.isdir(PHOTOS):
        raise SystemExit("bench: error: the photo sets are absent: python3 models/photos/fetch.py --set all")
    up = lambda row: row["up"] != "none"
    lines = []
    for held_out in HELD_OUT:
        rows = test_photos(held_out)
        photo_dir = os.path.join(WORK, f"content-photos-{held_out}")
        made = turned_copies(rows, photo_dir, PHOTOS, lambda row, i: f"{i:04d}{os.path.splitext(row['path'])[1]}")
        photos = judge(photo_dir, made, up)
        pages = sum(1 for row in rows if is_text(row))
        if pages == 0:
            lines.append(describe(f"Photos ({held_out} split, {len(rows)} photos × 4 turns)", photos))
        elif pages == len(rows):
            lines.append(describe(f"Pages of text and screens ({held_out} split, where the text signal's numbers "
                                  f"were chosen: not held out; {len(rows)} pictures × 4 turns)", photos))
        else:
            lines.append(describe(f"Photos ({held_out} split, {len(rows) - pages} photos × 4 turns)",
                                  tallied(photos["outcomes"], {p: r for p, r in made.items() if not is_text(r)}, up)))
            lines.append(describe(f"Pages of text and screens ({held_out} split, {pages} pictures × 4 turns)",
                                  tallied(photos["outcomes"], {p: r for p, r in made.items() if is_text(r)}, up)))
        if held_out == HELD_OUT[0]:
            sampled = made  # the cost sample: its first 40 photos

    # The held-out clips, then the clips gathered to choose a rule for clips by (models/videos/README.md).
    for listing, label in (("videos.tsv", "Videos (models/videos, held out"),
                           ("choose.tsv", "Videos to choose clip rules on (models/videos/choose.tsv")):
        lines += video_lines(listing, label)

    sample = os.path.join(WORK, "content-sample")
    shutil.rmtree(sample, ignore_errors=True)
    os.makedirs(sample)
    chosen = sorted(p for p in sampled if "/t0/" in p)[:SAMPLE]
    for i, p in enumerate(chosen):
        shutil.copyfile(p, os.path.join(sample, f"{i:03d}{os.path.splitext(p)[1]}"))
    costs, (side, mirror, face_side, face_upsample) = signal_costs(chosen)
    lines.append(f"Each signal alone on one core, on the {len(chosen)} sample photos (4 turns each, through the engine "
                 f"library): faces ({face_side} px, upsampled {face_upsample}×) {costs['faces']:.0f} ms a photo, scene "
                 f"({side} px{', with its mirror image' if mirror else ''}) {costs['scene']:.0f} ms a photo.")
    GROUPS[0]["about"] = "\n\n".join(lines)
    GROUPS[0]["files"] = len(chosen)
    return {"sample": sample}


_v = None

GROUPS = [{
    "title": "audit --content beside the tag-only audit", "repeats": 3, "warmup": 1,
    "targets": [("rate", "vidorient audit --content --jobs 1", 1 / 0.3)],
    "commands": {
        "vidorient audit --content --jobs 1": "{vidorient} audit --content --jsonl --no-progress --jobs 1 {sample}",
        "vidorient audit --content": "{vidorient} audit --content --jsonl --no-progress {sample}",
        "vidorient audit --jobs 1": "{vidorient} audit --jsonl --no-progress --jobs 1 {sample}",
    }}]
