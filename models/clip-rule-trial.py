"""How a clip's frames should be combined into one verdict: each rule tried on the same frames.

vidorient judges a clip from its frames at 10%, 30%, 50%, 70% and 90% of its length
(ContentJudge.frameFractions) and combines them (ContentEvidence(frames:)). This script takes those
frames out of each clip with FFmpeg (the display matrix applied, as vidorient shows the clip), has
the vidorient binary judge each frame alone (`audit --content --jsonl`: each frame's scene
probabilities, natural-up probability, faces and text likeness), then combines them by each rule
below and tallies the clips in their four quarter turns (a turn of the clip turns every frame's
evidence alike), as bench/cases/content.py counts them: precision over every opinion (an opinion
on a clip with no natural up is wrong), coverage of the clips that have one.

A frame judged alone is judged as a photo, so its faces are not looked for where its scene is sure
of one turn (ContentPolicy.faceTurns' onlyPicture); the text is what the middle frame read alone.
So `product` here approximates the binary's clip verdict; the script says how often they differ
when given the binary's own verdicts (--clip-verdicts, the JSON lines of `audit --content` of the
upright clips).

    /usr/bin/python3 models/clip-rule-trial.py --list models/videos/choose.tsv --binary BIN/vidorient
"""
import argparse
import hashlib
import importlib.util
import json
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRACTIONS = (0.1, 0.3, 0.5, 0.7, 0.9)  # ContentJudge.frameFractions
_spec = importlib.util.spec_from_file_location("train_upright_head", os.path.join(ROOT, "models", "train-upright-head.py"))
training = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(training)
read_tsv = training.read_tsv


def shipped_policy():
    """The policy vidorient runs: UprightHead.policy as the training script reads it, and the text
    signal's two numbers ContentEngine.policy sets on top."""
    policy = training.shipped_head()[3]
    engine = open(os.path.join(ROOT, "Sources", "VidorientContent", "ContentEngine.swift")).read()
    for key, name in (("text_likeness_floor", "textLikenessFloor"), ("text_confidence", "textConfidence")):
        policy[key] = float(re.search(rf"policy\.{name} = ([0-9.]+)", engine).group(1))
    return policy


def duration_of(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                         capture_output=True, text=True)
    try:
        return float(out.stdout.strip())
    except ValueError:
        return None


def extract(rows, videos, folder):
    """Each clip's frames as PNG, folder/<clip index>/<k>.png, a frame shown twice kept once."""
    for i, row in enumerate(rows):
        clip = os.path.join(videos, row["source"], row["path"])
        out = os.path.join(folder, f"{i:03d}")
        if os.path.isdir(out) and os.listdir(out):
            continue
        os.makedirs(out, exist_ok=True)
        duration = duration_of(clip)
        times = [0.0] if not duration else [f * duration for f in FRACTIONS]
        seen = set()
        for k, t in enumerate(times):
            png = os.path.join(out, f"{k}.png")
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", f"{t:.3f}", "-i", clip, "-frames:v", "1", png],
                           capture_output=True)
            if not os.path.exists(png):
                continue
            digest = hashlib.sha256(subprocess.run(
                ["ffmpeg", "-v", "error", "-i", png, "-f", "rawvideo", "-"], capture_output=True).stdout).hexdigest()
            if digest in seen:
                os.remove(png)
            seen.add(digest)


def judged_frames(binary, folder, model_dir):
    env = dict(os.environ, VIDORIENT_MODEL_DIR=model_dir)
    out = subprocess.run([binary, "audit", "--content", "--jsonl", "--no-progress", folder],
                         capture_output=True, text=True, env=env)
    frames = {}
    for line in out.stdout.splitlines():
        record = json.loads(line)
        clip = os.path.basename(os.path.dirname(record["path"]))
        frames.setdefault(clip, []).append((record["path"], record.get("content")))
    return {clip: [c for _, c in sorted(items)] for clip, items in frames.items()}


