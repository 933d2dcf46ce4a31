#!/usr/bin/env python3
"""Helper of bench/thumbnail.sh: checks the thumbnails and renders the results.

    thumbnail_report.py correctness TMP    which way up each tool's PNG is -> TMP/correctness.json
    thumbnail_report.py render TMP         the markdown results on stdout

TMP is bench/thumbnail.sh's work folder: facts.tsv, files.tsv, out/TOOL-I.png,
hf-single-I-rR.json, rss.tsv, batch.tsv, hf-batch.json, batch-rss-K.txt.

Which way up:
- TestMedia files: the upright picture has red top-left, green top-right, blue bottom-left and
  white bottom-right quadrants (TestMedia/README.md). The centres of the four quadrants of the
  PNG are sampled (decoded by ffmpeg to rgb24) and each is named by the nearest of red, green,
  blue, white and black. Upright when the four are in that order; otherwise the 2x2 layout
  tells which of the eight orientations the picture shows.
- Other files (../shared/media): the stored frame is decoded without any rotation
  (ffmpeg -noautorotate, which also keeps ffmpeg from applying a JPEG's EXIF orientation), turned by the orientation ../shared/media/README.md gives for the file
  (the truth), and shrunk to 32x32 grey; each tool's PNG is shrunk the same way and compared
  (mean absolute difference) with the eight orientations of that upright reference. The
  closest one is what the tool drew; "unclear" when the best is not clearly better than the
  second (ratio above 0.8).
The size is checked against the displayed size: the same aspect ratio within 2 %.
"""

import json
import math
import os
import statistics
import subprocess
import sys

TOOLS = ["vidorient", "ffmpeg", "ffmpegthumbnailer"]
TOOL_LABEL = {"vidorient": "vidorient", "ffmpeg": "ffmpeg", "ffmpegthumbnailer": "ffmpegthumbnailer"}

# What ../shared/media/README.md gives as the truth ("orientation N", displayed WxH).
SHARED_TRUTH = {
    "iphone_rotated.mov": (6, 320, 568),
    "dolbyVision-hdr.MOV": (6, 720, 1280),
    "sample_rotate_and_reflect.mp4": (5, 720, 1080),
    "sample.mp4": (1, 1080, 720),
    "sample_portrait.mp4": (1, 720, 1080),
    **{f"Landscape_{i}.jpg": (max(i, 1), 1800, 1200) for i in range(9)},
}

# What a picture showing orientation k of the upright one looks like, in words.
RESIDUAL = {
    1: "upright",
    2: "mirrored left-right",
    3: "upside down",
    4: "mirrored top-bottom",
    5: "transposed (mirrored and turned)",
    6: "turned 90° clockwise",
    7: "transverse (mirrored and turned)",
    8: "turned 90° counter-clockwise",
}


# ------------------------------------------------------------ orientations ---

def mirror(a):
    return [list(reversed(r)) for r in a]


def rot_cw(a):
    return [list(r) for r in zip(*a[::-1])]


def orient(a, n):
    """EXIF orientation n applied to the picture a (rows): mirror first, then turn clockwise."""
    turns = {1: 0, 2: 0, 3: 2, 4: 2, 5: 3, 6: 1, 7: 1, 8: 3}[n]
    if n in (2, 4, 5, 7):
        a = mirror(a)
    for _ in range(turns):
        a = rot_cw(a)
    return a


def self_test():
    u = [[1, 2], [3, 4]]
    # every orientation distinct, and the group closes: 6 four times is the identity
    assert len({json.dumps(orient(u, n)) for n in range(1, 9)}) == 8
    a = u
    for _ in range(4):
        a = orient(a, 6)
    assert a == u
    assert orient(u, 6) == [[3, 1], [4, 2]]  # turned clockwise: bottom-left goes top-left
    assert orient(u, 5) == [[1, 3], [2, 4]]  # transpose
    assert orient(u, 7) == [[4, 2], [3, 1]]  # transverse


# ----------------------------------------------------------------- pictures ---

def probe_size(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=width,height", "-of", "csv=p=0", path],
                         capture_output=True, text=True, check=True).stdout.strip()
    w, h = out.split(",")[:2]
    return int(w), int(h)


