#!/usr/bin/env python3
"""Tunes the top of the scene network for the task: EfficientNet-Lite0's last block (block 15:
expand 192→1152, 3×3 depthwise, project 1152→320) and its head convolution (320→1280), on the
four quarter turns of the training photos, so that the 1,280 pooled features say which way is up
rather than what the picture is of. Writes models/scene-top.npz, the change to those layers' weights
(float16, batch normalisation already folded in), which models/make-scene-model.py adds to the
network as a second branch: its pooled output is the network's `features` (what the upright head
reads); the ImageNet classes (`logits`, what the text-likeness reads) keep the original layers.

Cheap enough for two cores because nothing below the tuned layers moves: every photo's block-14
output (192×5×5 at 160 px, the kept scene setting) is computed once, in its four turns and their
mirror images, and cached (`extract`, about 14 minutes on two cores); `tune` then runs only the top
(about 2 minutes an epoch over the 4,798 training and choosing photos on two cores).

Out of fold, as every number of the verdict is chosen (models/README.md): for each choosing split
(`validation`, `test`, `test2`) the top is tuned on the training split and the other two, and the
features of every photo are written for that fold (.build-models/features-tuned/<split>/); the top
shipped is tuned on the training and all three choosing splits (.../final/). train-upright-head.py
then fits the head, the gate and the policy on those (`--folds`, `--features`). The settings
(epochs, rate, penalty) were chosen by tuning on the training split alone and judging the three
choosing splits (docs/content.md, round 8); the held-out splits were not looked at.

Needs Debian's python3-torch (1.13), python3-opencv and python3-numpy (/usr/bin/python3); torch
is needed only here, never at setup or at run time.

usage: tune-scene-top.py extract|tune [--jobs N] [--folds validation test test2 final]
"""
import argparse
import importlib.util
import math
import multiprocessing
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import content_engine  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".build-models")
MAPS = os.path.join(CACHE, "maps")
TUNED = os.path.join(CACHE, "features-tuned")
TOP = os.path.join(ROOT, "models", "scene-top.npz")
_spec = importlib.util.spec_from_file_location("train_upright_head", os.path.join(ROOT, "models", "train-upright-head.py"))
head_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(head_script)

SIDE = 160  # the kept scene setting (UprightHead.sceneSide)
# The original network's layers, as OpenCV names the nodes of make-scene-model.py's graph.
BLOCK14 = "onnx_node!add_84"
ORIGINAL = {"expand": "onnx_node!_blocks_15__expand_conv_85", "depthwise": "onnx_node!_blocks_15__depthwise_conv_87",
            "project": "onnx_node!_blocks_15__project_conv_89", "head": "onnx_node!_conv_head_90"}
# Chosen by tuning on `train` alone and judging the choosing splits (docs/content.md, round 8).
EPOCHS, RATE, PENALTY, BATCH = 5, 3e-4, 1e-3, 32


# --- extract: block 14's output of every photo, 4 turns × (picture, mirror image) ------------------
def square(rgb, side=SIDE):
    """The centred square scaled to side × side and its mirror image, as the engine's square_input."""
    import cv2
    height, width = rgb.shape[:2]
    shorter = min(height, width)
    top, left = (height - shorter) // 2, (width - shorter) // 2
    scaled = cv2.resize(rgb[top:top + shorter, left:left + shorter], (side, side),
                        interpolation=cv2.INTER_AREA if shorter >= side else cv2.INTER_LINEAR)
    return [scaled, cv2.flip(scaled, 1)]


def extract_source(job):
    import cv2
    (split, source), photos, model = job
    out = os.path.join(MAPS, f"{source}.npz")
    if os.path.exists(out):
        return
    cv2.setNumThreads(1)
    net = cv2.dnn.readNetFromONNX(model)
    n = len(photos)
    maps = np.zeros((n, 4, 2, 192, 5, 5), np.float16)
    kept = np.zeros(n, bool)
    for i, (path, _, longest) in enumerate(photos):
        picture = content_engine.judged_picture(path, longest)
        if picture is None:
            continue
        batch = [p for k in range(4) for p in square(content_engine.turned(picture, k))]
        net.setInput(cv2.dnn.blobFromImages(batch, 1.0, (SIDE, SIDE), (0, 0, 0), False, False, cv2.CV_32F), "image")
        maps[i] = net.forward(BLOCK14).reshape(4, 2, 192, 5, 5)
        kept[i] = True
    paths, up = np.array([p for p, _, _ in photos]), np.array([u for _, u, _ in photos])
    np.savez(out + ".part.npz", m192=maps[kept], paths=paths[kept], up=up[kept], split=split)
    os.replace(out + ".part.npz", out)
    print(f"extract: {source}: {kept.sum()} photos ({split})", file=sys.stderr, flush=True)