def softmax(values):
    top = max(values)
    e = [math.exp(v - top) for v in values]
    s = sum(e)
    return [x / s for x in e]


def combined(frames, rule):
    """(scene probabilities or None, natural up or None, best face per turn, text likeness, middle text)."""
    judged = [f for f in frames if f and f.get("scene_probabilities")]
    logs = [[math.log(max(p, 1e-12)) for p in f["scene_probabilities"]] for f in judged]
    naturals = [f["natural_up"] for f in judged if f.get("natural_up") is not None]
    scene = natural = None
    if logs:
        summed = [sum(l[k] for l in logs) for k in range(4)]
        if rule.get("pool") == "mean":
            summed = [s / len(logs) for s in summed]
        scene = softmax(summed)
        gate = rule.get("gate", "mean")
        natural = (min(naturals) if gate == "min" else sorted(naturals)[len(naturals) // 2] if gate == "median"
                   else sum(naturals) / len(naturals))
        if rule.get("agree") and len(logs) > 1:
            best = max(range(4), key=lambda k: scene[k])
            if sum(1 for l in logs if max(range(4), key=lambda k: l[k]) == best) < math.ceil(rule["agree"] * len(logs)):
                scene = [0.25] * 4  # the frames disagree: the scene has no opinion
    faces = [None] * 4
    for f in frames:
        for k, s in enumerate((f or {}).get("face_scores") or [None] * 4):
            if s is not None:
                faces[k] = s if faces[k] is None else max(faces[k], s)
    likeness = max([f["text_likeness"] for f in frames if f and f.get("text_likeness") is not None], default=None)
    middle = frames[len(frames) // 2] if frames else None
    return scene, natural, faces, likeness, (middle or {}).get("text")


def decide(scene, natural, faces, likeness, text, policy):
    """ContentVerdict's rule: (turn, signal) or (None, None)."""
    has_say = scene is not None and (natural if natural is not None else 1) >= policy["natural_up_floor"]
    best_faces = [max(f if f is not None else policy["face_floor"], policy["face_floor"]) for f in faces]
    if any(f >= policy["face_score"] for f in best_faces):
        fp = softmax([f / policy["face_temperature"] for f in best_faces])
        best = max(range(4), key=lambda k: fp[k])
        allowed = not (has_say and scene[best] < policy["scene_veto"])
        if allowed and likeness is not None and likeness >= policy["text_likeness_floor"]:
            allowed = scene is not None and max(range(4), key=lambda k: scene[k]) == best
        if fp[best] >= policy["threshold"] and allowed:
            return best, "faces"
    if scene is not None and has_say and max(scene) >= policy["threshold"]:
        return max(range(4), key=lambda k: scene[k]), "scene"
    if text and text["confidence"] >= policy["text_confidence"] and (likeness or 0) >= policy["text_likeness_floor"]:
        return (text["turn_needed"] // 90) % 4, "text"
    return None, None


def roll(values, shift):
    """Evidence of the clip turned `shift` quarter turns clockwise: index k is the upright's k + shift."""
    return None if values is None else [values[(k + shift) % 4] for k in range(4)]


def tally(rows, frames, rule, policy, kind=None):
    n = right = with_up = on_up = 0
    wrong = []
    for i, row in enumerate(rows):
        if kind and row.get("kind", "camera") != kind:
            continue
        scene, natural, faces, likeness, text = combined(frames.get(f"{i:03d}", []), rule)
        has_up = row["up"] != "none"
        for shift in range(4):
            turned_text = None if text is None else dict(text, turn_needed=(text["turn_needed"] - shift * 90) % 360)
            turn, signal = decide(roll(scene, shift), natural, roll(faces, shift), likeness, turned_text, policy)
            with_up += has_up
            if turn is None:
                continue
            n += 1
            on_up += has_up
            ok = has_up and turn == (4 - shift) % 4
            right += ok
            if not ok:
                wrong.append(f"{row['source']}/{row['path']} ({signal})")
    return n, right, with_up, on_up, sorted(set(wrong))


RULES = {
    "product (vidorient today)": {},
    "product, gate on the least natural frame": {"gate": "min"},
    "product, the frames' best turns agree": {"agree": 1.0},
    "product, most frames agree": {"agree": 0.6},
    "mean": {"pool": "mean"},
    "mean, gate on the least natural frame": {"pool": "mean", "gate": "min"},
    "mean, gate on the median frame": {"pool": "mean", "gate": "median"},
    "mean, the frames' best turns agree": {"pool": "mean", "agree": 1.0},
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", required=True, help="videos.tsv or choose.tsv of models/videos")
    ap.add_argument("--binary", required=True, help="the vidorient binary (libVidorientContentEngine.so beside it)")
    ap.add_argument("--videos", default=os.path.join(ROOT, ".build-models", "videos"))
    ap.add_argument("--frames", help="where the frames go (default .build-models/clip-frames/<list name>)")
    ap.add_argument("--thresholds", help="comma-separated thresholds to tally at (default: vidorient's own)")
    ap.add_argument("--clip-verdicts", help="JSON lines of `audit --content` over the upright clips, to compare "
                                            "`product` with the binary's own verdicts")
    args = ap.parse_args()
    rows = read_tsv(args.list)
    rows = [r for r in rows if os.path.isfile(os.path.join(args.videos, r["source"], r["path"]))]
    folder = args.frames or os.path.join(ROOT, ".build-models", "clip-frames",
                                         os.path.splitext(os.path.basename(args.list))[0])
    extract(rows, args.videos, folder)
    frames = judged_frames(args.binary, folder, os.path.join(ROOT, ".build-models"))
    kinds = sorted({r.get("kind", "camera") for r in rows})
    counts = ", ".join(f"{sum(1 for r in rows if r.get('kind', 'camera') == k)} {k}" for k in kinds)
    print(f"{len(rows)} clips ({counts}; "
          f"{sum(1 for r in rows if r['up'] == 'none')} with no natural up), "
          f"{sum(len(v) for v in frames.values())} frames")
    shipped = shipped_policy()
    thresholds = args.thresholds.split(",") if args.thresholds else [shipped["threshold"]]
    for threshold in [float(t) for t in thresholds]:
        policy = dict(shipped, threshold=threshold)
        print(f"\nthreshold {threshold}")
        print("| rule | precision | coverage | " + " | ".join(kinds) + " |")
        print("| --- | ---: | ---: |" + " ---: |" * len(kinds))
        for name, rule in RULES.items():
            n, right, with_up, on_up, wrong = tally(rows, frames, rule, policy)
            apart = []
            for kind in kinds:
                kn, kr, kw, ko, _ = tally(rows, frames, rule, policy, kind)
                apart.append(f"{kr}/{kn} at {ko / kw:.0%}" if kw else f"{kr}/{kn}")
            print(f"| {name} | {right / n if n else float('nan'):.2%} ({right} of {n}) | {on_up / with_up:.1%} | "
                  + " | ".join(apart) + " |")
            if wrong:
                print("    wrong: " + "; ".join(wrong))
    if args.clip_verdicts:
        verdicts = {}
        for line in open(args.clip_verdicts):
            record = json.loads(line)
            verdicts[os.path.realpath(record["path"])] = (record.get("content") or {}).get("turn_needed")
        same = differ = 0
        for i, row in enumerate(rows):
            binary = verdicts.get(os.path.realpath(os.path.join(args.videos, row["source"], row["path"])), "absent")
            if binary == "absent":
                continue
            scene, natural, faces, likeness, text = combined(frames.get(f"{i:03d}", []), {})
            turn, _ = decide(scene, natural, faces, likeness, text, shipped)
            mine = None if turn is None else turn * 90
            if mine == binary:
                same += 1
            else:
                differ += 1
                print(f"differs: {row['source']}/{row['path']}: binary {binary}, frames alone {mine}")
        print(f"\nproduct against the binary's clip verdicts: {same} the same, {differ} different")


if __name__ == "__main__":
    sys.exit(main())
