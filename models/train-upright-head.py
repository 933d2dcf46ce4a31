#!/usr/bin/env python3
"""Trains vidorient's upright head and chooses the content verdict's numbers (docs/content.md).

The head is a logistic regression on EfficientNet-Lite0's 1,280 pooled features, trained by
self-supervision: every upright photo of the training split is shown in its four quarter turns,
and the head learns to give the upright one the highest score (a softmax over the four, as
vidorient decides; each turn's mirror image is a second example of the same turn). Features and
faces come from the content engine itself (models/content_engine.py), on the pictures vidorient
judges (the displayed photo fitted in 448 px).

A second logistic regression, the natural-up gate, on the same features averaged over the four
turns (so blind to the turn), tells a photo with an up from one without (a texture, the sky, a
top-down shot): below its floor the scene has no say.

Splits are by source (models/photos/sources.tsv): the head's regularisation, the softmax
temperatures, the face rule, the gate's floor and the default threshold are chosen out of fold on
the choosing splits (`validation`, `test`, `test2`: each judged by a head and a gate fitted on
`train` and the other two); the head and the gate shipped are fitted on `train` and all three; the
held-out split (`test3`) is only measured, at the end. The metadata test corpora the project's
tests use are in no split.

Steps (each reuses what the one before cached under .build-models/):
  extract   features and faces of every photo in every split, 4 turns × (picture, mirror image)
  train     the head, then the policy; writes Sources/VidorientContent/UprightHead.swift and
            models/upright-head.md (what was chosen and measured)
  measure   the head shipped (read back from UprightHead.swift) on the splits named (test3 by
            default): precision with its Wilson interval, coverage, the forced answer's accuracy,
            photos and pages of text apart (and by source with --by-source); chooses nothing

usage: train-upright-head.py extract|train|measure [SPLIT...] [--by-source] [--photos DIR] [--engine LIB] [--model ONNX] [--jobs N]
                              [--train-per-source N] [--kept-setting-only] [--without-held-out]
"""
import argparse
import csv
import datetime
import hashlib
import itertools
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import content_engine  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".build-models")
HEAD_SWIFT = os.path.join(ROOT, "Sources", "VidorientContent", "UprightHead.swift")
REPORT = os.path.join(ROOT, "models", "upright-head.md")
TARGET_PRECISION = 0.99


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def photo_list(photos_dir, train_per_source=None):
    """(split, source, path, has_up, longest side) of every listed photo. A photo with no natural
    up (`up` is `none`: a texture, a sky, an abstract pattern) is trained towards the same score for
    every turn (the training split's are textures, `dtd-textures`), and teaches the natural-up gate;
    in the other splits the right answer for it is no opinion. With `train_per_source`, a training source gives at
    most that many photos: those of smallest SHA-256 (a sample fixed by the list, not by chance)."""
    sources = {row["id"]: row for row in read_tsv(os.path.join(ROOT, "models", "photos", "sources.tsv"))}
    rows = read_tsv(os.path.join(ROOT, "models", "photos", "photos.tsv"))
    if train_per_source:
        kept = set()
        for source in sources:
            listed = sorted((r["sha256"] for r in rows if r["source"] == source))
            kept |= set(listed if sources[source]["split"] != "train" else listed[:train_per_source])
        rows = [r for r in rows if r["sha256"] in kept]
    photos = []
    for row in rows:
        source = sources[row["source"]]
        width, height = (int(v) for v in row["size"].split("x"))
        photos.append((source["split"], row["source"], os.path.join(photos_dir, row["source"], row["path"]),
                       row["up"] != "none", max(width, height)))
    return photos


# --- extract -------------------------------------------------------------------------------------
# Measured for every photo, so that the cheaper settings can be compared with the trained-at one.
# The scene network at each side, with the mirror image (True) or without; 224 with its mirror
# costs more than the budget (below) whatever the faces, so its mirror is not measured. 128 px is
# not measured, to keep extraction under an hour on two cores: with its mirror and the 320 px
# faces it is over the budget too.
SCENE_SIDES = {224: False, 160: True}
FACE_SETTINGS = ((320, 1), (240, 1))  # longest side, upsampling
# The setting shipped (and the only one `--kept-setting-only` extracts and fits): the scene at 160 px
# with its mirror image, the faces at 240 px upsampled once.
KEPT_SCENE, KEPT_FACES = (160, True), (240, 1)
KEPT_SETTING = (f"scene{KEPT_SCENE[0]}", KEPT_SCENE[1], f"faces{KEPT_FACES[0]}x{KEPT_FACES[1]}")


