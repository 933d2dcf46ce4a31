#!/usr/bin/env bash
# Benchmark `vidorient thumbnail` against ffmpeg and ffmpegthumbnailer on the same files, in
# one run (issue 3): one thumbnail per process, and a batch of 200 files; wall time, CPU
# time, peak RSS, and which way up each tool's picture is.
#
#   bash bench/thumbnail.sh            print the results as markdown on stdout
#   bash bench/thumbnail.sh --write    also replace the block between
#                                      <!-- BEGIN bench/thumbnail.sh results --> and
#                                      <!-- END bench/thumbnail.sh results --> in
#                                      docs/performance.md (appended when absent)
#
# Runnable from any directory. Builds the release binary the way users get it
# (swift build -c release --static-swift-stdlib --scratch-path .build-release) unless
# VIDORIENT_BIN names a binary to measure instead. Waits (up to BENCH_MAX_WAIT s) for the
# 1-minute load average to drop under BENCH_MAX_LOAD before measuring, and records it.
#
# Environment:
#   VIDORIENT_BIN        measure this binary, do not build
#   BENCH_WIDTH          thumbnail width W (default 320)
#   BENCH_WARMUP         hyperfine warm-up runs per command (default 3; >= 3 for --write)
#   BENCH_RUNS           hyperfine runs per command and round (default 20; >= 20 for --write)
#   BENCH_ROUNDS         rounds over the single files, the order rotating (default 3)
#   BENCH_RSS_RUNS       /usr/bin/time runs per single command for peak RSS (default 5)
#   BENCH_BATCH_FILES    files in the batch (default 200; >= 200 for --write)
#   BENCH_BATCH_ROUNDS   rounds over the batch, the order rotating (default 2)
#   BENCH_BATCH_RUNS     hyperfine runs of each batch command and round (default 3; 1 warm-up
#                        in the first round); rounds x runs >= 6 for --write
#   BENCH_MAX_LOAD       wait while the 1-minute load average is above this (default 1.5)
#   BENCH_MAX_WAIT       but at most this many seconds (default 600)
#   BENCH_MAX_OTHERS     time a group again when other processes took more than this many
#                        cores meanwhile (default 0.3), at most BENCH_RETRIES times (default 2),
#                        after waiting for a quiet moment (BENCH_GATE_WAIT s in all, default 900)
#
# Progress and tool chatter go to stderr; stdout carries only the markdown.
set -euo pipefail

NAME=thumbnail.sh
usage() { awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "${BASH_SOURCE[0]}"; }

# what was run, with the settings that differ from the defaults
INVOCATION="bash bench/thumbnail.sh $*"
for v in VIDORIENT_BIN BENCH_WIDTH BENCH_WARMUP BENCH_RUNS BENCH_ROUNDS BENCH_RSS_RUNS BENCH_BATCH_FILES BENCH_BATCH_ROUNDS BENCH_BATCH_RUNS BENCH_MAX_LOAD BENCH_MAX_WAIT BENCH_MAX_OTHERS BENCH_RETRIES BENCH_GATE_WAIT; do
    [[ -n ${!v:-} ]] && INVOCATION="$v=${!v} $INVOCATION"
done
INVOCATION=${INVOCATION% }

WRITE=0
for arg in "$@"; do
    case "$arg" in
        --write) WRITE=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "$NAME: unknown argument: $arg" >&2; usage >&2; exit 64 ;;
    esac
done

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
# shellcheck source=bench/bench_common.sh
source "$SCRIPT_DIR/bench_common.sh"

SHARED_MEDIA="$REPO_ROOT/../shared/media"
[[ -d $SHARED_MEDIA ]] && SHARED_MEDIA=$(cd "$SHARED_MEDIA" && pwd)
DOC="$REPO_ROOT/docs/performance.md"
REPORT_PY="$SCRIPT_DIR/thumbnail_report.py"
WORK="$REPO_ROOT/bench/work"

