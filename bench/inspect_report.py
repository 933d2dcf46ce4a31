#!/usr/bin/env python3
"""Turns the raw output of bench/inspect.sh into markdown (standard library only).

  inspect_report.py render TMPDIR        markdown results on stdout
  inspect_report.py pairs OUT N WARMUP K A... B...
                                         time command A (its K words) and command B
                                         alternately, N pairs, into OUT (JSON)
  inspect_report.py check-doc DOC        exit 1 if DOC's result markers are broken
  inspect_report.py splice DOC RESULTS   replace what is between the markers in DOC
                                         (or append a marked block when there is none)

TMPDIR holds what inspect.sh wrote: facts.tsv, files.tsv, rss.tsv and, for
each round R, the hyperfine --export-json files hf-floor-rR.json,
hf-file-N-rR.json and hf-batch-rR.json. The rounds of a command are pooled;
the spread of a ratio over the rounds is kept to show how steady it was.
"""

import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

BEGIN = "<!-- BEGIN bench/inspect.sh results -->"
END = "<!-- END bench/inspect.sh results -->"
TOOLS = ["vidorient", "ffprobe", "exiftool", "mediainfo"]
TARGET = 0.5  # vidorient's mean wall time at most half of ffprobe's
NOISY_CV = 0.10  # flag a command whose σ is over 10 % of its mean
BATCH_ORDER = [
    "vidorient inspect --json (all files, one process)",
    "sh loop: ffprobe per file",
    "sh loop: vidorient inspect --json per file",
    "exiftool -j (all files, one process)",
    "mediainfo --Output=JSON (all files, one process)",
]


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def read_rounds(tmp, stem, rounds):
    """Pools the runs of each command over the rounds stem-r0.json, stem-r1.json, ..."""
    times, round_means, cpu = {}, {}, {}
    for k in range(rounds):
        with open(os.path.join(tmp, f"{stem}-r{k}.json"), encoding="utf-8") as f:
            for r in json.load(f)["results"]:
                times.setdefault(r["command"], []).extend(r["times"])
                round_means.setdefault(r["command"], []).append(r["mean"])
                # hyperfine gives only the mean user and system time of a round.
                cpu.setdefault(r["command"], []).append((r["user"] + r["system"], len(r["times"])))
    out = {}
    for name, t in times.items():
        out[name] = {
            "mean": statistics.fmean(t),
            "stddev": statistics.stdev(t) if len(t) > 1 else 0.0,
            "median": statistics.median(t),
            "n": len(t),
            "rounds": round_means[name],
            "cpu": sum(c * n for c, n in cpu[name]) / sum(n for _, n in cpu[name]),
        }
    return out


def ms(seconds):
    return f"{seconds * 1000:.1f}"


def mean_sd(r):
    return f"{ms(r['mean'])} ± {ms(r['stddev'])}"


def ceil3(x):
    """Round up to three decimals, so a ratio is never shown better than it is."""
    return f"{math.ceil(x * 1000 - 1e-9) / 1000:.3f}"


def ratio(a, b):
    """a/b of the pooled means, and of each round's means."""
    per_round = [x / y for x, y in zip(a["rounds"], b["rounds"])]
    return a["mean"] / b["mean"], per_round


def verdict(pooled, per_round):
    if pooled <= TARGET and all(x <= TARGET for x in per_round):
        return "met"
    if pooled > TARGET and all(x > TARGET for x in per_round):
        return "**not met**"
    return "mixed: rounds disagree"


def spread(per_round):
    return f"{ceil3(min(per_round))}–{ceil3(max(per_round))}"


def mib(kb_list):
    return f"{statistics.median(kb_list) / 1024:.1f}"


def human_size(n):
    n = int(n)
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 / 1024:.1f} MiB"


