#!/usr/bin/env bash
# Makes the committed seed corpus, Fuzz/corpus/TARGET/, from TestMedia with a built vidorient:
#   bash Fuzz/make-corpus.sh [VIDORIENT]     (default .build/debug/vidorient)
# The photo and box targets seed from TestMedia's files directly (Fuzz/run.sh), so only what
# TestMedia does not hold as a file is made here:
#   lists/      what `fix --from-audit` and `fix --undo` read: `audit --jsonl` and `audit --json` of
#               TestMedia's photos and movies, and the journal of fixing copies of them (their
#               paths made relative and the temporary folder's name replaced, so the seeds are the
#               same on every machine), and a few lines cut short or holding raw bytes.
#   arguments/  times, a matrix, names with escapes and bytes that are not UTF-8.
# Deterministic: run twice, the same bytes (a fixed scratch folder; ids, mtimes and timings replaced).
set -euo pipefail
cd "$(dirname "$0")/.."
vidorient=$(realpath "${1:-.build/debug/vidorient}")
out=Fuzz/corpus
rm -rf "$out/lists" "$out/arguments"
mkdir -p "$out/lists" "$out/arguments"

printf '%s' 12.5 > "$out/arguments/time"
printf '%s' 01:02:03.250 > "$out/arguments/clock"
printf '%s' 0,1,-1,0 > "$out/arguments/matrix"
printf '%s' 'a\x1b[2J.mp4' > "$out/arguments/name"
printf 'caf\351\377\357\237\251.mp4' > "$out/arguments/bytes"

# A fixed folder: the journal records resolved paths (`target`, `target_bytes`).
scratch=/tmp/vidorient-fuzz-corpus
rm -rf "$scratch"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/media"
for name in orient-6.jpg orient-3.png orient-8.webp orient-5-mm.tif orient-6.heic orient-2.avif orient-6.mp4 \
  orient-7.mp4 heic-exif-conflict.heic jpeg-xmp-conflict.jpg scaled-2x.mp4; do
  cp "TestMedia/$name" "$scratch/media/"
done
# A name that is not UTF-8 (path_bytes) and one holding a newline.
cp TestMedia/orient-6.jpg "$scratch/media/$(printf 'caf\351.jpg')"
cp TestMedia/orient-3.png "$scratch/media/$(printf 'two\nlines.png')"

# From inside the folder: the paths in the output are relative, the same on every machine.
# Exit 1 (findings) is the expected answer here.
(cd "$scratch/media" && { "$vidorient" audit --jobs 1 --jsonl . > ../audit.jsonl || [ $? = 1 ]; })
(cd "$scratch/media" && { "$vidorient" audit --jobs 1 --json . > ../audit.json || [ $? = 1 ]; })
sort "$scratch/audit.jsonl" > "$out/lists/audit.jsonl"
# The summary's timings are this run's.
sed -E 's/"files_per_second":[0-9.]+/"files_per_second":100/; s/"seconds":[0-9.]+/"seconds":0.1/' "$scratch/audit.json" \
  > "$out/lists/audit.json"
head -c 300 "$out/lists/audit.jsonl" > "$out/lists/audit-cut.jsonl"
grep -m1 path_bytes "$out/lists/audit.jsonl" > "$out/lists/audit-bytes.jsonl" || true
# The journal: the audit's one suggested fix (scaled-2x.mp4's), then every file turned to 3.
(cd "$scratch/media" && { "$vidorient" fix --from-audit ../audit.jsonl --journal ../journal.jsonl > /dev/null 2>&1 || true; })
(cd "$scratch/media" && { "$vidorient" fix --orientation 3 --journal ../journal.jsonl ./* > /dev/null 2>&1 || true; })
# A journal's ids and mtimes are this run's: made the same on every machine.
sed -E 's/"id":"[^"]*"/"id":"1-0-1"/g; s/"mtime_ns":[0-9]+/"mtime_ns":1700000000000000000/g' \
  "$scratch/journal.jsonl" | sort > "$out/lists/journal.jsonl"
head -c 500 "$out/lists/journal.jsonl" > "$out/lists/journal-cut.jsonl"
echo "made $(ls "$out/lists" | wc -l) list seeds and $(ls "$out/arguments" | wc -l) argument seeds in $out" >&2