W=${BENCH_WIDTH:-320}
WARMUP=${BENCH_WARMUP:-3}
RUNS=${BENCH_RUNS:-20}
ROUNDS=${BENCH_ROUNDS:-3}
RSS_RUNS=${BENCH_RSS_RUNS:-5}
BATCH_FILES=${BENCH_BATCH_FILES:-200}
BATCH_RUNS=${BENCH_BATCH_RUNS:-3}
BATCH_ROUNDS=${BENCH_BATCH_ROUNDS:-2}
whole_number W WARMUP RUNS ROUNDS RSS_RUNS BATCH_FILES BATCH_RUNS BATCH_ROUNDS
(( W >= 16 && RUNS >= 2 && ROUNDS >= 1 && RSS_RUNS >= 1 && BATCH_FILES >= 1 && BATCH_RUNS >= 2 && BATCH_ROUNDS >= 1 )) ||
    die "need BENCH_WIDTH >= 16, BENCH_RUNS >= 2, BENCH_ROUNDS >= 1, BENCH_RSS_RUNS >= 1, BENCH_BATCH_FILES >= 1, BENCH_BATCH_RUNS >= 2, BENCH_BATCH_ROUNDS >= 1"
if (( WRITE )) && (( WARMUP < 3 || RUNS < 20 || RSS_RUNS < 5 || BATCH_FILES < 200 || BATCH_RUNS * BATCH_ROUNDS < 6 || W != 320 )); then
    die "--write needs BENCH_WARMUP >= 3, BENCH_RUNS >= 20, BENCH_RSS_RUNS >= 5, BENCH_BATCH_FILES >= 200, BENCH_BATCH_RUNS x BENCH_BATCH_ROUNDS >= 6 and BENCH_WIDTH = 320"
fi

# ---------------------------------------------------------------- tools ---

need hyperfine hyperfine
need ffmpeg ffmpeg
need ffprobe ffmpeg
need ffmpegthumbnailer ffmpegthumbnailer
need /usr/bin/time time
need python3 python3
need xargs findutils
check_needs
for f in "$REPORT_PY" "$SCRIPT_DIR/perfdoc.py" "$REPO_ROOT/TestMedia/manifest.json"; do
    [[ -f $f ]] || die "$f is missing (part of this benchmark)"
done
if (( WRITE )); then python3 "$SCRIPT_DIR/perfdoc.py" check "$DOC" bench/thumbnail.sh; fi

build_vidorient

TMP=$(mktemp -d "${TMPDIR:-/tmp}/vidorient-bench-thumbnail.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
snapshot_vidorient
mkdir -p "$TMP/out" "$TMP/run"

# ---------------------------------------------------------------- files ---

is_photo() { case "${1,,}" in *.jpg | *.jpeg | *.png | *.heic | *.webp | *.tif | *.tiff | *.bmp) return 0 ;; esac; return 1; }
# seek_time FILE: 10 % of the duration (what ffmpegthumbnailer and vidorient default to), or
# "-" for a photo (ffmpeg -ss on a still writes nothing).
seek_time() {
    if is_photo "$1"; then printf -- '-'; return; fi
    local d
    d=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$1")
    [[ $d =~ ^[0-9.]+$ ]] || die "ffprobe gives no duration for $1 ('$d')"
    awk -v d="$d" 'BEGIN { printf "%.3f", d * 0.1 }'
}

FILES=()
TIMES=()
: >"$TMP/files.tsv"
add_file() { # add_file PATH LABEL SOURCE
    local i=${#FILES[@]} t kind=video
    t=$(seek_time "$1")
    is_photo "$1" && kind=photo
    FILES+=("$1")
    TIMES+=("$t")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$2" "$1" "$kind" "$t" "$3" "$(stat -c %s "$1")" >>"$TMP/files.tsv"
}
for name in orient-6.mp4 orient-7-hevc.mov orient-5.jpg; do
    [[ -f $REPO_ROOT/TestMedia/$name ]] || die "TestMedia/$name is missing (bash TestMedia/generate.sh)"
    add_file "$REPO_ROOT/TestMedia/$name" "TestMedia/$name" TestMedia
done
if [[ -d $SHARED_MEDIA ]]; then
    for name in iphone_rotated.mov dolbyVision-hdr.MOV sample_rotate_and_reflect.mp4 Landscape_6.jpg; do
        if [[ -f $SHARED_MEDIA/$name ]]; then
            add_file "$SHARED_MEDIA/$name" "shared/media/$name" shared
        else
            log "warning: shared/media/$name is missing; skipped"
        fi
    done
else
    log "no ../shared/media beside the repository; only TestMedia files are measured"
fi

# ------------------------------------------------------------- commands ---

TOOLS=(vidorient ffmpeg ffmpegthumbnailer)
tool_argv() { # tool_argv TOOL INDEX OUT.png -> ARGV
    local f=${FILES[$2]} t=${TIMES[$2]}
    case "$1" in
        vidorient) ARGV=("$VIDORIENT" thumbnail "$f" -o "$3" --width "$W") ;;
        ffmpeg)
            if [[ $t == - ]]; then
                ARGV=(ffmpeg -v error -y -i "$f" -frames:v 1 -vf "scale=$W:-2" "$3")
            else
                ARGV=(ffmpeg -v error -y -ss "$t" -i "$f" -frames:v 1 -vf "scale=$W:-2" "$3")
            fi ;;
        ffmpegthumbnailer) ARGV=(ffmpegthumbnailer -i "$f" -o "$3" -s "$W") ;;
    esac
}

