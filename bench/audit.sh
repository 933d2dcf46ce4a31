#!/usr/bin/env bash
# Benchmark `vidorient audit` against `exiftool -r -j` and `mediainfo --Output=JSON` on the
# same generated library, in one run (issue 5): files per second, CPU time and peak RSS with a
# warm cache; vidorient's peak RSS again at 10x the files, and vidorient --deep.
#
#   bash bench/audit.sh            print the results as markdown on stdout
#   bash bench/audit.sh --write    also replace the block between
#                                  <!-- BEGIN bench/audit.sh results --> and
#                                  <!-- END bench/audit.sh results --> in docs/performance.md
#                                  (appended when absent)
#
# Runnable from any directory. Builds the release binary the way users get it
# (swift build -c release --static-swift-stdlib --scratch-path .build-release) unless
# VIDORIENT_BIN names a binary to measure instead. The libraries go to bench/work/ (git-ignored;
# made by bench/make_library.py, kept and reused while their recipe is unchanged):
#   library        BENCH_FILES files (default 5000): copies of phone-sized clips, JPEGs, bad files
#   library-clips  BENCH_FILES hard links to the clips of library: the clips-only target
#   library-sub    every 10th file of library, hard-linked: the same mix at a tenth of the size
#   library-x10    BENCH_TIMES (default 10) hard-linked copies of library: the memory check
# Waits (up to BENCH_MAX_WAIT s) for the 1-minute load average to drop under BENCH_MAX_LOAD
# before measuring, and records it. Takes 10 to 30 minutes, depending on how busy the machine is.
#
# Environment:
#   VIDORIENT_BIN    measure this binary, do not build
#   BENCH_FILES      files in the library (default 5000; >= 5000 for --write)
#   BENCH_TIMES      the large library is this many times the files (default 10; >= 10 for --write)
#   BENCH_ROUNDS     rounds, each running every command, the order rotating (default 2; >= 2 for --write)
#   BENCH_REPS       runs per round of the quick vidorient commands (default 3)
#   BENCH_MAX_LOAD   wait while the 1-minute load average is above this (default 1.5)
#   BENCH_MAX_WAIT   but at most this many seconds (default 600)
#   BENCH_MAX_OTHERS run a measurement again when other processes took more than this many
#                    cores during it (default 0.3), at most BENCH_RETRIES times (default 2),
#                    after waiting for a quiet moment (BENCH_GATE_WAIT s in all, default 900)
#   BENCH_WORK       where the libraries go (default bench/work)
#
# Progress and tool chatter go to stderr; stdout carries only the markdown.
set -euo pipefail

NAME=audit.sh
usage() { awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "${BASH_SOURCE[0]}"; }

INVOCATION="bash bench/audit.sh $*"
for v in VIDORIENT_BIN BENCH_FILES BENCH_TIMES BENCH_ROUNDS BENCH_REPS BENCH_MAX_LOAD BENCH_MAX_WAIT BENCH_MAX_OTHERS BENCH_RETRIES BENCH_GATE_WAIT BENCH_WORK; do
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
REPORT_PY="$SCRIPT_DIR/audit_report.py"
MAKE_LIB="$SCRIPT_DIR/make_library.py"
WORK=${BENCH_WORK:-$REPO_ROOT/bench/work}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

FILES=${BENCH_FILES:-5000}
TIMES=${BENCH_TIMES:-10}
ROUNDS=${BENCH_ROUNDS:-2}
REPS=${BENCH_REPS:-3}
whole_number FILES TIMES ROUNDS REPS
(( FILES >= 100 && TIMES >= 2 && ROUNDS >= 1 && REPS >= 1 )) ||
    die "need BENCH_FILES >= 100, BENCH_TIMES >= 2, BENCH_ROUNDS >= 1 and BENCH_REPS >= 1"
if (( WRITE )) && (( FILES < 5000 || TIMES < 10 || ROUNDS < 2 || REPS < 3 )); then
    die "--write needs BENCH_FILES >= 5000, BENCH_TIMES >= 10, BENCH_ROUNDS >= 2 and BENCH_REPS >= 3"
fi

# ---------------------------------------------------------------- tools ---