def render(tmp):
    facts = dict(read_tsv(os.path.join(tmp, "facts.tsv")))
    files = read_tsv(os.path.join(tmp, "files.tsv"))
    rss = {}
    for key, tool, vals in read_tsv(os.path.join(tmp, "rss.tsv")):
        rss[(key, tool)] = [int(v) for v in vals.split(",")]
    rounds = int(facts["rounds"])
    floor = read_rounds(tmp, "hf-floor", rounds)
    per_file = [read_rounds(tmp, f"hf-file-{i}", rounds) for i in range(len(files))]
    batch = read_rounds(tmp, "hf-batch", rounds)
    paired = []
    for i in range(len(files)):
        with open(os.path.join(tmp, f"pairs-{i}.json"), encoding="utf-8") as f:
            paired.append(json.load(f))

    o = []
    p = o.append
    p(f"Run of {facts['date']}.")
    p("")
    p("#### Machine and versions")
    p("")
    p("| | |")
    p("| --- | --- |")
    p(f"| CPU | {facts['cpu']}, `nproc` = {facts['nproc']} |")
    p(f"| memory, kernel | {facts['memory']}, {facts['kernel']} |")
    p(f"| load average (1, 5, 15 min) at start / end | {facts['loadavg_start']} / {facts['loadavg_end']} |")
    p(f"| FFmpeg | {facts['ffmpeg']} ({facts['libav']}) |")
    p(f"| Swift | {facts['swift']} |")
    p(f"| vidorient | {facts['vidorient_version']}, built by `{facts['vidorient_build']}` |")
    if "commit" in facts:
        p(f"| commit | {facts['commit']} |")
    p(f"| exiftool, mediainfo, hyperfine | {facts['exiftool']}, {facts['mediainfo']}, {facts['hyperfine']} |")
    p(f"| settings | {facts['settings']} |")
    p("")

    p("#### The floor: starting a process")
    p("")
    p("| program | shared libraries (`ldd`) | wall mean ± σ (ms) | median (ms) | CPU user+sys (ms) | runs | peak RSS (MiB) |")
    p("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, libs_key, desc in [
        ("empty process", "libs_empty_process", "empty C program, no libraries"),
        ("empty-ffmpeg-link", "libs_empty_ffmpeg_link",
         "`bench/empty-ffmpeg-link.c` linked with libavformat, libavcodec, libavutil (vidorient's floor)"),
        ("empty-ffprobe-libs", "libs_empty_ffprobe_libs",
         f"the same program linked with the FFmpeg libraries ffprobe loads ({facts.get('probe_libs', '')}): ffprobe's floor"),
        ("vidorient --version", "libs_vidorient", "`vidorient --version` (floor + Swift runtime + argument parsing)"),
    ]:
        if name not in floor:
            continue
        r = floor[name]
        p(
            f"| {desc} | {facts[libs_key]} | {mean_sd(r)} | {ms(r['median'])} | {ms(r['cpu'])} | {r['n']} "
            f"| {mib(rss[('floor', name)])} |"
        )
    p("")
    p(
        f"Shared libraries (`ldd`) of the tools themselves: vidorient {facts['libs_vidorient']}, "
        f"ffprobe {facts['libs_ffprobe']}, mediainfo {facts['libs_mediainfo']} "
        "(exiftool is a Perl script; its cost is the interpreter and its modules)."
    )
    p("")

    p("#### One file per process: wall time, mean ± σ (ms)")
    p("")
    p("| file | size | vidorient | ffprobe | exiftool | mediainfo | floor (empty-ffmpeg-link, same batch) |")
    p("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (label, _path, size, _src), r in zip(files, per_file):
        p(
            f"| {label} | {human_size(size)} | "
            + " | ".join(mean_sd(r[t]) for t in TOOLS + ["empty-ffmpeg-link"])
            + " |"
        )
    p("")

    p("#### Ratios: vidorient's mean time over each tool's (lower is better for vidorient; rounded up)")
    p("")
    p(
        f"| file | vidorient ÷ ffprobe | over the {rounds} rounds | (medians) | (CPU user+sys) | target ≤ 0.50× ffprobe "
        "| ÷ exiftool | ÷ mediainfo | vidorient − floor (ms) | floor ÷ ffprobe |"
    )
    p("| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    met = 0
    for (label, *_), r in zip(files, per_file):
        v = r["vidorient"]
        fl = r["empty-ffmpeg-link"]
        rf, rounds_f = ratio(v, r["ffprobe"])
        med = v["median"] / r["ffprobe"]["median"]
        cpu = v["cpu"] / r["ffprobe"]["cpu"]
        verd = verdict(rf, rounds_f)
        met += verd == "met"
        re = v["mean"] / r["exiftool"]["mean"]
        rm = v["mean"] / r["mediainfo"]["mean"]
        work = v["mean"] - fl["mean"]
        best = fl["mean"] / r["ffprobe"]["mean"]
        p(
            f"| {label} | {ceil3(rf)}× | {spread(rounds_f)} | {ceil3(med)}× | {ceil3(cpu)}× | {verd} "
            f"| {ceil3(re)}× | {ceil3(rm)}× | {ms(work)} | {ceil3(best)}× |"
        )
    p("")
    p(
        f"Target (mean wall time of one `vidorient inspect --json FILE` at most 0.50× ffprobe's on the same file): "
        f"met on {met} of {len(files)} files. “Met” needs the pooled ratio and every round's ratio at or under "
        "0.50, “not met” all of them over it; anything else is “mixed”. The target is on wall time; "
        "the medians and the CPU time (user+sys, which waiting for a busy CPU does not inflate) are "
        "there to show how much of a ratio is noise."
    )
    p("")
    p(
        "“vidorient − floor” is vidorient's mean minus that of empty-ffmpeg-link timed in the same group: "
        "the time spent on anything but loading FFmpeg. “floor ÷ ffprobe” is the ratio vidorient would "
        "reach if it did no work at all beyond loading its libraries."
    )
    p("")

    p(
        f"#### Interleaved check: vidorient and ffprobe alternating run by run ({facts['pairs']} pairs per file, "
        "started from Python; rounded up)"
    )
    p("")
    p(
        "| file | vidorient mean ± σ (ms) | ffprobe mean ± σ (ms) | ratio of means | ~95 % interval "
        "| median of pair ratios | pair ratios, 10th–90th percentile | pairs at or under 0.50 | target ≤ 0.50× ffprobe |"
    )
    p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    counts = {}
    for (label, *_), pr in zip(files, paired):
        a, b = pr["a"], pr["b"]
        r = statistics.fmean(a) / statistics.fmean(b)
        lo, hi = bootstrap_ratio(a, b)
        verd = "met" if hi <= TARGET else "**not met**" if lo > TARGET else "at the line"
        counts[verd] = counts.get(verd, 0) + 1
        ratios = sorted(x / y for x, y in zip(a, b))
        dec = statistics.quantiles(ratios, n=10, method="inclusive")
        under = sum(x <= TARGET for x in ratios)
        p(
            f"| {label} | {ms(statistics.fmean(a))} ± {ms(statistics.stdev(a))} "
            f"| {ms(statistics.fmean(b))} ± {ms(statistics.stdev(b))} "
            f"| {ceil3(r)}× | {ceil3(lo)}–{ceil3(hi)} | {ceil3(statistics.median(ratios))}× "
            f"| {ceil3(dec[0])}–{ceil3(dec[-1])} | {under} of {len(ratios)} | {verd} |"
        )
    p("")
    p(
        "Each pair is one run of each, back to back (the order alternating), so both see the same load; "
        "the spread of the pair ratios is the run-to-run noise of the ratio itself. The interval is a "
        "bootstrap over the pairs (2000 resamples, fixed seed) of the ratio of means; “met” needs all of "
        "it at or under 0.50, “not met” all of it over, “at the line” is anything else. "
        "Interleaved verdicts: "
        + ", ".join(f"{k.strip('*')} on {v}" for k, v in sorted(counts.items()))
        + f" of {len(files)} files."
    )
    p("")

    p("#### Peak RSS, median of the runs (MiB)")
    p("")
    p("| file | vidorient | ffprobe | exiftool | mediainfo |")
    p("| --- | ---: | ---: | ---: | ---: |")
    for i, (label, *_) in enumerate(files):
        p(f"| {label} | " + " | ".join(mib(rss[(str(i), t)]) for t in TOOLS) + " |")
    p("")

    p(f"#### Batch: all {len(files)} files")
    p("")
    p(f"| command | wall mean ± σ (ms) | runs | ÷ ffprobe loop | over the {rounds} rounds |")
    p("| --- | ---: | ---: | ---: | ---: |")
    loop = batch["sh loop: ffprobe per file"]
    for name in BATCH_ORDER:
        r = batch[name]
        rr, per_round = ratio(r, loop)
        p(f"| {name} | {mean_sd(r)} | {r['n']} | {ceil3(rr)}× | {spread(per_round)} |")
    p("")

    noisy = []
    for name, r in floor.items():
        noisy.append((name, r))
    for (label, *_), r in zip(files, per_file):
        for t in TOOLS + ["empty-ffmpeg-link"]:
            noisy.append((f"{t} on {label}", r[t]))
    for name, r in batch.items():
        noisy.append((name, r))
    noisy = [(n, r) for n, r in noisy if r["stddev"] > NOISY_CV * r["mean"]]
    if noisy:
        p(
            f"Noisy (σ over {NOISY_CV:.0%} of the mean): "
            + "; ".join(f"{n} ({r['stddev'] / r['mean']:.0%})" for n, r in noisy)
            + "."
        )
    else:
        p(f"No command had σ over {NOISY_CV:.0%} of its mean.")
    return "\n".join(o) + "\n"


def bootstrap_ratio(a, b, resamples=2000):
    """~95 % interval of mean(a)/mean(b), resampling the pairs together."""
    rng = random.Random(20251122)
    n = len(a)
    out = []
    for _ in range(resamples):
        idx = [rng.randrange(n) for _ in range(n)]
        out.append(sum(a[i] for i in idx) / sum(b[i] for i in idx))
    out.sort()
    return out[int(0.025 * resamples)], out[int(0.975 * resamples) - 1]


def time_once(argv):
    start = time.perf_counter()
    code = subprocess.call(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if code != 0:
        sys.exit(f"inspect.sh: error: exit status {code} from {' '.join(argv)}")
    return elapsed


def pairs(out, n, warmup, a, b):
    """Times a and b alternately (a b, b a, a b, ...), n pairs after warm-up runs of each."""
    for _ in range(warmup):
        time_once(a)
        time_once(b)
    ta, tb = [], []
    for k in range(n):
        if k % 2 == 0:
            ta.append(time_once(a))
            tb.append(time_once(b))
        else:
            tb.append(time_once(b))
            ta.append(time_once(a))
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"a": ta, "b": tb}, f)


def find_markers(text, doc):
    """(begin, end) offsets of the markers, or None when neither is there."""
    b, e = text.count(BEGIN), text.count(END)
    if b == 0 and e == 0:
        return None
    if b != 1 or e != 1 or text.index(BEGIN) > text.index(END):
        sys.stderr.write(
            f"inspect.sh: error: {doc} has {b} and {e} of these markers, not one pair in order; "
            f"fix it by hand, nothing was written:\n  {BEGIN}\n  {END}\n"
        )
        sys.exit(1)
    return text.index(BEGIN), text.index(END)


def splice(doc, results_path):
    """Replaces the block between the markers, or appends a new block; the rest is kept.

    Other benchmarks keep their own sections of the same document and may edit it at the
    same time, so it is read right before it is written.
    """
    with open(results_path, encoding="utf-8") as f:
        block = BEGIN + "\n\n" + f.read().strip("\n") + "\n\n" + END
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    found = find_markers(text, doc)
    if found is None:
        new = text.rstrip("\n") + "\n\n" + block + "\n"
    else:
        b, e = found
        new = text[:b] + block + text[e + len(END):]
    with open(doc, "w", encoding="utf-8") as f:
        f.write(new)


def main(argv):
    if len(argv) == 3 and argv[1] == "render":
        sys.stdout.write(render(argv[2]))
    elif len(argv) >= 6 and argv[1] == "pairs":
        n, warmup, k = int(argv[3]), int(argv[4]), int(argv[5])
        words = argv[6:]
        pairs(argv[2], n, warmup, words[:k], words[k:])
    elif len(argv) == 3 and argv[1] == "check-doc":
        with open(argv[2], encoding="utf-8") as f:
            find_markers(f.read(), argv[2])
    elif len(argv) == 4 and argv[1] == "splice":
        splice(argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        sys.exit(64)


if __name__ == "__main__":
    main(sys.argv)