# Every command once, before anything is timed: it must succeed and write a picture (ffmpeg
# exits 0 having written nothing in some cases). These pictures are the ones checked.
log "checking every command once (and keeping the pictures for the correctness check)"
for i in "${!FILES[@]}"; do
    for t in "${TOOLS[@]}"; do
        tool_argv "$t" "$i" "$TMP/out/$t-$i.png"
        if ! "${ARGV[@]}" </dev/null >/dev/null 2>"$TMP/preflight.err"; then
            cat "$TMP/preflight.err" >&2
            die "this command failed, so it cannot be measured: $(cmdline "${ARGV[@]}")"
        fi
        [[ -s $TMP/out/$t-$i.png ]] || log "warning: $t wrote no picture for ${FILES[$i]}: $(cmdline "${ARGV[@]}")"
    done
done
log "checking which way up each picture is"
python3 "$REPORT_PY" correctness "$TMP" "$REPO_ROOT/TestMedia/manifest.json"

# ---------------------------------------------------------------- batch ---

# BATCH_FILES copies under bench/work/thumbnail-batch, mixed: with ../shared/media, of every 20
# files 8 are TestMedia clips, 2 TestMedia JPEGs, 7 phone clips, 3 phone JPEGs; without it,
# 16 TestMedia clips and 4 JPEGs.
BATCH_DIR="$WORK/thumbnail-batch"
TM_CLIPS=() TM_PHOTOS=() SH_CLIPS=() SH_PHOTOS=()
for n in 1 2 3 4 5 6 7 8; do
    TM_CLIPS+=("$REPO_ROOT/TestMedia/orient-$n.mp4" "$REPO_ROOT/TestMedia/orient-$n-hevc.mov")
    TM_PHOTOS+=("$REPO_ROOT/TestMedia/orient-$n.jpg")
done
TM_CLIPS+=("$REPO_ROOT/TestMedia/audio-first.mov" "$REPO_ROOT/TestMedia/anamorphic-6.mp4" "$REPO_ROOT/TestMedia/odd-angle-30.mp4")
if [[ -d $SHARED_MEDIA ]]; then
    for n in iphone_rotated.mov dolbyVision-hdr.MOV sample_rotate_and_reflect.mp4 sample.mp4 sample_portrait.mp4; do
        [[ -f $SHARED_MEDIA/$n ]] && SH_CLIPS+=("$SHARED_MEDIA/$n")
    done
    for n in 0 1 2 3 4 5 6 7 8; do
        [[ -f $SHARED_MEDIA/Landscape_$n.jpg ]] && SH_PHOTOS+=("$SHARED_MEDIA/Landscape_$n.jpg")
    done