def decode(path, pix_fmt, extra=(), vf=None, pre=()):
    cmd = ["ffmpeg", "-nostdin", "-v", "error", *pre, "-i", path, "-frames:v", "1", *extra]
    if vf:
        cmd += ["-vf", vf]
    cmd += ["-f", "rawvideo", "-pix_fmt", pix_fmt, "-"]
    return subprocess.run(cmd, capture_output=True, check=True).stdout


def grey32(path, pre=()):
    raw = decode(path, "gray", vf="scale=32:32:flags=area", pre=pre)
    if len(raw) < 32 * 32:
        raise ValueError(f"could not decode {path}")
    return [list(raw[r * 32:(r + 1) * 32]) for r in range(32)]


COLOURS = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255), "white": (255, 255, 255),
           "black": (0, 0, 0)}
UPRIGHT_QUADRANTS = [["red", "green"], ["blue", "white"]]


def quadrants(path):
    w, h = probe_size(path)
    raw = decode(path, "rgb24")
    names = []
    for fy in (0.25, 0.75):
        row = []
        for fx in (0.25, 0.75):
            x, y = min(w - 1, int(w * fx)), min(h - 1, int(h * fy))
            i = (y * w + x) * 3
            px = raw[i:i + 3]
            row.append(min(COLOURS, key=lambda c: sum((px[k] - COLOURS[c][k]) ** 2 for k in range(3))))
        names.append(row)
    return names


def mad(a, b):
    return sum(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb)) / 1024.0


def aspect_ok(w, h, dw, dh):
    return abs((w / h) / (dw / dh) - 1) <= 0.02


# -------------------------------------------------------------- correctness ---

def read_files(tmp):
    rows = []
    with open(os.path.join(tmp, "files.tsv")) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            rows.append({"i": int(p[0]), "label": p[1], "path": p[2], "kind": p[3], "t": p[4],
                         "source": p[5], "size": int(p[6])})
    return rows


def correctness(tmp, manifest_path):
    self_test()
    manifest = json.load(open(manifest_path))
    result = {}
    for fr in read_files(tmp):
        name = os.path.basename(fr["path"])
        entry = {}
        if fr["source"] == "TestMedia":
            m = manifest[name]
            truth, dw, dh = m["exif_orientation"], m["display_width"], m["display_height"]
            # the checker checks itself: the stored pixels turned by the truth are upright
            pre = ["-noautorotate"]  # ffmpeg applies EXIF orientation to JPEG too
            stored = quadrants_of_raw(fr["path"], pre)
            if orient(stored, truth) != UPRIGHT_QUADRANTS:
                raise SystemExit(f"thumbnail_report.py: self-check failed on {name}: stored quadrants "
                                 f"{stored} turned by {truth} are not upright")
        else:
            truth, dw, dh = SHARED_TRUTH[name]
            pre = ["-noautorotate"]
            if fr["kind"] == "video":
                pre += ["-ss", fr["t"]]
            upright = orient(grey32(fr["path"], pre), truth)
            candidates = {k: orient(upright, k) for k in range(1, 9)}
        entry["truth"] = {"orientation": truth, "display": [dw, dh]}
        for tool in TOOLS:
            png = os.path.join(tmp, "out", f"{tool}-{fr['i']}.png")
            if not os.path.exists(png) or os.path.getsize(png) == 0:
                entry[tool] = {"written": False}
                continue
            w, h = probe_size(png)
            e = {"written": True, "width": w, "height": h, "aspect_ok": aspect_ok(w, h, dw, dh)}
            if fr["source"] == "TestMedia":
                q = quadrants(png)
                e["quadrants"] = q
                shown = [k for k in range(1, 9) if orient(UPRIGHT_QUADRANTS, k) == q]
                e["shows"] = shown[0] if shown else None
                e["clear"] = True
            else:
                g = grey32(png)
                scores = sorted((mad(g, c), k) for k, c in candidates.items())
                e["shows"] = scores[0][1]
                e["scores"] = [[round(s, 2), k] for s, k in scores]
                e["clear"] = scores[0][0] <= 0.8 * scores[1][0]
            e["upright"] = e["shows"] == 1 and e["clear"]
            entry[tool] = e
        result[str(fr["i"])] = entry
    with open(os.path.join(tmp, "correctness.json"), "w") as f:
        json.dump(result, f, indent=1)


