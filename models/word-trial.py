#!/usr/bin/env python3
"""Tesseract's recogniser, tried on pages of text and screens (docs/content.md, "Words where the
orientation detection is silent"): the trial that chose the numbers of vidorient's word counts
(ContentPolicy.wordCount, wordRatio, wordConfidence, wordLetters; ContentEngine.wordSide) for the
pages Tesseract's orientation detection leaves without an answer. The engine does the same since
(vo_content_word_counts), through Tesseract's C API rather than its command.

Each picture (its orientation applied, as OpenCV reads it) is fitted to SIDE pixels on its longest
side (enlarged with cubic interpolation at most twice, or shrunk by area averaging), then read by
`tesseract - - --psm 4 -l eng -c textord_tabfind_vertical_text=0 tsv` in its four quarter turns
clockwise. `--psm 4` takes the page as one column: the automatic layout (`--psm 3`) reads a page
turned a quarter turn anticlockwise as well as upright (it turns what it takes for vertical text).
A word counts when its confidence and its letters (ASCII letters and any character beyond ASCII)
reach the setting's; the turn with the most decides when it has at least N and R times any other's.

Which pictures are which comes from the binary's own audit of them (`audit --content --jsonl`):
the upright copies of the text-choose pages (bench/run.py content makes them in
bench/work/content-photos-text-choose/t0: each is upright, so the right turn is 0) and photos of
the choosing splits. For each setting: the pages the binary left without an opinion (at the
likeness gate, and under it), the pages its text or letter shapes decided (are the words right
there too?), and how many photos the words would answer.
A page is read in its four turns once: its other three turns give the same four counts, shifted.

    vidorient audit --content --jsonl --no-progress bench/work/content-photos-text-choose/t0 > /tmp/pages.jsonl
    vidorient audit --content --follow-symlinks --jsonl --no-progress CHOOSING-PHOTOS > /tmp/photos.jsonl
    /usr/bin/python3 models/word-trial.py --audit /tmp/pages.jsonl --out /tmp/pages-words.json
    /usr/bin/python3 models/word-trial.py --audit /tmp/photos.jsonl --out /tmp/photos-words.json \\
        --only-likeness 0.1 --also-sample 30
    /usr/bin/python3 models/word-trial.py --summarize /tmp/pages.jsonl /tmp/pages-words.json \\
        --photos /tmp/photos-words.json
"""
import argparse, csv, io, itertools, json, os, random, subprocess, sys, time
from multiprocessing import Pool

SIDE = 2400
TURNS = [None, "ROTATE_90_CLOCKWISE", "ROTATE_180", "ROTATE_90_COUNTERCLOCKWISE"]


def read_turns(path):
    """Every word Tesseract reads in each quarter turn of the picture: [(confidence, text)] × 4."""
    import cv2
    picture = cv2.imread(path, cv2.IMREAD_COLOR)
    if picture is None:
        return path, None
    height, width = picture.shape[:2]
    scale = min(2.0, SIDE / max(height, width))
    picture = cv2.resize(picture, (round(width * scale), round(height * scale)),
                         interpolation=cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA)
    began, turns = time.time(), []
    for turn in TURNS:
        turned = picture if turn is None else cv2.rotate(picture, getattr(cv2, turn))
        png = cv2.imencode(".png", turned)[1].tobytes()
        out = subprocess.run(["timeout", "30", "tesseract", "stdin", "stdout", "--psm", "4", "-l", "eng", "-c",
                              "textord_tabfind_vertical_text=0", "tsv"], input=png, capture_output=True,
                             env=dict(os.environ, OMP_THREAD_LIMIT="1"))
        words = []
        for row in csv.DictReader(io.StringIO(out.stdout.decode("utf8", "replace")), delimiter="\t",
                                  quoting=csv.QUOTE_NONE):
            if row.get("level") == "5":
                try:
                    words.append((float(row["conf"]), row["text"]))
                except (TypeError, ValueError):
                    pass
        turns.append(words)
    return path, {"words": turns, "secs": time.time() - began}


def letters(text):
    return sum(1 for ch in text if "a" <= ch <= "z" or "A" <= ch <= "Z" or ord(ch) > 127)


