#!/usr/bin/env bash
# Benchmark `vidorient inspect --json FILE` against ffprobe, exiftool and
# mediainfo on the same files, in one run.
#
#   bash bench/inspect.sh            print the results as markdown on stdout
#   bash bench/inspect.sh --write    also replace the results section of
#                                    docs/performance.md (the rest is kept)
#
# Runnable from any directory. Builds the release binary the way users get it
# (swift build -c release --static-swift-stdlib --scratch-path .build-release)
# unless VIDORIENT_BIN names a binary to measure instead.
#
# Environment:
#   VIDORIENT_BIN     measure this binary, do not build
#   BENCH_WARMUP      hyperfine warm-up runs per command (default 3, >= 3 for --write)
#   BENCH_RUNS        hyperfine --runs per command and round (default 20, >= 20 for --write)
#   BENCH_ROUNDS      rounds, each timing every command (default 3, >= 3 for --write)
#   BENCH_RSS_RUNS    /usr/bin/time runs per command for peak RSS (default 5)
#   BENCH_PAIRS       interleaved vidorient/ffprobe pairs per file (default 60, >= 20 for --write)
#
# Progress and tool chatter go to stderr; stdout carries only the markdown.
set -euo pipefail

usage() {
    sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

WRITE=0
for arg in "$@"; do
    case "$arg" in
        --write) WRITE=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "inspect.sh: unknown argument: $arg" >&2; usage >&2; exit 64 ;;
    esac
done

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
SHARED_MEDIA="$REPO_ROOT/../shared/media"
DOC="$REPO_ROOT/docs/performance.md"
REPORT_PY="$SCRIPT_DIR/inspect_report.py"

WARMUP=${BENCH_WARMUP:-3}
RUNS=${BENCH_RUNS:-20}
ROUNDS=${BENCH_ROUNDS:-3}
RSS_RUNS=${BENCH_RSS_RUNS:-5}
PAIRS=${BENCH_PAIRS:-60}

log() { printf '%s\n' "inspect.sh: $*" >&2; }
die() { printf '%s\n' "inspect.sh: error: $*" >&2; exit 1; }

for v in WARMUP RUNS ROUNDS RSS_RUNS PAIRS; do
    [[ ${!v} =~ ^[0-9]+$ ]] || die "BENCH_$v must be a whole number, got '${!v}'"
done
(( RUNS >= 2 && ROUNDS >= 1 )) || die "BENCH_RUNS must be at least 2 and BENCH_ROUNDS at least 1"
(( PAIRS >= 2 )) || die "BENCH_PAIRS must be at least 2"
if (( WRITE )) && (( WARMUP < 3 || RUNS < 20 || ROUNDS < 3 || RSS_RUNS < 5 || PAIRS < 20 )); then
    die "--write needs BENCH_WARMUP >= 3, BENCH_RUNS >= 20, BENCH_ROUNDS >= 3, BENCH_RSS_RUNS >= 5 and BENCH_PAIRS >= 20 (got $WARMUP, $RUNS, $ROUNDS, $RSS_RUNS, $PAIRS)"
fi

# ---------------------------------------------------------------- tools ---

if [[ -z ${VIDORIENT_BIN:-} ]] && ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