def extract_source(job):
    (split, source), photos, args = job
    out = os.path.join(CACHE, "features", f"{source}.npz")
    if os.path.exists(out):
        return
    engine = content_engine.Engine(args.engine, args.model, threads=1)
    n = len(photos)
    # With --kept-setting-only, only what the kept setting reads (about half the time).
    scene_sides = dict([KEPT_SCENE]) if args.kept_setting_only else SCENE_SIDES
    face_settings = (KEPT_FACES,) if args.kept_setting_only else FACE_SETTINGS
    arrays = {f"scene{side}": np.zeros((n, 4, 2 if mirror else 1, content_engine.FEATURES), dtype=np.float16)
              for side, mirror in scene_sides.items()}
    # Up to 8 face scores a turn, best first; NaN where fewer.
    arrays |= {f"faces{side}x{up}": np.full((n, 4, 8), np.nan, dtype=np.float32) for side, up in face_settings}
    kept = np.zeros(n, dtype=bool)
    for i, (path, _, longest) in enumerate(photos):
        picture = content_engine.judged_picture(path, longest)
        if picture is None:
            continue
        for k in range(4):
            turned = content_engine.turned(picture, k)
            for side, mirror in scene_sides.items():
                arrays[f"scene{side}"][i, k] = engine.scene(turned, side, mirror)
            for side, up in face_settings:
                scores = engine.faces(turned, side, up)[:8]
                arrays[f"faces{side}x{up}"][i, k, :len(scores)] = scores
        kept[i] = True
        if i % 100 == 0:
            print(f"extract: {source} {i}/{n}", file=sys.stderr, flush=True)
    paths = np.array([p for p, _, _ in photos])
    has_up = np.array([u for _, u, _ in photos])
    np.savez_compressed(out + ".part.npz", **{name: a[kept] for name, a in arrays.items()}, paths=paths[kept],
                        up=has_up[kept], split=split)
    os.replace(out + ".part.npz", out)
    print(f"extract: {source}: {kept.sum()} photos ({split})", file=sys.stderr, flush=True)


def extract(args):
    """Each source in its own process (one engine, one thread each), as many at once as --jobs."""
    import multiprocessing
    by_source = {}
    for split, source, path, has_up, longest in photo_list(args.photos, args.train_per_source):
        by_source.setdefault((split, source), []).append((path, has_up, longest))
    os.makedirs(os.path.join(CACHE, "features"), exist_ok=True)
    # The held-out splits first, then the largest sources first (the pool stays busy to the end).
    jobs = sorted(((key, photos, args) for key, photos in by_source.items()),
                  key=lambda job: (job[0][0] == "train", -len(job[1])))
    with multiprocessing.Pool(args.jobs) as pool:
        for _ in pool.imap_unordered(extract_source, jobs):
            pass


# Where the features are read from: `extract`'s (the network shipped, through the engine) unless
# --features names another folder (tune-scene-top.py's, computed from the cached maps); --folds, a
# folder of one such folder for each choosing split, whose tuned top never saw that split.
FEATURES = os.path.join(CACHE, "features")
FOLDS = None


def load(split, scene="scene224", faces="faces320x1", mirror=True, required=True, folder=None):
    """Features (photos × 4 turns × passes × 1280), face scores (photos × 4 × 8) and whether each
    photo has a natural up, of one split or a tuple of them; None for a split not extracted, when
    not `required`."""
    splits = (split,) if isinstance(split, str) else tuple(split)
    features, face_scores, has_up = [], [], []
    folder = folder or FEATURES
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".npz") or name.endswith(".part.npz"):
            continue
        data = np.load(os.path.join(folder, name))
        if str(data["split"]) not in splits:
            continue
        if scene not in data or faces not in data:
            sys.exit(f"train: {name} has no {scene} or {faces} (extracted with --kept-setting-only: train with it "
                     "too, or extract again without it to compare every setting)")
        x = data[scene].astype(np.float32)
        features.append(x if mirror else x[:, :, :1])
        face_scores.append(data[faces])
        has_up.append(data["up"])
    if not features:
        if not required:
            return None
        sys.exit(f"train: no extracted photos in the {split} split (run extract)")
    return np.concatenate(features), np.concatenate(face_scores), np.concatenate(has_up)