def extract(args):
    by_source = {}
    for split, source, path, has_up, longest in head_script.photo_list(args.photos):
        by_source.setdefault((split, source), []).append((path, has_up, longest))
    os.makedirs(MAPS, exist_ok=True)
    jobs = sorted(((key, photos, args.model) for key, photos in by_source.items()),
                  key=lambda job: (job[0][0] == "train", -len(job[1])))
    with multiprocessing.Pool(args.jobs) as pool:
        for _ in pool.imap_unordered(extract_source, jobs):
            pass


def load_maps(splits):
    """{source: (maps, up, paths, split)} of the splits named."""
    found = {}
    for name in sorted(os.listdir(MAPS)):
        if name.endswith(".npz") and not name.endswith(".part.npz"):
            data = np.load(os.path.join(MAPS, name))
            if str(data["split"]) in splits:
                found[name[:-4]] = (data["m192"], data["up"], data["paths"], str(data["split"]))
    return found


# --- tune -------------------------------------------------------------------------------------------
def original_top(model):
    """The original layers' weights and biases (batch normalisation folded in), from the network."""
    import cv2
    net = cv2.dnn.readNetFromONNX(model)
    top = {}
    for key, layer in ORIGINAL.items():
        w, b = net.getParam(layer, 0), net.getParam(layer, 1)
        top[key + "_w"] = w.reshape(w.shape[0], 3, 3) if key == "depthwise" else w.reshape(w.shape[0], w.shape[1])
        top[key + "_b"] = b.reshape(-1)
    return top


def build_model(original, weights, bias):
    import torch

    class Top(torch.nn.Module):
        """Block 15 and the head convolution on a 192×5×5 map, each weight the original plus a
        learnt change (penalised towards none), then the pooled features and the head's score."""

        def __init__(self):
            super().__init__()
            for key, value in original.items():
                self.register_buffer(key, torch.tensor(value))
                self.register_parameter("d_" + key, torch.nn.Parameter(torch.zeros(value.shape)))
            self.w = torch.nn.Parameter(torch.tensor(weights, dtype=torch.float32))
            self.c = torch.nn.Parameter(torch.tensor(float(bias)))

        def layer(self, key):
            return getattr(self, key) + getattr(self, "d_" + key)

        def change(self):
            return sum((getattr(self, "d_" + key) ** 2).sum() for key in original if key.endswith("_w"))

        def features(self, x):  # N × 192 × 25
            n = x.shape[0]
            y = (torch.einsum("oc,ncs->nos", self.layer("expand_w"), x) + self.layer("expand_b")[None, :, None]).clamp(0, 6)
            y = torch.nn.functional.conv2d(y.reshape(n, 1152, 5, 5), self.layer("depthwise_w")[:, None],
                                           self.layer("depthwise_b"), padding=1, groups=1152).clamp(0, 6)
            y = torch.einsum("oc,ncs->nos", self.layer("project_w"), y.reshape(n, 1152, 25)) + self.layer("project_b")[None, :, None]
            y = torch.einsum("oc,ncs->nos", self.layer("head_w"), y) + self.layer("head_b")[None, :, None]
            return y.clamp(0, 6).mean(-1)

        def forward(self, x):
            return self.features(x) @ self.w + self.c

    return Top()