fi
for f in "${TM_CLIPS[@]}" "${TM_PHOTOS[@]}"; do [[ -f $f ]] || die "$f is missing (bash TestMedia/generate.sh)"; done
if (( ${#SH_CLIPS[@]} && ${#SH_PHOTOS[@]} )); then
    PATTERN=(tc tc tc tc tc tc tc tc tp tp sc sc sc sc sc sc sc sp sp sp)
    COMPOSITION="of every 20, 8 TestMedia clips (${#TM_CLIPS[@]} kinds, 160x96 H.264/HEVC), 2 TestMedia JPEGs, 7 phone clips ($(printf '%s\n' "${SH_CLIPS[@]}" | sed 's,.*/,,' | paste -sd, | sed 's/,/, /g')) and 3 phone JPEGs (Landscape_0…8.jpg, 1800x1200)"
else
    PATTERN=(tc tc tc tc tc tc tc tc tp tp)
    COMPOSITION="of every 10, 8 TestMedia clips (${#TM_CLIPS[@]} kinds) and 2 TestMedia JPEGs (../shared/media absent)"
fi
rm -rf "$BATCH_DIR"
mkdir -p "$BATCH_DIR"
BATCH=()
declare -A seen=()
for ((k = 0; k < BATCH_FILES; k++)); do
    kind=${PATTERN[k % ${#PATTERN[@]}]}
    c=${seen[$kind]:-0}
    seen[$kind]=$((c + 1))
    case $kind in
        tc) src=${TM_CLIPS[c % ${#TM_CLIPS[@]}]} ;;
        tp) src=${TM_PHOTOS[c % ${#TM_PHOTOS[@]}]} ;;
        sc) src=${SH_CLIPS[c % ${#SH_CLIPS[@]}]} ;;
        sp) src=${SH_PHOTOS[c % ${#SH_PHOTOS[@]}]} ;;
    esac
    dst="$BATCH_DIR/$(printf '%04d' "$k")-${src##*/}"
    cp "$src" "$dst"
    chmod u+w "$dst"
    BATCH+=("$dst")
done
# time/file pairs for the ffmpeg loops ("-" for photos: no -ss)
PAIRS=()
: >"$TMP/pairs.bin"
printf '%s\0' "${BATCH[@]}" >"$TMP/batch.bin"
for f in "${BATCH[@]}"; do
    t=$(seek_time "$f")
    PAIRS+=("$t" "$f")
    printf '%s\0%s\0' "$t" "$f" >>"$TMP/pairs.bin"
done
NPROC=$(nproc)
mkdir -p "$TMP/batch-vidorient" "$TMP/batch-ffmpeg" "$TMP/batch-thumbnailer" "$TMP/batch-ffmpeg-p" "$TMP/batch-thumbnailer-p"
FF_ONE='if [ "$1" = - ]; then ffmpeg -nostdin -v error -y -i "$2" -frames:v 1 -vf scale='"$W"':-2 "$0/${2##*/}.png"; else ffmpeg -nostdin -v error -y -ss "$1" -i "$2" -frames:v 1 -vf scale='"$W"':-2 "$0/${2##*/}.png"; fi'
FF_LOOP='d=$1; shift; while [ $# -gt 1 ]; do if [ "$1" = - ]; then ffmpeg -nostdin -v error -y -i "$2" -frames:v 1 -vf scale='"$W"':-2 "$d/${2##*/}.png"; else ffmpeg -nostdin -v error -y -ss "$1" -i "$2" -frames:v 1 -vf scale='"$W"':-2 "$d/${2##*/}.png"; fi; shift 2; done'
TH_LOOP='d=$1; shift; for f; do ffmpegthumbnailer -i "$f" -o "$d/${f##*/}.png" -s '"$W"'; done'
TH_ONE='ffmpegthumbnailer -i "$1" -o "$0/${1##*/}.png" -s '"$W"
BATCH_NAMES=(
    "vidorient thumbnail --out-dir D --width $W FILES (one process)"
    "sh loop: ffmpeg per file"
    "sh loop: ffmpegthumbnailer per file"
    "xargs -P $NPROC: ffmpeg per file, $NPROC at once"
    "xargs -P $NPROC: ffmpegthumbnailer per file, $NPROC at once"
)
BATCH_ARGV_0=("$VIDORIENT" thumbnail --out-dir "$TMP/batch-vidorient" --width "$W" "${BATCH[@]}")
BATCH_ARGV_1=(sh -c "$FF_LOOP" sh "$TMP/batch-ffmpeg" "${PAIRS[@]}")
BATCH_ARGV_2=(sh -c "$TH_LOOP" sh "$TMP/batch-thumbnailer" "${BATCH[@]}")
BATCH_ARGV_3=(xargs -0 -a "$TMP/pairs.bin" -n 2 -P "$NPROC" sh -c "$FF_ONE" "$TMP/batch-ffmpeg-p")
BATCH_ARGV_4=(xargs -0 -a "$TMP/batch.bin" -n 1 -P "$NPROC" sh -c "$TH_ONE" "$TMP/batch-thumbnailer-p")
for k in "${!BATCH_NAMES[@]}"; do printf '%s\t%s\n' "$k" "${BATCH_NAMES[k]}"; done >"$TMP/batch-names.tsv"
BATCH_OUTDIRS=(batch-vidorient batch-ffmpeg batch-thumbnailer batch-ffmpeg-p batch-thumbnailer-p)

printf 'cmd-0\t%s\n' "$(cmdline vidorient thumbnail --out-dir D --width "$W") bench/work/thumbnail-batch/* (the $BATCH_FILES files as arguments)" >"$TMP/batch-cmds.tsv"
printf 'cmd-1\t%s\n' "$(cmdline sh -c "$FF_LOOP" sh D) T1 FILE1 T2 FILE2 …" >>"$TMP/batch-cmds.tsv"
printf 'cmd-2\t%s\n' "$(cmdline sh -c "$TH_LOOP" sh D) FILE1 FILE2 …" >>"$TMP/batch-cmds.tsv"
printf 'cmd-3\t%s\n' "$(cmdline xargs -0 -a PAIRS -n 2 -P "$NPROC" sh -c "$FF_ONE" D)   # PAIRS: T1 NUL FILE1 NUL T2 NUL …" >>"$TMP/batch-cmds.tsv"
printf 'cmd-4\t%s\n' "$(cmdline xargs -0 -a LIST -n 1 -P "$NPROC" sh -c "$TH_ONE" D)   # LIST: FILE1 NUL FILE2 NUL …" >>"$TMP/batch-cmds.tsv"
log "checking every batch command once"
: >"$TMP/batch.tsv"
for k in 0 1 2 3 4; do
    declare -n argv="BATCH_ARGV_$k"
    rc=0
    "${argv[@]}" </dev/null >/dev/null 2>"$TMP/preflight.err" || rc=$?
    unset -n argv
    written=$(find "$TMP/${BATCH_OUTDIRS[k]}" -name '*.png' -size +0 | wc -l)
    printf 'written-%s\t%s of %s (exit status %s)\n' "$k" "$written" "$BATCH_FILES" "$rc" >>"$TMP/batch.tsv"
    if (( rc != 0 )); then
        tail -n 20 "$TMP/preflight.err" >&2
        die "batch command ${BATCH_NAMES[k]} exited with $rc"
    fi
    (( written == BATCH_FILES )) || log "warning: ${BATCH_NAMES[k]} wrote $written pictures for $BATCH_FILES files"
done
printf 'files\t%s\n' "$BATCH_FILES" >>"$TMP/batch.tsv"
printf 'composition\t%s\n' "$COMPOSITION" >>"$TMP/batch.tsv"
printf 'settings\t%s\n' "$BATCH_ROUNDS rounds of hyperfine -N --runs $BATCH_RUNS --output=null (1 warm-up run in the first), the order of the commands rotating from round to round; each command wrapped in \`/usr/bin/time -f %M\` for its peak RSS (median over the runs, warm-up included); CPU is user + system of the whole process tree. The \`xargs -P $NPROC\` rows are extra: the per-file tools run $NPROC at once, as a careful script would." >>"$TMP/batch.tsv"

# ---------------------------------------------------------------- facts ---

: >"$TMP/facts.tsv"
wait_for_quiet
fact loadavg_start "$LOAD_AT_START"
fact waited "$WAITED"
machine_facts
fact ffmpegthumbnailer "$(ffmpegthumbnailer -v 2>&1 | grep -o '[0-9][0-9.]*' | head -n1 || echo unknown)"
fact hyperfine "$(hyperfine --version | awk '{print $2}')"
fact rounds "$ROUNDS"
fact invocation "$INVOCATION"
fact settings "single files: $ROUNDS rounds of hyperfine -N --warmup $WARMUP --runs $RUNS --output=null per file (the three commands of a file in one hyperfine run, their order rotating from round to round); peak RSS: median of $RSS_RUNS runs of /usr/bin/time -f %M"

# ---------------------------------------------------------- single files ---

# run_gated TAG COMMAND...: run a timing command (its output to stderr), again when other
# processes took too much of the machine meanwhile (see bench_common.sh); record their share.
: >"$TMP/others.tsv"
run_gated() {
    local tag=$1 attempt o
    shift
    for ((attempt = 0; attempt <= RETRIES; attempt++)); do
        await_quiet
        busy_mark "$tag-start"
        "$@" >&2
        busy_mark "$tag-end"
        o=$(others_between "$tag-start" "$tag-end")
        if too_busy "$o" && (( attempt < RETRIES )) && gate_open; then
            log "  other processes took $o cores meanwhile; timing it again"
            DISCARDED=$((DISCARDED + 1))
            continue
        fi
        break
    done
    printf '%s\t%s\n' "$tag" "$o" >>"$TMP/others.tsv"
}

HF=(hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --output=null --style basic)
for ((round = 0; round < ROUNDS; round++)); do
    for i in "${!FILES[@]}"; do
        log "round $((round + 1)) of $ROUNDS: ${FILES[$i]}"
        args=()
        for ((k = 0; k < ${#TOOLS[@]}; k++)); do
            t=${TOOLS[(k + round) % ${#TOOLS[@]}]}
            tool_argv "$t" "$i" "$TMP/run/$t-$i.png"
            args+=(-n "$t" "$(cmdline "${ARGV[@]}")")
        done
        run_gated "single-$i-r$round" "${HF[@]}" --export-json "$TMP/hf-single-$i-r$round.json" "${args[@]}"
    done
done

log "peak RSS of the single commands ($RSS_RUNS runs each)"
: >"$TMP/rss.tsv"
for i in "${!FILES[@]}"; do
    for t in "${TOOLS[@]}"; do
        tool_argv "$t" "$i" "$TMP/run/$t-$i.png"
        vals=""
        for ((n = 0; n < RSS_RUNS; n++)); do
            /usr/bin/time -f %M -o "$TMP/rss.one" "${ARGV[@]}" </dev/null >/dev/null 2>&1 ||
                die "failed while measuring peak RSS: $(cmdline "${ARGV[@]}")"
            vals+="${vals:+,}$(tail -n1 "$TMP/rss.one")"
        done
        printf '%s\t%s\t%s\n' "$i" "$t" "$vals" >>"$TMP/rss.tsv"
    done
done

# ---------------------------------------------------------------- batch ---

for k in 0 1 2 3 4; do : >"$TMP/batch-rss-$k.txt"; done
for ((round = 0; round < BATCH_ROUNDS; round++)); do
    log "round $((round + 1)) of $BATCH_ROUNDS: the batch of $BATCH_FILES files (hyperfine --runs $BATCH_RUNS each; minutes)"
    args=()
    for ((j = 0; j < 5; j++)); do
        k=$(((j + round) % 5))
        declare -n argv="BATCH_ARGV_$k"
        args+=(-n "${BATCH_NAMES[k]}" "$(cmdline /usr/bin/time -a -o "$TMP/batch-rss-$k.txt" -f %M "${argv[@]}")")
        unset -n argv
    done
    warm=0
    (( round == 0 )) && warm=1
    run_gated "batch-r$round" hyperfine -N --warmup "$warm" --runs "$BATCH_RUNS" --output=null --style basic \
        --export-json "$TMP/hf-batch-r$round.json" "${args[@]}"
done
fact batch_rounds "$BATCH_ROUNDS"

fact loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
fact discarded "$DISCARDED"
fact gate "$GATE_SPENT s of waiting for quiet moments (budget $GATE_WAIT s); a hyperfine run is run again (at most $RETRIES times) when other processes took more than $MAX_OTHERS cores during it"

# ---------------------------------------------------------------- report ---

python3 "$REPORT_PY" render "$TMP" >"$TMP/results.md"
cat "$TMP/results.md"
if (( WRITE )); then
    python3 "$SCRIPT_DIR/perfdoc.py" splice "$DOC" bench/thumbnail.sh "$TMP/results.md"
    log "wrote the bench/thumbnail.sh block of $DOC"
fi