# --- the head: a softmax over the four turns of each photo ---------------------------------------
def fit_head(x, l2, has_up, iterations=400):
    """x: photos × 4 turns × 2 (picture, mirror) × features. Maximises the log-probability of
    turn 0 under softmax_k(w·x_k), for pictures and mirror images alike, with an L2 penalty; a
    photo with no natural up (`has_up` false: a texture) is taught the uniform answer, a quarter
    on each turn, so that the head learns to have no opinion on what has no up."""
    mean = x.reshape(-1, x.shape[-1]).mean(0)
    scale = x.reshape(-1, x.shape[-1]).std(0) + 1e-6
    z = ((x - mean) / scale).transpose(0, 2, 1, 3).reshape(-1, 4, x.shape[-1])  # sets × 4 × d
    target = np.where(np.repeat(has_up, x.shape[2])[:, None], np.eye(4)[0], np.full(4, 0.25))
    w = np.zeros(z.shape[-1])
    # One row a turn: matrix products, which BLAS runs on every core. In float64 once, here: numpy
    # would otherwise convert the float32 features to float64 in every product (the same numbers,
    # ten times slower).
    flat = z.reshape(-1, z.shape[-1]).astype(np.float64)
    # Adam on the mean cross-entropy: convex, so the start does not matter.
    m, v, rate = np.zeros_like(w), np.zeros_like(w), 0.05
    for step in range(1, iterations + 1):
        s = (flat @ w).reshape(-1, 4)
        s -= s.max(1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(1, keepdims=True)
        grad = (p - target).reshape(-1) @ flat / len(z) + 2 * l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    # Back to raw features: w·(x − mean)/scale = (w/scale)·x − w·mean/scale.
    return w / scale, -float(np.dot(w / scale, mean))


# The mirror image is shown only when the picture alone leaves the scene in doubt: its best turn's
# probability (softmax of the four scores) in [low, high). Chosen on the choosing splits out of fold
# with the head shipped before it (2026-11-28): the verdicts the same as with every mirror, 47% of
# the photos shown their mirror images. Written into UprightHead.swift (`mirrorDoubt`).
MIRROR_DOUBT = (0.5, 0.97)


def in_doubt(plain):
    """Per photo: whether the four turns' scores of the picture alone (photos × 4) leave it in doubt."""
    best = softmax(plain).max(1)
    return (best >= MIRROR_DOUBT[0]) & (best < MIRROR_DOUBT[1])


def scene_logits(x, weights, bias):
    """Each turn's score as ContentEngine.evidence gives it: the picture's, averaged with its mirror
    image's when the picture alone leaves the scene in doubt."""
    per = x @ weights + bias
    if per.shape[2] == 1:
        return per[:, :, 0]
    return np.where(in_doubt(per[:, :, 0])[:, None], per.mean(2), per[:, :, 0])


def softmax(s, temperature=1.0):
    s = s / temperature
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    return p / p.sum(-1, keepdims=True)


def log_loss(logits, has_up, temperature=1.0):
    """Cross-entropy against the truth: turn 0 for a photo with a natural up, a quarter on each
    turn for one without."""
    log_p = np.log(softmax(logits, temperature) + 1e-12)
    return float(-np.where(has_up, log_p[:, 0], log_p.mean(1)).mean())


# --- the natural-up gate: has this picture an up at all? ----------------------------------------
# A texture, a sky, a top-down shot has none, yet the head may still prefer one turn of it. The gate
# is a logistic regression on the features averaged over the four turns and their mirror images (so
# that it cannot depend on the turn), fitted on photos with an up against those without (the
# training split's textures, `dtd-textures`, and the choosing splits' skies, plates from above,
# space), each class weighing half.
NATURAL_UP_LOSS = 0.05  # the share of photos with an up that the gate may silence (choosing splits, out of fold)


def turn_invariant(x):
    """photos × 4 × passes × features → photos × features."""
    return x.mean((1, 2))


def fit_gate(x, has_up, l2, iterations=500):
    z_raw = turn_invariant(x)
    mean, scale = z_raw.mean(0), z_raw.std(0) + 1e-6
    z = (z_raw - mean) / scale
    y = has_up.astype(float)
    weight = np.where(has_up, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    w, b = np.zeros(z.shape[1]), 0.0
    m, v, mb, vb, rate = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0, 0.05
    for step in range(1, iterations + 1):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        g = (p - y) * weight
        gw, gb = z.T @ g / len(z) + 2 * l2 * w, float(g.mean())
        m, v = 0.9 * m + 0.1 * gw, 0.999 * v + 0.001 * gw * gw
        mb, vb = 0.9 * mb + 0.1 * gb, 0.999 * vb + 0.001 * gb * gb
        w -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
        b -= rate * (mb / (1 - 0.9 ** step)) / (np.sqrt(vb / (1 - 0.999 ** step)) + 1e-8)
    return w / scale, b - float(np.dot(w / scale, mean))


def natural_up(x, weights, bias, head=None):
    """The gate's probability; given the head, from the features as ContentEngine.evidence averages
    them (the mirror images' only for a photo in doubt)."""
    features = turn_invariant(x)
    if head is not None and x.shape[2] > 1:
        features = np.where(in_doubt(x[:, :, 0] @ head[0] + head[1])[:, None], features, x[:, :, 0].mean(1))
    return 1 / (1 + np.exp(-(features @ weights + bias)))


# --- the rule, as ContentVerdict decides it --------------------------------------------------------
def as_turned(values, shift):
    """Evidence of photos turned `shift` quarter turns clockwise before judging: the displayed
    picture is then the upright one turned by `shift`, so evidence index k of the turned photo is
    index (k + shift) mod 4 of the upright one, and the right answer is turn (4 − shift) mod 4."""
    return np.roll(values, -shift, axis=1)


def decide(logits, faces, natural, policy):
    """Per photo: (turn or −1 for no opinion, signal 'faces'/'scene'/None, confidence). `natural`
    is each photo's natural-up probability: below the policy's floor, the scene has no say."""
    scene_p = softmax(logits, policy["scene_temperature"])
    gated = natural >= policy["natural_up_floor"]
    # Faces are looked for only in the turns the scene, where it has a say, gives at least
    # `scene_veto` (ContentPolicy.faceTurns): a face in a turn it rules out could not decide. And a
    # photo (its own whole evidence: `onlyPicture`) whose scene leaves one turn open at the threshold
    # or above is not searched at all: a face could only confirm that turn.
    if policy["scene_veto"] > 0:
        searched = ~gated[:, None] | (scene_p >= policy["scene_veto"])
        sure = gated & (searched.sum(1) == 1) & (scene_p.max(1) >= policy["threshold"])
        faces = np.where((searched & ~sure[:, None])[:, :, None], faces, np.nan)
    best_face = np.nan_to_num(np.nanmax(np.where(np.isnan(faces), -np.inf, faces), axis=2), nan=-np.inf)
    best_face = np.maximum(best_face, policy["face_floor"])
    has_face = (best_face >= policy["face_score"]).any(1)
    face_p = softmax(best_face, policy["face_temperature"])
    turn = np.full(len(logits), -1)
    signal = np.array([None] * len(logits))
    confidence = np.zeros(len(logits))
    # Faces whose turn a scene with an up gives less than `scene_veto` do not decide (dlib finds faces
    # in a sunset's clouds; the scene then still may).
    face_turn = face_p.argmax(1)
    vetoed = gated & (scene_p[np.arange(len(logits)), face_turn] < policy["scene_veto"])
    by_faces = has_face & (face_p.max(1) >= policy["threshold"]) & ~vetoed
    by_scene = ~by_faces & (scene_p.max(1) >= policy["threshold"]) & gated
    turn[by_faces], signal[by_faces], confidence[by_faces] = face_p[by_faces].argmax(1), "faces", face_p[by_faces].max(1)
    turn[by_scene], signal[by_scene], confidence[by_scene] = scene_p[by_scene].argmax(1), "scene", scene_p[by_scene].max(1)
    return turn, signal, confidence


def measure(logits, faces, natural, has_up, policy):
    """Precision and coverage over every photo in each of its four turns. Precision counts every
    opinion, and an opinion on a photo with no natural up is wrong; coverage is the share of the
    photos that have one which get an opinion."""
    rows = {"faces": [0, 0, 0], "scene": [0, 0, 0], "combined": [0, 0, 0]}
    total = 0
    for shift in range(4):
        turn, signal, _ = decide(as_turned(logits, shift), as_turned(faces, shift), natural, policy)
        truth = (4 - shift) % 4
        total += int(has_up.sum())
        for name, chosen in (("faces", signal == "faces"), ("scene", signal == "scene"), ("combined", turn >= 0)):
            rows[name][0] += int(chosen.sum())
            rows[name][1] += int(((turn == truth) & chosen & has_up).sum())
            rows[name][2] += int((chosen & has_up).sum())
    return {name: {"opinions": n, "right": right, "precision": right / n if n else float("nan"),
                   "coverage": on_up / total} for name, (n, right, on_up) in rows.items()} | {"total": total}


def signal_only(policy, which):
    """The policy with one signal switched off, to measure each alone."""
    p = dict(policy)
    if which == "faces":
        p["scene_temperature"] = 1e9  # a flat scene never passes the threshold
    else:
        p["face_score"] = math.inf
    return p


def choose_policy(logits, faces, natural, has_up):
    """The face rule, the temperatures and the threshold, on the choosing splits' out-of-fold
    evidence: the smallest threshold whose precision is at least TARGET_PRECISION with a margin (its
    lower 95% bound). The natural-up floor is fixed first, by a rule rather than by precision (too
    few photos without an up to choose it on): the least natural-up probability of all but the
    lowest NATURAL_UP_LOSS of the choosing photos that have an up."""
    policy = {"face_score": 0.3, "face_floor": content_engine.FACE_FLOOR, "face_temperature": 0.25,
              "scene_temperature": 1.0, "threshold": 0.9, "scene_veto": 0.0,
              "natural_up_floor": float(np.quantile(natural[has_up], NATURAL_UP_LOSS))}
    temperatures = [0.5, 0.75, 1.0, 1.25, 1.5, 2.0]
    policy["scene_temperature"] = min(temperatures, key=lambda t: log_loss(logits, has_up, t))
    best = None
    for face_temperature, face_score, scene_veto in itertools.product([0.1, 0.15, 0.25, 0.4], [0.2, 0.3, 0.4, 0.5],
                                                                       [0.0, 0.05, 0.2]):
        for threshold in np.arange(0.50, 0.996, 0.005):
            p = dict(policy, face_temperature=face_temperature, face_score=face_score, scene_veto=scene_veto,
                     threshold=float(threshold))
            m = measure(logits, faces, natural, has_up, p)["combined"]
            if m["opinions"] == 0 or wilson_lower(m["right"], m["opinions"]) < TARGET_PRECISION:
                continue
            if best is None or m["coverage"] > best[0]:
                best = (m["coverage"], p)
            break  # the smallest threshold that passes gives the most coverage for these face numbers
    return best[1] if best else None


def wilson_lower(right, n, z=1.96):
    if n == 0:
        return 0.0
    p = right / n
    return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)


# --- train -------------------------------------------------------------------------------------------
# What each setting costs a photo (4 turns) on one core of the development machine, in ms, from
# the engine's own timings (models/README.md): the scene per pass, the faces per turn.
SCENE_PASS_MS = {224: 40, 160: 22}
FACES_TURN_MS = {"faces320x1": 36, "faces240x1": 20}
# What is left of the 0.3 s a photo for the network and the faces, after decoding and the rest.
BUDGET_MS = 260


def settings():
    for side, measured_mirror in SCENE_SIDES.items():
        for mirror in (True, False) if measured_mirror else (False,):
            for faces in FACES_TURN_MS:
                cost = 4 * (SCENE_PASS_MS[side] * (2 if mirror else 1) + FACES_TURN_MS[faces])
                yield {"scene": f"scene{side}", "side": side, "mirror": mirror, "faces": faces, "cost_ms": cost}


GATE_L2 = 0.1  # the gate's penalty: fixed, as the choosing splits have too few photos without an up to choose it
# The splits by role (models/photos/README.md). `test` and `test2` were each measured once and then
# looked at; since 2026-11-27 they help choose, beside `validation`, by cross-fitting (below), and
# `test3`, gathered after that, is the held-out split: measured once, at the end.
CHOOSING = ("validation", "test", "test2")
HELD_OUT = ("test3",)


def cross_fitted(setting):
    """The head's L2, the natural-up floor and the policy, chosen on out-of-fold evidence: each
    choosing split is judged by a head and a gate fitted on the training split and the other
    choosing splits, so every number is chosen on photos the head judging them never saw, from
    1,300 photos of 18 sources instead of one split's 470. The head and the gate shipped are then
    fitted on all of them (training and choosing splits) with those numbers."""
    def loaded(split, folder=None):
        return load(split, setting["scene"], setting["faces"], setting["mirror"], folder=folder)

    x_train, _, up_train = loaded("train")
    parts = {split: loaded(split) for split in CHOOSING}
    folds, judged = [], {}
    for held in CHOOSING:
        # With --folds, each fold's features are those of the top tuned without the held split.
        fold = {split: loaded(split, os.path.join(FOLDS, held)) for split in ("train",) + CHOOSING} if FOLDS else None
        rest = [(fold or parts)[split] for split in CHOOSING if split != held]
        folds.append((held, np.concatenate([fold["train"][0] if fold else x_train] + [p[0] for p in rest]),
                      np.concatenate([up_train] + [p[2] for p in rest])))
        judged[held] = fold[held] if fold else parts[held]
    up_out = np.concatenate([judged[held][2] for held, _, _ in folds])
    faces_out = np.concatenate([judged[held][1] for held, _, _ in folds])
    best = None
    for l2 in [1e-2, 3e-2, 1e-1]:
        heads = [fit_head(x, l2, up) for _, x, up in folds]
        logits_out = np.concatenate([scene_logits(judged[held][0], *head) for (held, _, _), head in zip(folds, heads)])
        loss = log_loss(logits_out, up_out)
        print(f"train: {setting['scene']} l2 {l2:g}: out-of-fold log-loss {loss:.4f}", file=sys.stderr, flush=True)
        if best is None or loss < best[0]:
            best = (loss, l2, logits_out, heads)
    loss, l2, logits_out, heads = best
    natural_out = np.concatenate([natural_up(judged[held][0], *fit_gate(x, up, GATE_L2), head=head)
                                  for (held, x, up), head in zip(folds, heads)])
    policy = choose_policy(logits_out, faces_out, natural_out, up_out)
    by_split = {}
    start = 0
    for held, _, _ in folds:
        n = len(judged[held][2])
        by_split[held] = (slice(start, start + n), int((~judged[held][2]).sum()))
        start += n
    # The shipped head and gate: every photo of the training and choosing splits.
    x_all = np.concatenate([x_train] + [parts[split][0] for split in CHOOSING])
    up_all = np.concatenate([up_train] + [parts[split][2] for split in CHOOSING])
    weights, bias = fit_head(x_all, l2, up_all)
    gate = fit_gate(x_all, up_all, GATE_L2)
    return {"l2": l2, "loss": loss, "weights": weights, "bias": bias, "gate": gate, "policy": policy,
            "train": len(x_all), "train_none": int((~up_all).sum()),
            "train_split": (len(x_train), int((~up_train).sum())),
            "out_of_fold": (logits_out, faces_out, natural_out, up_out, by_split),
            "validation": measure(logits_out, faces_out, natural_out, up_out, policy) if policy else None}


def train(args):
    trials = []
    for setting in settings():
        if args.kept_setting_only and (setting["scene"], setting["mirror"], setting["faces"]) != KEPT_SETTING:
            continue
        fitted = cross_fitted(setting)
        trials.append((setting, fitted))
        v = fitted["validation"]
        print(f"train: {setting['scene']} mirror={setting['mirror']} {setting['faces']} ({setting['cost_ms']} ms): "
              f"l2 {fitted['l2']:g}, log-loss {fitted['loss']:.4f}, "
              + (f"coverage {v['combined']['coverage']:.1%} at precision {v['combined']['precision']:.2%}" if v else
                 "no threshold reaches the target"), file=sys.stderr)
    affordable = [t for t in trials if t[0]["cost_ms"] <= BUDGET_MS and t[1]["validation"]]
    if not affordable:
        sys.exit("train: no setting within the budget reaches the target precision on the choosing splits")
    setting, fitted = max(affordable, key=lambda t: t[1]["validation"]["combined"]["coverage"])
    policy, weights, bias, gate = fitted["policy"], fitted["weights"], fitted["bias"], fitted["gate"]
    results, sizes = {}, {}

    def measured(logits, faces, natural, up):
        rows = {name: measure(logits, faces, natural, up, signal_only(policy, name) if name != "combined" else policy)
                for name in ("faces", "scene", "combined")}
        rows["curve"] = {t: measure(logits, faces, natural, up, dict(policy, threshold=t))["combined"] for t in CURVE}
        rows["ungated"] = measure(logits, faces, natural, up, dict(policy, natural_up_floor=0.0))["combined"]
        rows["unvetoed"] = measure(logits, faces, natural, up, dict(policy, scene_veto=0.0))["combined"]
        return rows

    # Out of fold: each choosing split as the head that never saw it judged it, then all of them.
    logits, faces, natural, up, by_split = fitted["out_of_fold"]
    sizes["train"] = fitted["train_split"]
    for split, (part, none) in by_split.items():
        sizes[split] = (part.stop - part.start, none)
        results[f"{split} (out of fold)"] = measured(logits[part], faces[part], natural[part], up[part])
    results["choosing splits (out of fold)"] = measured(logits, faces, natural, up)
    for split in HELD_OUT if not args.without_held_out else ():
        loaded = load(split, setting["scene"], setting["faces"], setting["mirror"], required=False)
        if loaded is None:
            continue
        x, faces, up = loaded
        sizes[split] = (len(x), int((~up).sum()))
        results[split] = measured(scene_logits(x, weights, bias), faces, natural_up(x, *gate, head=(weights, bias)), up)
    write_head(weights, bias, gate, fitted["l2"], fitted["train"], setting, policy)
    write_report(setting, fitted, results, trials, sizes, args.kept_setting_only)
    print(open(REPORT).read())


def swift_floats(values):
    return ",\n".join("        " + ", ".join(f"{v:.7g}" for v in values[i:i + 8]) for i in range(0, len(values), 8))


def write_head(weights, bias, gate, l2, count, setting, policy):
    gate_weights, gate_bias = gate
    text_weights = (",".join(f"{v:.7g}" for v in weights) + f";{bias:.7g};{setting['side']}{setting['mirror']}"
                    + f";{setting['faces']};" + ",".join(f"{k}={policy[k]:g}" for k in sorted(policy))
                    + ";" + ",".join(f"{v:.7g}" for v in gate_weights) + f";{gate_bias:.7g}")
    fingerprint = hashlib.sha256(text_weights.encode()).hexdigest()[:12]
    mirror = "and its mirror image " if setting["mirror"] else ""
    face_side, face_upsample = (int(v) for v in setting["faces"][5:].split("x"))
    swift = f"""// Written by models/train-upright-head.py: do not edit. The upright head: a logistic regression
// on EfficientNet-Lite0's {len(weights)} pooled features of the picture's centred square at
// {setting['side']} px, fitted on {count} photos of the training and choosing splits (L2 {l2:g}), each in its four
// quarter turns {mirror}for a softmax over the four turns to name the upright one, the turns of a
// picture without an up taught to score alike; and the natural-up gate, a logistic regression on the same features
// averaged over the turns, that tells a picture with an up from one without (models/upright-head.md,
// docs/content.md). The settings and the policy below were chosen out of fold, on the choosing splits.

import VidorientCore

enum UprightHead {{
    /// Identifies these weights and numbers (a cached verdict made with others is stale).
    static let fingerprint = "{fingerprint}"
    /// The scene setting the head was fitted for.
    static let sceneSide = {setting['side']}
    static let sceneMirror = {'true' if setting['mirror'] else 'false'}
    /// The mirror image is shown only when the picture alone gives its best turn a probability
    /// (a softmax of the four scores) in this range: above it the mirror changed no verdict, below
    /// it lifted none to the threshold, on the choosing splits out of fold.
    static let mirrorDoubt = {MIRROR_DOUBT[0]:g}..<{MIRROR_DOUBT[1]:g}
    /// The face detector's setting the policy was chosen with: the longest side, the upsampling.
    static let faceSide = {face_side}
    static let faceUpsample = {face_upsample}
    /// The verdict's numbers; `threshold` is the default `--content-threshold`.
    static let policy = ContentPolicy(
        threshold: {policy['threshold']:.3f}, faceScore: {policy['face_score']:g}, faceFloor: {policy['face_floor']:g},
        faceTemperature: {policy['face_temperature']:g}, sceneTemperature: {policy['scene_temperature']:g},
        naturalUpFloor: {policy['natural_up_floor']:.4f}, sceneVeto: {policy['scene_veto']:g})

    /// Whether the four turns' scores of the picture alone leave the scene in doubt (`mirrorDoubt`).
    static func inDoubt(_ logits: [Double]) -> Bool {{
        guard let top = logits.max() else {{ return false }}
        return mirrorDoubt.contains(1 / logits.reduce(0) {{ $0 + exp($1 - top) }})
    }}

    /// The score of a picture's features: only differences between the turns of one picture matter.
    static func logit(_ features: ArraySlice<Float>) -> Double {{
        precondition(features.count == weights.count, "the scene network gives \\(weights.count) features")
        return dot(weights, features, bias)
    }}

    /// The probability that a picture has a natural up at all, from its features averaged over
    /// its four turns and their mirror images.
    static func naturalUp(_ meanFeatures: [Float]) -> Double {{
        precondition(meanFeatures.count == gateWeights.count, "the scene network gives \\(gateWeights.count) features")
        return 1 / (1 + exp(-dot(gateWeights, meanFeatures[...], gateBias)))
    }}

    private static func dot(_ weights: [Float], _ features: ArraySlice<Float>, _ bias: Float) -> Double {{
        var sum = Double(bias)
        for (weight, feature) in zip(weights, features) {{ sum += Double(weight) * Double(feature) }}
        return sum
    }}

    static let bias: Float = {bias:.7g}

    static let weights: [Float] = [
{swift_floats(weights)},
    ]

    static let gateBias: Float = {gate_bias:.7g}

    static let gateWeights: [Float] = [
{swift_floats(gate_weights)},
    ]
}}
"""
    with open(HEAD_SWIFT, "w") as f:
        f.write(swift)


CURVE = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.98, 0.99)