def counts(read, confidence, least_letters):
    return [sum(1 for c, t in words if c >= confidence and letters(t) >= least_letters) for words in read["words"]]


def decide(found, least, ratio):
    """The turn with the most words, as ContentPolicy's WordCounts.turn decides; None for no opinion."""
    best = max(range(4), key=lambda k: (found[k], -k))
    others = max(found[k] for k in range(4) if k != best)
    return best if found[best] >= least and found[best] >= ratio * others else None


def summarize(audit, pages, photos):
    verdicts = {}
    for line in open(audit):
        record = json.loads(line)
        verdicts[record["path"]] = record.get("content")
    print("| confidence | letters | N | R | silent pages at the gate: right, wrong | under the gate: right, wrong "
          "| letter shapes decided: words right, wrong, silent | text decided: words right, wrong | photos answered |")
    print("| ---: | ---: | ---: | ---: | --- | --- | --- | --- | ---: |")
    for confidence, least_letters, least, ratio in itertools.product([70, 80, 90], [3, 4], [3, 5, 8], [2, 3, 4]):
        tally = {key: 0 for key in ("gr", "gw", "ur", "uw", "la", "ld", "ln", "tr", "tw")}
        for path, read in pages.items():
            content = verdicts.get(path)
            if read is None or content is None:
                continue
            turn = decide(counts(read, confidence, least_letters), least, ratio)
            if content["decided_by"] is None:
                key = "g" if (content["text_likeness"] or 0) >= 0.5 else "u"
                if turn is not None:
                    tally[key + ("r" if turn == 0 else "w")] += 1
            elif content["decided_by"] == "letter-shapes":
                tally["l" + ("n" if turn is None else "a" if turn == 0 else "d")] += 1
            elif turn is not None:
                tally["t" + ("r" if turn == 0 else "w")] += 1
        answered = sum(1 for read in photos.values()
                       if read is not None and decide(counts(read, confidence, least_letters), least, ratio) is not None)
        print(f"| {confidence} | {least_letters} | {least} | {ratio} | {tally['gr']}, {tally['gw']} | {tally['ur']}, "
              f"{tally['uw']} | {tally['la']}, {tally['ld']}, {tally['ln']} | {tally['tr']}, {tally['tw']} | {answered} |")
    seconds = sorted(read["secs"] for read in pages.values() if read)
    if seconds:
        print(f"\nfour turns read in {seconds[len(seconds) // 2]:.1f} s (median), {seconds[-1]:.1f} s at most "
              f"({len(seconds)} pictures, through the command, two at once)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--audit", help="the binary's audit --content --jsonl of the pictures")
    ap.add_argument("--out", help="where the words read are written (JSON)")
    ap.add_argument("--only-likeness", type=float, help="only the pictures at this text likeness or more")
    ap.add_argument("--also-sample", type=int, default=0, help="and this many of the others, at random")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--summarize", nargs=2, metavar=("AUDIT", "WORDS"))
    ap.add_argument("--photos", help="words read in photos (JSON from --out), for how many they would answer")
    args = ap.parse_args()
    if args.summarize:
        photos = json.load(open(args.photos)) if args.photos else {}
        summarize(args.summarize[0], json.load(open(args.summarize[1])), photos)
        return
    records = [json.loads(line) for line in open(args.audit)]
    paths = [r["path"] for r in records if r.get("content")]
    if args.only_likeness is not None:
        likeness = {r["path"]: r["content"]["text_likeness"] or 0 for r in records if r.get("content")}
        kept = [p for p in paths if likeness[p] >= args.only_likeness]
        rest = [p for p in paths if likeness[p] < args.only_likeness]
        paths = kept + random.Random(1).sample(rest, min(args.also_sample, len(rest)))
    found = {}
    with Pool(args.jobs) as pool:
        for path, read in pool.imap_unordered(read_turns, paths):
            found[path] = read
            print(path, read and [len(w) for w in read["words"]], file=sys.stderr, flush=True)
    json.dump(found, open(args.out, "w"))


if __name__ == "__main__":
    main()