def quadrants_of_raw(path, pre):
    """Quadrant colours of the stored frame of path (first frame, no rotation)."""
    tmpdir = os.environ.get("TMPDIR", "/tmp")
    png = os.path.join(tmpdir, f"thumbnail-report-{os.getpid()}.png")
    try:
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *pre, "-i", path, "-frames:v", "1", png],
                       check=True, capture_output=True)
        return quadrants(png)
    finally:
        if os.path.exists(png):
            os.unlink(png)


# ------------------------------------------------------------------ render ---

def read_tsv(path):
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def hf_results(path):
    return {r["command"]: r for r in json.load(open(path))["results"]}


def pooled(runs):
    """runs: list of hyperfine result dicts for one command (one per round)."""
    times = [t for r in runs for t in r["times"]]
    cpu = statistics.fmean(r["user"] + r["system"] for r in runs)
    return {"mean": statistics.fmean(times), "sd": statistics.stdev(times) if len(times) > 1 else 0.0,
            "median": statistics.median(times), "n": len(times), "cpu": cpu,
            "rounds": [statistics.fmean(r["times"]) for r in runs]}


def ratio_band(a, b):
    r = a["mean"] / b["mean"]
    se = r * math.sqrt((a["sd"] / a["mean"]) ** 2 / a["n"] + (b["sd"] / b["mean"]) ** 2 / b["n"])
    return r, r - 2 * se, r + 2 * se


def verdict(lo, hi, target):
    if hi <= target:
        return "met"
    if lo > target:
        return "**not met**"
    return "too close to call"


def ms(x):
    return f"{x * 1000:.1f}"


