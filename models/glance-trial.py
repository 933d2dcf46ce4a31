#!/usr/bin/env python3
"""A glance, tried (docs/content.md, "Tried and left out", issue 31 round 4): not part of vidorient.

Could one pass of the scene network, the picture as shown, say which turn is up, so that the other
three passes (and the faces) run only for the photos it is unsure of? A four-class logistic
regression on the same pooled features (EfficientNet-Lite0's 1,280 at 160 px) of the picture as
shown: class k is "turned k quarter turns clockwise, it is upright"; each photo of the training split
in its four turns and their mirror images (a mirror image of the picture turned s needs s turns, not
4 − s), a photo without an up taught a quarter on each. Judged out of fold on the choosing splits,
as train-upright-head.py chooses everything: each choosing split by a glance and a head fitted on
the training split and the other two. It prints the glance's accuracy when forced to answer and, at
each confidence, how many photos it would answer alone, how many of those right, and the precision
and coverage of the whole verdict when the glance answers above that confidence and the verdict
shipped (head, gate and policy as in UprightHead.swift) answers the rest.

Needs the features extracted (`train-upright-head.py extract --kept-setting-only`); about 5 minutes
on two cores with an optimised BLAS (Debian's libopenblas0-pthread; the reference BLAS is ten times slower).

    /usr/bin/python3 models/glance-trial.py [L2 ...]
"""
import importlib.util
import os
import re
import sys

import numpy as np

spec = importlib.util.spec_from_file_location(
    "train_upright_head", os.path.join(os.path.dirname(os.path.abspath(__file__)), "train-upright-head.py"))
t = importlib.util.module_from_spec(spec)
sys.modules["train_upright_head"] = t
spec.loader.exec_module(t)


def fit_glance(x, has_up, l2, iterations=300):
    """x: photos × 4 turns × 2 (picture, mirror) × features → (features × 4 weights, 4 biases)."""
    rows = np.concatenate([x[:, s, p] for s in range(4) for p in range(x.shape[2])]).astype(np.float32)
    labels = np.concatenate([np.full(len(x), (4 - s) % 4 if p == 0 else s) for s in range(4) for p in range(x.shape[2])])
    up = np.tile(has_up, 4 * x.shape[2])
    mean, scale = rows.mean(0), rows.std(0) + 1e-6
    z = (rows - mean) / scale
    target = np.where(up[:, None], np.eye(4, dtype=np.float32)[labels], np.float32(0.25))
    w, b = np.zeros((z.shape[1], 4), np.float32), np.zeros(4, np.float32)
    m, v, mb, vb = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    for step in range(1, iterations + 1):
        g = (t.softmax(z @ w + b) - target) / len(z)
        gw, gb = z.T @ g + 2 * l2 * w, g.sum(0)
        m, v, mb, vb = 0.9 * m + 0.1 * gw, 0.999 * v + 0.001 * gw * gw, 0.9 * mb + 0.1 * gb, 0.999 * vb + 0.001 * gb * gb
        c1, c2 = 1 - 0.9 ** step, 1 - 0.999 ** step
        w -= 0.02 * (m / c1) / (np.sqrt(v / c2) + 1e-8)
        b -= 0.02 * (mb / c1) / (np.sqrt(vb / c2) + 1e-8)
    return w / scale[:, None], b - mean @ (w / scale[:, None])


def main():
    l2s = [float(a) for a in sys.argv[1:]] or [1e-3, 1e-2]
    _, _, _, policy, (scene, mirror, faces_setting) = t.shipped_head()
    l2_head = float(re.search(r"\(L2 ([0-9.e-]+)\)", open(t.HEAD_SWIFT).read()).group(1))  # the head shipped's
    x_train, _, up_train = t.load("train", scene, faces_setting, mirror)
    parts = {split: t.load(split, scene, faces_setting, mirror) for split in t.CHOOSING}
    logits, faces, natural, up, glances = [], [], [], [], {l2: [] for l2 in l2s}
    for held in t.CHOOSING:
        rest = [parts[split] for split in t.CHOOSING if split != held]
        x_fit = np.concatenate([x_train] + [p[0] for p in rest])
        up_fit = np.concatenate([up_train] + [p[2] for p in rest])
        head = t.fit_head(x_fit, l2_head, up_fit)
        x, f, u = parts[held]
        logits.append(t.scene_logits(x, *head))
        natural.append(t.natural_up(x, *t.fit_gate(x_fit, up_fit, t.GATE_L2), head=head))
        faces.append(f)
        up.append(u)
        for l2 in l2s:
            weights, biases = fit_glance(x_fit, up_fit, l2)
            glances[l2].append(np.stack([t.softmax(x[:, s, 0] @ weights + biases) for s in range(4)], 1))
        print(f"glance-trial: fold {held} done", file=sys.stderr, flush=True)
    logits, faces, natural, up = map(np.concatenate, (logits, faces, natural, up))
    shipped = [t.decide(t.as_turned(logits, s), t.as_turned(faces, s), natural, policy)[0] for s in range(4)]

    def tally(turns):
        n = sum(int((turn >= 0).sum()) for turn in turns)
        right = sum(int(((turn == (4 - s) % 4) & up).sum()) for s, turn in enumerate(turns))
        covered = sum(int(((turn >= 0) & up).sum()) for turn in turns)
        return f"{right / n:.2%} ({right} of {n}) at {covered / (4 * up.sum()):.1%} coverage"

    print(f"the verdict shipped, out of fold on the choosing splits ({len(up)} photos × 4 turns): {tally(shipped)}")
    for l2, parts_ in glances.items():
        p = np.concatenate(parts_)  # photos × shift × class
        forced = np.mean([(p[:, s].argmax(1) == (4 - s) % 4)[up].mean() for s in range(4)])
        print(f"\nglance, L2 {l2:g}: forced to answer, {forced:.1%} right\n")
        print("| glance at least | photos it answers alone | right | the verdict with the glance first |")
        print("| ---: | ---: | ---: | ---: |")
        for sure in (0.9, 0.95, 0.98, 0.99, 0.995):
            alone = [p[:, s].max(1) >= sure for s in range(4)]
            right = sum(int(((p[:, s].argmax(1) == (4 - s) % 4) & alone[s] & up).sum()) for s in range(4))
            count = sum(int(a.sum()) for a in alone)
            turns = [np.where(alone[s], p[:, s].argmax(1), shipped[s]) for s in range(4)]
            print(f"| {sure} | {count / (4 * len(up)):.1%} | {right / max(count, 1):.2%} ({right} of {count}) | "
                  f"{tally(turns)} |")


if __name__ == "__main__":
    main()