need exiftool libimage-exiftool-perl
need mediainfo mediainfo
need ffmpeg ffmpeg
need /usr/bin/time time
need python3 python3
check_needs
for f in "$REPORT_PY" "$MAKE_LIB" "$SCRIPT_DIR/perfdoc.py"; do
    [[ -f $f ]] || die "$f is missing (part of this benchmark)"
done
if (( WRITE )); then python3 "$SCRIPT_DIR/perfdoc.py" check "$DOC" bench/audit.sh; fi

build_vidorient

TMP=$(mktemp -d "${TMPDIR:-/tmp}/vidorient-bench-audit.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
snapshot_vidorient

# ------------------------------------------------------------- libraries ---

LIB="$WORK/library"
LIB_CLIPS="$WORK/library-clips"
LIB_SUB="$WORK/library-sub"
LIB_BIG="$WORK/library-x10"
mkdir -p "$WORK"
shared_args=()
if [[ -d $SHARED_MEDIA ]]; then
    shared_args=(--shared "$SHARED_MEDIA")
else
    log "no ../shared/media beside the repository: the library is made of TestMedia clips (160x96), not phone clips"
fi
log "making (or reusing) the libraries under bench/work/"
{
    printf 'library\t'
    python3 "$MAKE_LIB" mixed "$LIB" --files "$FILES" --testmedia "$REPO_ROOT/TestMedia" "${shared_args[@]}"
    printf 'library-clips\t'
    python3 "$MAKE_LIB" clips "$LIB_CLIPS" --files "$FILES" --from "$LIB"
    printf 'library-sub\t'
    python3 "$MAKE_LIB" subset "$LIB_SUB" --every 10 --from "$LIB"
    printf 'library-x10\t'
    python3 "$MAKE_LIB" times "$LIB_BIG" --copies "$TIMES" --from "$LIB"
} >"$TMP/libraries.tsv" || die "making the libraries failed"
printf 'shared\t%s\n' "$([[ -d $SHARED_MEDIA ]] && echo yes || echo no)" >>"$TMP/libraries.tsv"

# A warm cache: every byte of the library read once (the other libraries are hard links to the
# same files), every folder of the others listed.
log "warming the cache"
find "$LIB" -type f -print0 | xargs -0 cat >/dev/null
find "$LIB_CLIPS" "$LIB_SUB" "$LIB_BIG" >/dev/null

# ------------------------------------------------------------- commands ---

# id, label, allowed exit statuses, quick (repeated REPS times per round) or not, argv
declare -A LABEL OK QUICK
IDS=()
def() { # def ID LABEL OK-STATUSES QUICK ARGV...
    local id=$1
    IDS+=("$id")
    LABEL[$id]=$2
    OK[$id]=$3
    QUICK[$id]=$4
    shift 4
    eval "ARGV_$id=(\"\$@\")"
}
def v_lib "vidorient audit LIB --jsonl" "0 1" 1 "$VIDORIENT" audit "$LIB" --jsonl
def e_lib "exiftool -r -j LIB" "0 1" 0 exiftool -r -j "$LIB"
def m_lib "mediainfo --Output=JSON LIB" "0" 0 mediainfo --Output=JSON "$LIB"
def v_clips "vidorient audit CLIPS --jsonl" "0 1" 1 "$VIDORIENT" audit "$LIB_CLIPS" --jsonl
def v_sub "vidorient audit SUB --jsonl" "0 1" 1 "$VIDORIENT" audit "$LIB_SUB" --jsonl
def e_sub "exiftool -r -j SUB" "0 1" 0 exiftool -r -j "$LIB_SUB"
def m_sub "mediainfo --Output=JSON SUB" "0" 0 mediainfo --Output=JSON "$LIB_SUB"
def v_big "vidorient audit X10 --jsonl" "0 1" 0 "$VIDORIENT" audit "$LIB_BIG" --jsonl
def v_deep "vidorient audit LIB --deep --jsonl" "0 1" 0 "$VIDORIENT" audit "$LIB" --deep --jsonl

ok_status() { [[ " ${OK[$1]} " == *" $2 "* ]]; }

# Every command once before anything is timed, its output kept: it must exit as expected, and
# the outputs say how many files each tool reported (and what vidorient found).
log "checking every command once (the x10 and --deep runs take a minute or two each)"
for id in "${IDS[@]}"; do
    declare -n argv="ARGV_$id"
    rc=0
    "${argv[@]}" </dev/null >"$TMP/pre-$id.out" 2>"$TMP/pre-$id.err" || rc=$?
    if ! ok_status "$id" "$rc"; then
        tail -n 20 "$TMP/pre-$id.err" >&2
        die "exit status $rc from: $(cmdline "${argv[@]}")"
    fi
    unset -n argv
    printf '%s\t%s\n' "$id" "$rc" >>"$TMP/pre-status.tsv"
done
python3 "$REPORT_PY" preflight "$TMP" || die "the outputs of the checking run are not what they should be"
rm -f "$TMP"/pre-*.out

# ---------------------------------------------------------------- facts ---

: >"$TMP/facts.tsv"
wait_for_quiet
fact loadavg_start "$LOAD_AT_START"
fact waited "$WAITED"
machine_facts
fact exiftool "$(exiftool -ver)"
fact mediainfo "$(mediainfo --Version | sed -n 's/.*\(v[0-9][0-9.]*\).*/\1/p' | head -n1)"
fact rounds "$ROUNDS"
fact reps "$REPS"
fact invocation "$INVOCATION"
fact times "$TIMES"
for id in "${IDS[@]}"; do
    declare -n argv="ARGV_$id"
    c=$(cmdline "${argv[@]}")
    c=${c//"$VIDORIENT"/vidorient}
    c=${c//"$REPO_ROOT"\//}
    fact "cmd_$id" "$c"
    fact "label_$id" "${LABEL[$id]}"
    unset -n argv
done

# -------------------------------------------------------------- measure ---

# /usr/bin/time for every run: wall (10 ms resolution, on runs of a second or more), user and
# system CPU of the process and its children, peak RSS. stdout to /dev/null, as in the issue.
: >"$TMP/runs.tsv"
measure() { # measure ID ROUND REP
    local id=$1 rc attempt others
    local -n a="ARGV_$id"
    for ((attempt = 0; attempt <= RETRIES; attempt++)); do
        await_quiet
        rc=0
        busy_mark start
        /usr/bin/time -f '%e %U %S %M %x' -o "$TMP/one.time" "${a[@]}" </dev/null >/dev/null 2>"$TMP/one.err" || rc=$?
        busy_mark end
        if ! ok_status "$id" "$rc"; then
            tail -n 20 "$TMP/one.err" >&2
            die "exit status $rc while measuring: $(cmdline "${a[@]}")"
        fi
        others=$(others_between start end)
        if too_busy "$others" && (( attempt < RETRIES )) && gate_open; then
            log "  other processes took $others cores during that run; running it again"
            DISCARDED=$((DISCARDED + 1))
            continue
        fi
        break
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$2" "$3" "$(tail -n1 "$TMP/one.time" | tr ' ' '\t')" "$others" >>"$TMP/runs.tsv"
}
n=${#IDS[@]}
for ((round = 0; round < ROUNDS; round++)); do
    for ((k = 0; k < n; k++)); do
        id=${IDS[(k + round) % n]}
        reps=1
        (( QUICK[$id] )) && reps=$REPS
        for ((r = 0; r < reps; r++)); do
            log "round $((round + 1)) of $ROUNDS: ${LABEL[$id]} (run $((r + 1)) of $reps)"
            measure "$id" "$round" "$r"
        done
    done
done
fact loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
fact discarded "$DISCARDED"
fact gate "$GATE_SPENT s of waiting for quiet moments (budget $GATE_WAIT s); a run is run again (at most $RETRIES times) when other processes took more than $MAX_OTHERS cores during it"

# ---------------------------------------------------------------- report ---

python3 "$REPORT_PY" render "$TMP" >"$TMP/results.md"
cat "$TMP/results.md"
if (( WRITE )); then
    python3 "$SCRIPT_DIR/perfdoc.py" splice "$DOC" bench/audit.sh "$TMP/results.md"
    log "wrote the bench/audit.sh block of $DOC"
fi