missing=()
need() { # need COMMAND DEBIAN-PACKAGE
    if [[ $1 == /* ]]; then
        [[ -x $1 ]] || missing+=("$1 (apt-get install -y $2)")
    else
        command -v "$1" >/dev/null 2>&1 || missing+=("$1 (apt-get install -y $2)")
    fi
}
need hyperfine hyperfine
need exiftool libimage-exiftool-perl
need mediainfo mediainfo
need ffprobe ffmpeg
need /usr/bin/time time
need python3 python3
need gcc gcc
need pkg-config pkg-config
need ldd libc-bin
if [[ -z ${VIDORIENT_BIN:-} ]]; then
    command -v swift >/dev/null 2>&1 ||
        missing+=("swift (not on PATH nor at /opt/swift/usr/bin; or set VIDORIENT_BIN to a built vidorient)")
fi
if command -v pkg-config >/dev/null 2>&1; then
    for lib in libavformat libavcodec libavutil; do
        pkg-config --exists "$lib" || missing+=("$lib development files (apt-get install -y ${lib}-dev)")
    done
fi
[[ -f $REPORT_PY ]] || missing+=("$REPORT_PY (part of this benchmark)")
[[ -f $SCRIPT_DIR/empty-ffmpeg-link.c ]] || missing+=("$SCRIPT_DIR/empty-ffmpeg-link.c (part of this benchmark)")
if (( ${#missing[@]} )); then
    printf 'inspect.sh: missing what this benchmark needs:\n' >&2
    printf '  - %s\n' "${missing[@]}" >&2
    exit 1
fi
if (( WRITE )); then
    [[ -f $DOC ]] || die "$DOC does not exist; --write replaces its results section"
    python3 "$REPORT_PY" check-doc "$DOC" || exit 1
fi

# ---------------------------------------------------------------- build ---

if [[ -n ${VIDORIENT_BIN:-} ]]; then
    VIDORIENT=$VIDORIENT_BIN
    [[ -x $VIDORIENT ]] || die "VIDORIENT_BIN=$VIDORIENT is not an executable file"
    BUILD_NOTE="given as VIDORIENT_BIN"
else
    log "building: swift build -c release --static-swift-stdlib --scratch-path .build-release"
    if ! (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib --scratch-path .build-release) >&2; then
        die "the release build failed (if someone is mid-edit, retry in a minute, or set VIDORIENT_BIN)"
    fi
    VIDORIENT="$REPO_ROOT/.build-release/release/vidorient"
    [[ -x $VIDORIENT ]] || die "the build succeeded but $VIDORIENT is missing"
    BUILD_NOTE="swift build -c release --static-swift-stdlib --scratch-path .build-release"
fi
VIDORIENT=$(cd "$(dirname "$VIDORIENT")" && pwd)/$(basename "$VIDORIENT")

TMP=$(mktemp -d "${TMPDIR:-/tmp}/vidorient-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

log "building the floor programs in $TMP"
printf 'int main(void) { return 0; }\n' >"$TMP/empty-process.c"
gcc -O2 "$TMP/empty-process.c" -o "$TMP/empty-process"
# shellcheck disable=SC2046  # pkg-config output is meant to be split
gcc -O2 -Wl,--no-as-needed "$SCRIPT_DIR/empty-ffmpeg-link.c" -o "$TMP/empty-ffmpeg-link" \
    $(pkg-config --cflags --libs libavformat libavcodec libavutil)
# The same program linked against exactly the FFmpeg libraries ffprobe loads
# (libavdevice, libavfilter, ... as the files ldd finds, since their -dev
# packages need not be installed): ffprobe's own floor. Optional.
mapfile -t PROBE_LIBS < <(ldd "$(command -v ffprobe)" |
    awk '$1 ~ /^lib(av(device|filter|format|codec|util)|sw(resample|scale)|postproc)\.so/ && $3 ~ /^\// {print $3}')
HAVE_PROBE_FLOOR=0
# shellcheck disable=SC2046
if (( ${#PROBE_LIBS[@]} )) && gcc -O2 -Wl,--no-as-needed "$SCRIPT_DIR/empty-ffmpeg-link.c" \
    -o "$TMP/empty-ffprobe-libs" $(pkg-config --cflags libavformat libavcodec libavutil) "${PROBE_LIBS[@]}" >&2; then
    HAVE_PROBE_FLOOR=1
else
    log "warning: could not link empty-ffmpeg-link.c against ffprobe's libraries; that floor is skipped"
fi

# ---------------------------------------------------------------- files ---

FILES=()
: >"$TMP/files.tsv"
add_file() { # add_file PATH LABEL SOURCE
    FILES+=("$1")
    printf '%s\t%s\t%s\t%s\n' "$2" "$1" "$(stat -c %s "$1")" "$3" >>"$TMP/files.tsv"
}
for name in orient-6.mp4 orient-5-hevc.mov audio-first.mov orient-6.jpg; do
    if [[ -f $REPO_ROOT/TestMedia/$name ]]; then
        add_file "$REPO_ROOT/TestMedia/$name" "TestMedia/$name" TestMedia
    else
        log "warning: TestMedia/$name is missing; skipped"
    fi
done
if [[ -d $SHARED_MEDIA ]]; then
    SHARED_MEDIA=$(cd "$SHARED_MEDIA" && pwd)
    for name in iphone_rotated.mov dolbyVision-hdr.MOV sample_rotate_and_reflect.mp4 Landscape_6.jpg; do
        if [[ -f $SHARED_MEDIA/$name ]]; then
            add_file "$SHARED_MEDIA/$name" "shared/media/$name" shared
        else
            log "warning: shared/media/$name is missing; skipped"
        fi
    done
else
    log "no ../shared/media beside the repository; the shared files are skipped"
fi
(( ${#FILES[@]} )) || die "no media files to measure"

# ------------------------------------------------------------- commands ---

TOOLS=(vidorient ffprobe exiftool mediainfo)
tool_argv() { # tool_argv TOOL FILE -> sets ARGV
    case "$1" in
        vidorient) ARGV=("$VIDORIENT" inspect --json "$2") ;;
        ffprobe) ARGV=(ffprobe -v error -show_format -show_streams -of json "$2") ;;
        exiftool) ARGV=(exiftool -j "$2") ;;
        mediainfo) ARGV=(mediainfo --Output=JSON "$2") ;;
    esac
}
# One word quoted for hyperfine -N, which splits its command line like sh.
shq() { local s=${1//\'/\'\\\'\'}; printf "'%s'" "$s"; }
cmdline() { local out="" w; for w in "$@"; do out+="${out:+ }$(shq "$w")"; done; printf '%s' "$out"; }

HF=(hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --output=null --style basic)

# Every command must succeed once before it is timed; hyperfine would stop
# half-way otherwise, and a failing run is not a measurement.
log "checking every command once"
for f in "${FILES[@]}"; do
    for t in "${TOOLS[@]}"; do
        tool_argv "$t" "$f"
        if ! "${ARGV[@]}" >/dev/null 2>"$TMP/preflight.err"; then
            cat "$TMP/preflight.err" >&2
            die "this command failed, so it cannot be measured: $(cmdline "${ARGV[@]}")"
        fi
    done
done

# ---------------------------------------------------------------- facts ---

fact() { printf '%s\t%s\n' "$1" "$2" >>"$TMP/facts.tsv"; }
libcount() { ldd "$1" 2>/dev/null | grep -c '=> /' || true; }
: >"$TMP/facts.tsv"
fact date "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
fact nproc "$(nproc)"
fact cpu "$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//' || echo unknown)"
fact kernel "$(uname -sr)"
fact memory "$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
fact loadavg_start "$(cut -d' ' -f1-3 /proc/loadavg)"
if awk -v n="$(nproc)" '{exit !($1 > n / 2)}' /proc/loadavg; then
    log "warning: the 1-minute load average is $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores; expect noisy numbers"
fi
fact ffmpeg "$(ffprobe -version | head -n1 | awk '{print $3}')"
fact libav "libavformat $(pkg-config --modversion libavformat), libavcodec $(pkg-config --modversion libavcodec), libavutil $(pkg-config --modversion libavutil)"
if command -v swift >/dev/null 2>&1; then
    fact swift "$(swift --version 2>&1 | grep -m1 -i 'swift version' || echo unknown)"
else
    fact swift "not on PATH (binary given as VIDORIENT_BIN)"
fi
fact vidorient_version "$("$VIDORIENT" --version 2>&1 | head -n1 || echo unknown)"
fact vidorient_build "$BUILD_NOTE"
if git -C "$REPO_ROOT" rev-parse --short HEAD >/dev/null 2>&1; then
    rev=$(git -C "$REPO_ROOT" rev-parse --short HEAD)
    if [[ -n $(git -C "$REPO_ROOT" status --porcelain -- Sources Package.swift 2>/dev/null) ]]; then
        rev+=" (Sources/ or Package.swift modified since)"
    fi
    fact commit "$rev"
fi
fact hyperfine "$(hyperfine --version | awk '{print $2}')"
fact exiftool "$(exiftool -ver)"
fact mediainfo "$(mediainfo --Version | sed -n 's/.*\(v[0-9][0-9.]*\).*/\1/p' | head -n1)"
fact settings "$ROUNDS rounds of hyperfine -N --warmup $WARMUP --runs $RUNS --output=null per command; peak RSS: median of $RSS_RUNS runs of /usr/bin/time -f %M"
fact rounds "$ROUNDS"
fact pairs "$PAIRS"
fact libs_vidorient "$(libcount "$VIDORIENT")"
fact libs_ffprobe "$(libcount "$(command -v ffprobe)")"
fact libs_empty_ffmpeg_link "$(libcount "$TMP/empty-ffmpeg-link")"
fact libs_mediainfo "$(libcount "$(command -v mediainfo)")"
fact libs_empty_process "$(libcount "$TMP/empty-process")"
if (( HAVE_PROBE_FLOOR )); then
    fact libs_empty_ffprobe_libs "$(libcount "$TMP/empty-ffprobe-libs")"
    fact probe_libs "$(printf '%s\n' "${PROBE_LIBS[@]}" | sed 's,.*/,,; s,\.so.*,,' | paste -sd' ')"
fi

# ---------------------------------------------------------- wall times ---

# Each group of commands is timed in ROUNDS rounds, the groups taking turns and
# the order inside a group rotating from round to round: hyperfine times one
# command after the other, so on a shared machine a burst of load from
# elsewhere would otherwise land on one tool only. The report pools the rounds
# and shows how far the rounds disagree.

# hf_group OUT ROUND NAME CMD [NAME CMD ...]: one hyperfine run of the group,
# its commands rotated by ROUND.
hf_group() {
    local out=$1 round=$2
    shift 2
    local names=() cmds=() n k j args=()
    while (($#)); do names+=("$1"); cmds+=("$2"); shift 2; done
    n=${#names[@]}
    for ((k = 0; k < n; k++)); do
        j=$(((k + round) % n))
        args+=(-n "${names[j]}" "${cmds[j]}")
    done
    "${HF[@]}" --export-json "$out" "${args[@]}" >&2
}

FLOOR_GROUP=("empty process" "$(cmdline "$TMP/empty-process")"
    "empty-ffmpeg-link" "$(cmdline "$TMP/empty-ffmpeg-link")")
if (( HAVE_PROBE_FLOOR )); then
    FLOOR_GROUP+=("empty-ffprobe-libs" "$(cmdline "$TMP/empty-ffprobe-libs")")
fi
FLOOR_GROUP+=("vidorient --version" "$(cmdline "$VIDORIENT" --version)")

LOOP='for f; do ffprobe -v error -show_format -show_streams -of json "$f"; done'
VLOOP='for f; do "$0" inspect --json "$f"; done'
BATCH_GROUP=(
    "vidorient inspect --json (all files, one process)" "$(cmdline "$VIDORIENT" inspect --json "${FILES[@]}")"
    "sh loop: ffprobe per file" "$(cmdline sh -c "$LOOP" sh "${FILES[@]}")"
    "sh loop: vidorient inspect --json per file" "$(cmdline sh -c "$VLOOP" "$VIDORIENT" "${FILES[@]}")"
    "exiftool -j (all files, one process)" "$(cmdline exiftool -j "${FILES[@]}")"
    "mediainfo --Output=JSON (all files, one process)" "$(cmdline mediainfo --Output=JSON "${FILES[@]}")"
)

for ((round = 0; round < ROUNDS; round++)); do
    log "round $((round + 1)) of $ROUNDS: the floor programs"
    hf_group "$TMP/hf-floor-r$round.json" "$round" "${FLOOR_GROUP[@]}"
    i=0
    for f in "${FILES[@]}"; do
        log "round $((round + 1)) of $ROUNDS: the four tools on $f"
        group=()
        for t in "${TOOLS[@]}"; do
            tool_argv "$t" "$f"
            group+=("$t" "$(cmdline "${ARGV[@]}")")
        done
        # The floor again, beside the tools, so that vidorient minus the floor
        # compares two numbers taken under the same load.
        group+=("empty-ffmpeg-link" "$(cmdline "$TMP/empty-ffmpeg-link")")
        hf_group "$TMP/hf-file-$i-r$round.json" "$round" "${group[@]}"
        i=$((i + 1))
    done
    log "round $((round + 1)) of $ROUNDS: the batch over all ${#FILES[@]} files"
    hf_group "$TMP/hf-batch-r$round.json" "$round" "${BATCH_GROUP[@]}"
done

# ----------------------------------------------------- interleaved pairs ---

# hyperfine runs all the runs of one command before the next, so load from
# elsewhere can still favour one side of a ratio. Here vidorient and ffprobe
# alternate run by run (ABBA...), so the two halves of each pair share the load.
i=0
for f in "${FILES[@]}"; do
    log "interleaving vidorient and ffprobe on $f ($PAIRS pairs)"
    tool_argv vidorient "$f"; a=("${ARGV[@]}")
    tool_argv ffprobe "$f"; b=("${ARGV[@]}")
    python3 "$REPORT_PY" pairs "$TMP/pairs-$i.json" "$PAIRS" "$WARMUP" "${#a[@]}" "${a[@]}" "${b[@]}"
    i=$((i + 1))
done

# -------------------------------------------------------------- peak RSS ---

log "measuring peak RSS ($RSS_RUNS runs each)"
: >"$TMP/rss.tsv"
rss_of() { # rss_of KEY TOOL ARGV... -> one line: KEY TOOL kb,kb,...
    local key=$1 tool=$2 vals="" n
    shift 2
    for ((n = 0; n < RSS_RUNS; n++)); do
        /usr/bin/time -f %M -o "$TMP/rss.one" "$@" >/dev/null 2>&1 ||
            die "failed while measuring peak RSS: $(cmdline "$@")"
        vals+="${vals:+,}$(tail -n1 "$TMP/rss.one")"
    done
    printf '%s\t%s\t%s\n' "$key" "$tool" "$vals" >>"$TMP/rss.tsv"
}
rss_of floor "empty process" "$TMP/empty-process"
rss_of floor "empty-ffmpeg-link" "$TMP/empty-ffmpeg-link"
if (( HAVE_PROBE_FLOOR )); then rss_of floor "empty-ffprobe-libs" "$TMP/empty-ffprobe-libs"; fi
rss_of floor "vidorient --version" "$VIDORIENT" --version
i=0
for f in "${FILES[@]}"; do
    for t in "${TOOLS[@]}"; do
        tool_argv "$t" "$f"
        rss_of "$i" "$t" "${ARGV[@]}"
    done
    i=$((i + 1))
done

fact loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- report ---

python3 "$REPORT_PY" render "$TMP" >"$TMP/results.md"
cat "$TMP/results.md"
if (( WRITE )); then
    python3 "$REPORT_PY" splice "$DOC" "$TMP/results.md"
    log "wrote the results section of $DOC"
fi