def mib(kbs):
    return f"{statistics.median(kbs) / 1024:.1f}"


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def render(tmp):
    facts = dict(read_tsv(os.path.join(tmp, "facts.tsv")))
    files = read_files(tmp)
    rounds = int(facts["rounds"])
    corr = json.load(open(os.path.join(tmp, "correctness.json")))
    rss = {}
    for key, tool, vals in read_tsv(os.path.join(tmp, "rss.tsv")):
        rss[(key, tool)] = [int(v) for v in vals.split(",")]
    out = []
    w = out.append

    w("## thumbnail")
    w("")
    w("`vidorient thumbnail FILE -o OUT.png --width 320`, run as a whole process, beside "
      "`ffmpeg -ss T -i FILE -frames:v 1 -vf scale=320:-2 OUT.png` and `ffmpegthumbnailer -i FILE -o OUT.png -s 320` "
      "on the same files (T = 10 % of the duration, where ffmpegthumbnailer and vidorient look by default); then a "
      f"batch of {dict(read_tsv(os.path.join(tmp, 'batch.tsv')))['files']} files: one `vidorient thumbnail --out-dir` process against shell loops of the other two. Wall "
      "time, CPU time (user + system), peak RSS, and whether each picture is upright.")
    w("")
    w("**Targets (issue 3):** one thumbnail in at most half of ffmpeg's wall time and no slower than "
      "ffmpegthumbnailer; the 200-file batch at least 5× faster than the shell loop of ffmpeg.")
    w("")
    w("### How it is measured")
    w("")
    w("```sh")
    w("bash bench/thumbnail.sh --write   # from any directory; 15 to 30 minutes here; knobs in its header")
    w("```")
    w("")
    w("builds vidorient as users get it (`swift build -c release --static-swift-stdlib --scratch-path .build-release`) "
      "and measures a copy of the binary; runs every command once and keeps the pictures for the correctness check "
      "(`bench/thumbnail_report.py`); waits up to 10 minutes for the load average to drop under 1.5; times each file's "
      "three commands with `hyperfine -N` in 3 rounds, the order rotating; measures peak RSS with `/usr/bin/time -f %M`; "
      "copies the batch to `bench/work/thumbnail-batch/` and times it in 2 rounds; and replaces only the block between "
      "the `<!-- BEGIN/END bench/thumbnail.sh results -->` markers. The machine is shared: the CPU time other "
      "processes took while measuring is recorded (from `/proc/stat`, minus the benchmark's own).")
    w("")
    w("### Results")
    w("")
    w(f"Run of {facts['date']}, by `{facts['invocation']}`.")
    w("")
    w("#### Machine and versions")
    w("")
    w("| | |")
    w("| --- | --- |")
    w(f"| CPU | {facts['cpu']}, `nproc` = {facts['nproc']} |")
    w(f"| memory, kernel | {facts['memory']}, {facts['kernel']} |")
    w(f"| load average (1, 5, 15 min) at start / end | {facts['loadavg_start']} / {facts['loadavg_end']}"
      + (f" (waited {facts['waited']} s for the machine to calm down first)" if facts.get('waited', '0') != '0' else "")
      + " |")
    oth = others(tmp)
    w("| CPU other processes took during the timing (cores of " + facts["nproc"] + "; from /proc/stat, minus the "
      "benchmark's own) | " + "; ".join(
          f"{label}: median {statistics.median(v):.2f}, max {max(v):.2f}" for label, v in
          (("single files", oth["single"]), ("batch", oth["batch"])) if v)
      + f". {facts['gate']}; {facts['discarded']} thrown away and timed again |")
    w(f"| FFmpeg (ffmpeg CLI and vidorient's libraries) | {facts['ffmpeg']} |")
    w(f"| ffmpegthumbnailer, hyperfine | {facts['ffmpegthumbnailer']}, {facts['hyperfine']} |")
    w(f"| Swift | {facts['swift']} |")
    build = facts["vidorient_build"]
    build = f"built by `{build}`" if build.startswith("swift ") else build
    w(f"| vidorient | {facts['vidorient_version']}, {build} |")
    w(f"| commit | {facts['commit']} |")
    w(f"| settings | {facts['settings']} |")
    w("")
    w("The commands, for each FILE (W = 320, T = 10 % of the duration as ffprobe gives it; photos have no `-ss`, "
      "since `ffmpeg -ss` on a JPEG writes nothing and still exits 0):")
    w("")
    w("```sh")
    w("vidorient thumbnail FILE -o OUT.png --width 320")
    w("ffmpeg -v error -y -ss T -i FILE -frames:v 1 -vf scale=320:-2 OUT.png")
    w("ffmpegthumbnailer -i FILE -o OUT.png -s 320")
    w("```")
    w("")

    # ---- single
    single = {}
    for fr in files:
        per_tool = {t: [] for t in TOOLS}
        for r in range(rounds):
            res = hf_results(os.path.join(tmp, f"hf-single-{fr['i']}-r{r}.json"))
            for t in TOOLS:
                per_tool[t].append(res[t])
        single[fr["i"]] = {t: pooled(v) for t, v in per_tool.items()}

    w("#### One thumbnail per process: wall time, mean ± σ (ms)")
    w("")
    w("| file | size | vidorient | ffmpeg | ffmpegthumbnailer | vidorient ÷ ffmpeg (~95 % band) | target ≤ 0.50 | "
      "vidorient ÷ ffmpegthumbnailer (~95 % band) | target ≤ 1.00 |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |")
    met_f = met_t = 0
    for fr in files:
        s = single[fr["i"]]
        rf, lof, hif = ratio_band(s["vidorient"], s["ffmpeg"])
        rt, lot, hit = ratio_band(s["vidorient"], s["ffmpegthumbnailer"])
        vf, vt = verdict(lof, hif, 0.5), verdict(lot, hit, 1.0)
        met_f += vf == "met"
        met_t += vt == "met"
        cells = " | ".join(f"{ms(s[t]['mean'])} ± {ms(s[t]['sd'])}" for t in TOOLS)
        w(f"| {fr['label']} | {human(fr['size'])} | {cells} | {rf:.2f}× ({lof:.2f}–{hif:.2f}) | {vf} | "
          f"{rt:.2f}× ({lot:.2f}–{hit:.2f}) | {vt} |")
    w("")
    n = len(files)
    w(f"Targets: at most half of ffmpeg's wall time: met on {met_f} of {n} files; no slower than ffmpegthumbnailer: "
      f"met on {met_t} of {n} files. “Met” needs the whole band (ratio of the pooled means ± 2 standard errors) at or "
      "under the target, “not met” the whole band above it. "
      f"{rounds} rounds, the order of the three commands rotating from round to round; "
      "the rounds' means agree within: " +
      "; ".join(f"{fr['label'].split('/')[-1]} {spread(single[fr['i']])}" for fr in files) + ".")
    w("")

    w("#### CPU time (user + system, mean per run, ms) and peak RSS (median of the runs, MiB)")
    w("")
    w("| file | CPU vidorient | CPU ffmpeg | CPU ffmpegthumbnailer | CPU ratio v÷ffmpeg | CPU ratio v÷thumbnailer | "
      "RSS vidorient | RSS ffmpeg | RSS ffmpegthumbnailer |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for fr in files:
        s = single[fr["i"]]
        k = str(fr["i"])
        w(f"| {fr['label']} | {ms(s['vidorient']['cpu'])} | {ms(s['ffmpeg']['cpu'])} | "
          f"{ms(s['ffmpegthumbnailer']['cpu'])} | {s['vidorient']['cpu'] / s['ffmpeg']['cpu']:.2f}× | "
          f"{s['vidorient']['cpu'] / s['ffmpegthumbnailer']['cpu']:.2f}× | "
          + " | ".join(mib(rss[(k, t)]) for t in TOOLS) + " |")
    w("")

    # ---- correctness
    w("#### Which way up, and what size (the thumbnails timed above)")
    w("")
    w("| file | truth: orientation, displayed size | vidorient | ffmpeg | ffmpegthumbnailer |")
    w("| --- | --- | --- | --- | --- |")
    wrong = {t: 0 for t in TOOLS}
    for fr in files:
        c = corr[str(fr["i"])]
        tr = c["truth"]
        cells = []
        for t in TOOLS:
            e = c[t]
            if not e["written"]:
                cells.append("**nothing written**")
                wrong[t] += 1
                continue
            if e["upright"]:
                way = "upright"
            elif e["shows"] is None:
                way = "**wrong** (quadrants " + "/".join(x for row in e["quadrants"] for x in row) + ")"
            elif not e["clear"]:
                way = f"unclear (closest: {RESIDUAL[e['shows']]})"
            else:
                way = f"**wrong**: {RESIDUAL[e['shows']]}"
            if not e["upright"]:
                wrong[t] += 1
            size = f"{e['width']}x{e['height']}" + ("" if e["aspect_ok"] else " **(aspect ≠ displayed)**")
            cells.append(f"{way}, {size}")
        w(f"| {fr['label']} | {tr['orientation']}, {tr['display'][0]}x{tr['display'][1]} | " + " | ".join(cells) + " |")
    w("")
    w("Upright on " + ", ".join(f"{TOOL_LABEL[t]} {n - wrong[t]} of {n}" for t in TOOLS) + ". "
      "TestMedia: the four quadrant centres of each PNG against red/green/blue/white (TestMedia/README.md); "
      "the others: each PNG shrunk to 32×32 grey and matched against the eight orientations of the stored frame "
      "turned by the truth in ../shared/media/README.md. `ffmpegthumbnailer -s 320` bounds the longer side, so its "
      "portrait pictures are 320 high; that is its meaning of the size, not an error.")
    w("")

    # ---- batch
    bfacts = dict(read_tsv(os.path.join(tmp, "batch.tsv")))
    order, per = [], {}
    for r in range(int(facts["batch_rounds"])):
        for res in json.load(open(os.path.join(tmp, f"hf-batch-r{r}.json")))["results"]:
            if res["command"] not in per:
                per[res["command"]] = []
            per[res["command"]].append(res)
    names = [r for r in BATCH_ORDER(tmp)]
    hb = []
    for name in names:
        p = pooled(per[name])
        n_runs = [len(x["times"]) for x in per[name]]
        hb.append({"command": name, "mean": p["mean"], "stddev": p["sd"], "times": [t for x in per[name] for t in x["times"]],
                   "user": sum(x["user"] * k for x, k in zip(per[name], n_runs)) / sum(n_runs),
                   "system": sum(x["system"] * k for x, k in zip(per[name], n_runs)) / sum(n_runs)})
    brss = {}
    for k, name in enumerate(names):
        with open(os.path.join(tmp, f"batch-rss-{k}.txt")) as f:
            brss[name] = [int(x) for x in f.read().split() if x.strip().isdigit()]
    v = next(r for r in hb if r["command"].startswith("vidorient"))
    vwall = {"mean": v["mean"], "sd": v["stddev"] or 0.0, "n": len(v["times"])}
    w(f"#### Batch: {bfacts['files']} files, W = 320")
    w("")
    w(f"The files: {bfacts['composition']}, copied under `bench/work/thumbnail-batch/`. "
      f"{bfacts['settings']}")
    w("")
    w("| command | wall mean ± σ (s) | CPU user + sys (s) | peak RSS (MiB) | vidorient's wall ÷ this | "
      "vidorient's CPU ÷ this | this ÷ vidorient's wall |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in hb:
        cpu = r["user"] + r["system"]
        vcpu = v["user"] + v["system"]
        w(f"| {r['command']} | {r['mean']:.2f} ± {(r['stddev'] or 0):.2f} | {cpu:.2f} | {mib(brss[r['command']])} | "
          f"{v['mean'] / r['mean']:.3f}× | {vcpu / cpu:.3f}× | {r['mean'] / v['mean']:.1f}× |")
    w("")
    loop = next(r for r in hb if r["command"].startswith("sh loop: ffmpeg "))
    lwall = {"mean": loop["mean"], "sd": loop["stddev"] or 0.0, "n": len(loop["times"])}
    speedup = loop["mean"] / v["mean"]
    r_, lo, hi = ratio_band(vwall, lwall)
    bv = verdict(lo, hi, 0.2)
    w(f"Target (the batch at least 5× faster than the shell loop of ffmpeg): {bv}: vidorient took "
      f"{v['mean']:.2f} s, the loop {loop['mean']:.2f} s, {speedup:.1f}× faster (band of vidorient ÷ loop "
      f"{lo:.3f}–{hi:.3f}, target ≤ 0.200). The ffmpeg loops are given each file's time precomputed (a real script "
      "would also run ffprobe per file to find 10 %); peak RSS of a loop is that of its largest single process, "
      "since they run one after another (`/usr/bin/time` reports the largest descendant). "
      + bfacts.get("note", ""))
    w("")
    cmds = dict(read_tsv(os.path.join(tmp, "batch-cmds.tsv")))
    w("The batch commands (D the output folder; T the time at 10 %, `-` for a photo):")
    w("")
    w("```sh")
    for k in range(len(names)):
        w(cmds[f"cmd-{k}"])
    w("```")
    w("")
    w("Thumbnails written in the checking run before the timing: " + "; ".join(
        f"{name} {bfacts.get('written-' + str(k), '?')}" for k, name in enumerate(names)) + ".")
    w("")
    w("#### Summary of the targets")
    w("")
    w("| target | result |")
    w("| --- | --- |")
    w(f"| one thumbnail ≤ 0.5× ffmpeg's wall time | met on {met_f} of {n} files |")
    w(f"| one thumbnail no slower than ffmpegthumbnailer | met on {met_t} of {n} files |")
    w(f"| {bfacts['files']}-file batch ≥ 5× faster than the ffmpeg loop | {bv} ({speedup:.1f}×) |")
    w("")
    return "\n".join(out)


def BATCH_ORDER(tmp):
    """The batch commands in the order the script defines them (0..4)."""
    names = {}
    for key, val in read_tsv(os.path.join(tmp, "batch-names.tsv")):
        names[int(key)] = val
    return [names[k] for k in sorted(names)]


def others(tmp):
    """Cores other processes took during each kept hyperfine run: {phase: [cores, ...]}."""
    out = {"single": [], "batch": []}
    for tag, cores in read_tsv(os.path.join(tmp, "others.tsv")):
        out[tag.split("-")[0]].append(float(cores))
    return out


def spread(s):
    worst = 0.0
    for t in TOOLS:
        rs = s[t]["rounds"]
        if len(rs) > 1:
            worst = max(worst, (max(rs) - min(rs)) / statistics.fmean(rs))
    return f"{worst * 100:.0f} %"


def main(argv):
    if len(argv) == 4 and argv[1] == "correctness":
        correctness(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "render":
        print(render(argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