def write_report(setting, fitted, results, trials, sizes, kept_only):
    policy = fitted["policy"]
    sized = ", ".join(f"{n} {split} ({none} without an up)" for split, (n, none) in sizes.items())
    lines = [
        "# The upright head: what was chosen and measured",
        "",
        f"Written by `models/train-upright-head.py train` on {datetime.date.today().isoformat()}. Photos: "
        f"{sized} (split by source, models/photos/sources.tsv). The choosing splits ({', '.join(CHOOSING)}) are "
        "judged out of fold: each by a head and a gate fitted on the training split and the other two; every "
        "number below is chosen on that evidence, and the head shipped is fitted on all "
        f"{fitted['train']} photos of the training and choosing splits ({fitted['train_none']} without an up). "
        f"The held-out split ({', '.join(HELD_OUT)}) is measured once, with the head shipped. Each photo is judged "
        "in its four quarter turns, so every count below is photos × 4.",
        "",
    ]
    if FOLDS:
        lines += ["The features are the network's with its top tuned for the task (models/tune-scene-top.py): each "
                  "choosing split is judged from the features of a top tuned without it (`--folds`), and the head "
                  "shipped is fitted on, and the held-out split measured from, those of the top shipped "
                  "(models/scene-top.npz; `--features`).", ""]
    lines += [
        "## Settings tried, on the choosing splits (out of fold)",
        "",
    ]
    if kept_only:
        lines += ["Only the setting kept before was fitted (`--kept-setting-only`); the comparison of settings is in "
                  "this file's history (`git log -p models/upright-head.md`).", ""]
    else:
        lines += [f"The scene network at 224 px (alone: with its mirror image it is over the budget whatever the "
                  f"faces) and at 160 px with and without its mirror image, and the face detector at two sizes. The "
                  f"setting kept is the one of most coverage among those whose network and faces cost at most "
                  f"{BUDGET_MS} ms a photo on one core (the 0.3 s target less decoding).", ""]
    lines += ["| scene | mirror | faces | cost (ms) | L2 | log-loss | threshold | coverage | precision |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for s, f in trials:
        v = f["validation"]
        chosen = " **(kept)**" if s == setting else ""
        row = (f"| {s['side']}{chosen} | {'yes' if s['mirror'] else 'no'} | {s['faces']} | {s['cost_ms']} | {f['l2']:g} | "
               f"{f['loss']:.4f} | ")
        row += (f"{f['policy']['threshold']:.3f} | {v['combined']['coverage']:.1%} | {v['combined']['precision']:.2%} |" if v
                else "– | – | – |")
        lines.append(row)
    lines += [
        "",
        "## Chosen",
        "",
        f"- scene: the centred square at {setting['side']} px{', with its mirror image' if setting['mirror'] else ''}; "
        f"faces: {setting['faces'][5:]} (longest side × upsampling)",
        f"- L2 penalty {fitted['l2']:g} (least out-of-fold log-loss); scene softmax temperature "
        f"{policy['scene_temperature']:g}",
        f"- natural-up gate (L2 {GATE_L2:g}): the scene has no say below {policy['natural_up_floor']:.4f}, the "
        f"natural-up probability under which the lowest {NATURAL_UP_LOSS:.0%} of the choosing photos with an up "
        "fall (a rule, not a choice by precision)",
        f"- a face counts from dlib score {policy['face_score']:g}; face softmax temperature {policy['face_temperature']:g}; "
        f"a turn without a face counts as {policy['face_floor']:g}; faces whose turn the scene (of a picture with an "
        f"up) gives less than {policy['scene_veto']:g} do not decide",
        f"- default threshold {policy['threshold']:.3f}: the least whose precision's lower 95% bound (Wilson) is at least "
        f"{TARGET_PRECISION:.0%} on the choosing splits, out of fold",
        "",
        "## Measured with what was chosen",
        "",
        "| split | signal | opinions | right | precision | coverage |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for split, rows in results.items():
        for name in ("faces", "scene", "combined"):
            m = rows[name]["combined"]  # with the other signal switched off, "combined" is this one alone
            label = name if name == "combined" else f"{name} alone"
            lines.append(f"| {split} | {label} | {m['opinions']} | {m['right']} | {m['precision']:.2%} | "
                         f"{m['coverage']:.1%} |")
        for key, label in (("ungated", "without the gate"), ("unvetoed", "without the scene's veto of faces")):
            m = rows[key]
            lines.append(f"| {split} | combined, {label} | {m['opinions']} | {m['right']} | {m['precision']:.2%} | "
                         f"{m['coverage']:.1%} |")
    shown = [split for split in results if split.startswith("choosing") or split in HELD_OUT]
    head = " | ".join(f"{split} precision | {split} coverage" for split in shown)
    lines += [
        "",
        "## Other thresholds (`--content-threshold`), both signals",
        "",
        f"| threshold | {head} |",
        "| ---: |" + " ---: | ---: |" * len(shown),
    ]
    for t in CURVE:
        cells = " | ".join(f"{results[split]['curve'][t]['precision']:.2%} | {results[split]['curve'][t]['coverage']:.1%}"
                           for split in shown)
        lines.append(f"| {t:g} | {cells} |")
    lines += ["", "The held-out split is measured once, after everything above was chosen; see docs/content.md for "
              "what each split has seen. `python3 bench/run.py content` measures the same photos with the vidorient "
              "binary itself.", ""]
    with open(REPORT, "w") as f:
        f.write("\n".join(lines))


# --- measure: the head shipped, on a split -----------------------------------------------------------
def shipped_head():
    """The weights, gate and policy in UprightHead.swift, as vidorient runs them."""
    import re
    text = open(HEAD_SWIFT).read()

    def floats(name):
        body = re.search(rf"static let {name}: \[Float\] = \[(.*?)\]", text, re.S).group(1)
        return np.array([float(v) for v in body.replace("\n", " ").split(",") if v.strip()])

    def number(pattern):
        return float(re.search(pattern, text).group(1))

    policy = {key: number(rf"{name}: ([-0-9.e]+)") for key, name in (
        ("threshold", "threshold"), ("face_score", "faceScore"), ("face_floor", "faceFloor"),
        ("face_temperature", "faceTemperature"), ("scene_temperature", "sceneTemperature"),
        ("natural_up_floor", "naturalUpFloor"), ("scene_veto", "sceneVeto"))}
    setting = (f"scene{int(number(r'sceneSide = ([0-9]+)'))}", "sceneMirror = true" in text,
               f"faces{int(number(r'faceSide = ([0-9]+)'))}x{int(number(r'faceUpsample = ([0-9]+)'))}")
    return (floats("weights"), number(r"static let bias: Float = ([-0-9.e]+)"),
            (floats("gateWeights"), number(r"static let gateBias: Float = ([-0-9.e]+)")), policy, setting)


def measure_shipped(args):
    """Precision (with its Wilson 95% interval), coverage and the accuracy when forced to answer
    (threshold 0, no natural-up floor) of the head shipped, on each split named, for its photos and
    its pages of text and screens (sources whose `content` starts with `text:`) apart, and by source."""
    weights, bias, gate, policy, (scene, mirror, faces_setting) = shipped_head()
    sources = {row["id"]: row for row in read_tsv(os.path.join(ROOT, "models", "photos", "sources.tsv"))}
    folder = FEATURES
    forced_policy = dict(policy, threshold=0.0, natural_up_floor=0.0)

    def row(label, x, faces, up):
        logits, natural = scene_logits(x, weights, bias), natural_up(x, *gate, head=(weights, bias))
        n = right = covered = forced = by_faces = faces_right = 0
        for shift in range(4):
            truth = (4 - shift) % 4
            turn, signal, _ = decide(as_turned(logits, shift), as_turned(faces, shift), natural, policy)
            n += int((turn >= 0).sum())
            right += int(((turn == truth) & up).sum())
            covered += int(((turn >= 0) & up).sum())
            by_faces += int((signal == "faces").sum())
            faces_right += int(((signal == "faces") & (turn == truth) & up).sum())
            forced_turn, _, _ = decide(as_turned(logits, shift), as_turned(faces, shift), natural, forced_policy)
            forced += int(((forced_turn == truth) & up).sum())
        total = 4 * int(up.sum())
        low, high = wilson_lower(right, n), 1 - wilson_lower(n - right, n)
        precision = f"{right / n:.2%} ({right} of {n}; {low:.2%}–{high:.2%})" if n else "no opinion"
        print(f"| {label} | {len(up)} ({int((~up).sum())}) | {precision} | {covered / max(total, 1):.1%} | "
              f"{faces_right} of {by_faces} | {forced / max(total, 1):.1%} |")

    for split in args.splits:
        groups = {}
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".npz") or name.endswith(".part.npz"):
                continue
            data = np.load(os.path.join(folder, name))
            if str(data["split"]) != split:
                continue
            x = data[scene].astype(np.float32)
            kind = "pages of text and screens" if sources[name[:-4]]["content"].startswith("text:") else "photos"
            groups.setdefault(kind, []).append((name[:-4], x if mirror else x[:, :, :1], data[faces_setting],
                                                data["up"]))
        print(f"\n{split}, the head shipped ({HEAD_SWIFT.split('/')[-1]}), threshold {policy['threshold']:g}:\n")
        print("| pictures | n (without an up) | precision (Wilson 95%) | coverage | faces right | forced |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for kind, parts in sorted(groups.items(), key=lambda item: item[0] != "photos"):
            row(f"**{kind}**", *(np.concatenate([part[i] for part in parts]) for i in (1, 2, 3)))
            for source, x, faces, up in sorted(parts, key=lambda part: -len(part[3])):
                if args.by_source:
                    row(f"{source}", x, faces, up)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["extract", "train", "measure"])
    parser.add_argument("splits", nargs="*", default=list(HELD_OUT),
                        help="measure: the splits to measure the head shipped on")
    parser.add_argument("--by-source", action="store_true", help="measure: a line for each source too")
    default_engine, default_model = content_engine.default_paths(ROOT)
    parser.add_argument("--photos", default=os.path.join(CACHE, "photos"))
    parser.add_argument("--engine", default=default_engine)
    parser.add_argument("--model", default=default_model)
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="processes extracting at once")
    parser.add_argument("--kept-setting-only", action="store_true",
                        help="extract and fit only the setting kept before (160 px with its mirror image, faces at 240 px)")
    parser.add_argument("--without-held-out", action="store_true",
                        help="choose and write everything, but do not measure the held-out splits (look first)")
    parser.add_argument("--train-per-source", type=int, default=None,
                        help="at most this many photos of each training source (the smallest SHA-256s)")
    parser.add_argument("--features", help="train, measure: the features of this folder (tune-scene-top.py's final/)")
    parser.add_argument("--folds", help="train: each choosing split judged from FOLDS/<split>/ (tune-scene-top.py's)")
    args = parser.parse_args()
    global FEATURES, FOLDS
    FEATURES, FOLDS = args.features or FEATURES, args.folds
    {"extract": extract, "train": train, "measure": measure_shipped}[args.step](args)


if __name__ == "__main__":
    main()