def tune_top(maps, up, original, seed=0, label=""):
    """Tunes the top on `maps` (photos × 4 × 2 × 192 × 5 × 5) with a softmax over each photo's four
    turns (turn 0 upright; a photo without an up taught a quarter on each), from a linear head fitted
    on the original features; returns the model."""
    import torch
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    start_features = pooled(build_model(original, np.zeros(1280), 0.0), maps)
    weights, bias = head_script.fit_head(start_features, 0.03, up)
    model = build_model(original, weights, bias)
    optimiser = torch.optim.Adam(model.parameters(), lr=RATE)
    target = torch.tensor(np.where(up[:, None], np.eye(4)[0], np.full(4, 0.25)), dtype=torch.float32)
    steps, step = EPOCHS * math.ceil(len(maps) / BATCH), 0
    for epoch in range(EPOCHS):
        order, total, began = rng.permutation(len(maps)), 0.0, time.time()
        for first in range(0, len(maps), BATCH):
            chosen = np.sort(order[first:first + BATCH])
            x = torch.tensor(maps[chosen].astype(np.float32)).reshape(-1, 192, 25)
            scores = model(x).reshape(len(chosen), 4, 2).permute(0, 2, 1)  # photos × (picture, mirror) × turns
            loss = -(torch.log_softmax(scores, -1) * target[chosen][:, None, :]).sum(-1).mean()
            for group in optimiser.param_groups:  # cosine decay to zero
                group["lr"] = RATE * 0.5 * (1 + math.cos(math.pi * step / steps))
            optimiser.zero_grad()
            (loss + PENALTY * model.change()).backward()
            optimiser.step()
            step += 1
            total += float(loss) * len(chosen)
        print(f"tune {label}: epoch {epoch + 1} of {EPOCHS}, loss {total / len(maps):.4f} ({time.time() - began:.0f} s)",
              file=sys.stderr, flush=True)
    return model


def pooled(model, maps, batch=64):
    """The tuned network's pooled features: photos × 4 × 2 × 1280."""
    import torch
    out = np.zeros(maps.shape[:3] + (1280,), np.float32)
    with torch.no_grad():
        for first in range(0, len(maps), batch):
            x = torch.tensor(maps[first:first + batch].astype(np.float32)).reshape(-1, 192, 25)
            out[first:first + batch] = model.features(x).numpy().reshape(-1, 4, 2, 1280)
    return out


def write_features(model, sources, folder):
    """The fold's features of every photo, in the layout train-upright-head.py reads, beside the
    faces already extracted (.build-models/features/); sources never extracted there are skipped."""
    os.makedirs(folder, exist_ok=True)
    for source, (maps, up, paths, split) in sources.items():
        faces_file = os.path.join(CACHE, "features", f"{source}.npz")
        if not os.path.exists(faces_file):
            continue
        extracted = np.load(faces_file)
        if list(extracted["paths"]) != list(paths):
            sys.exit(f"tune: {source}: the photos extracted for the faces are not the photos of the maps")
        faces = head_script.KEPT_SETTING[2]
        scene = head_script.KEPT_SETTING[0]
        np.savez(os.path.join(folder, f"{source}.npz"), **{scene: pooled(model, maps).astype(np.float16),
                 faces: extracted[faces], "paths": paths, "up": up, "split": split})


def tune(args):
    import torch
    original = original_top(args.model)
    every = load_maps(set(head_script.CHOOSING) | {"train"} | set(head_script.HELD_OUT) | {"test4"})
    for fold in args.folds:
        taught = {"train"} | set(head_script.CHOOSING) - ({fold} if fold != "final" else set())
        parts = [value for value in every.values() if value[3] in taught]
        maps = np.concatenate([p[0] for p in parts])
        up = np.concatenate([p[1] for p in parts])
        print(f"tune {fold}: {len(maps)} photos of {', '.join(sorted(taught))}", file=sys.stderr, flush=True)
        model = tune_top(maps, up, original, label=fold)
        del maps
        # The change as shipped (float16), so that the features the head is fitted on are the
        # shipped network's.
        with torch.no_grad():
            for key in original:
                change = getattr(model, "d_" + key)
                change.copy_(change.half().float())
        shown = every if fold == "final" else {s: v for s, v in every.items() if v[3] in taught | {fold}}
        write_features(model, shown, os.path.join(TUNED, fold))
        if fold == "final":
            change = {key: getattr(model, "d_" + key).detach().numpy().astype(np.float16) for key in original}
            np.savez_compressed(TOP, **change)
            print(f"tune: wrote {TOP} ({os.path.getsize(TOP)} bytes)", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["extract", "tune"])
    parser.add_argument("--photos", default=os.path.join(CACHE, "photos"))
    parser.add_argument("--model", default=os.path.join(CACHE, "scene-efficientnet-lite0-upright.onnx"),
                        help="the scene network, with the tuned top or without (--no-top): its original layers, "
                             "which keep their names in both, are the start and give block 14's output")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--folds", nargs="*", default=list(head_script.CHOOSING) + ["final"])
    args = parser.parse_args()
    import torch
    torch.set_num_threads(os.cpu_count())
    {"extract": extract, "tune": tune}[args.step](args)


if __name__ == "__main__":
    main()
