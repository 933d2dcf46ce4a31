# Shared by bench/thumbnail.sh and bench/audit.sh; sourced, not run.
# Before sourcing, set NAME (the script's name, for messages) and REPO_ROOT.
# shellcheck shell=bash

log() { printf '%s\n' "$NAME: $*" >&2; }
die() { printf '%s\n' "$NAME: error: $*" >&2; exit 1; }

# need COMMAND DEBIAN-PACKAGE: remember a missing tool; check_needs reports them all at once.
missing=()
need() {
    if [[ $1 == /* ]]; then
        [[ -x $1 ]] || missing+=("$1 (apt-get install -y $2)")
    else
        command -v "$1" >/dev/null 2>&1 || missing+=("$1 (apt-get install -y $2)")
    fi
}
check_needs() {
    if [[ -z ${VIDORIENT_BIN:-} ]] && ! command -v swift >/dev/null 2>&1; then
        missing+=("swift (not on PATH nor at /opt/swift/usr/bin; or set VIDORIENT_BIN to a built vidorient)")
    fi
    if (( ${#missing[@]} )); then
        printf '%s: missing what this benchmark needs (or run: bash .ci/setup --bench):\n' "$NAME" >&2
        printf '  - %s\n' "${missing[@]}" >&2
        exit 1
    fi
}
if [[ -z ${VIDORIENT_BIN:-} ]] && ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

# whole_number VAR...: each named variable holds a whole number
whole_number() {
    local v
    for v in "$@"; do
        [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number, got '${!v}'"
    done
}

# build_vidorient: sets VIDORIENT (absolute path) and BUILD_NOTE. Builds the release binary the
# way users get it unless VIDORIENT_BIN names one. One retry a minute later, in case someone is
# mid-edit.
build_vidorient() {
    if [[ -n ${VIDORIENT_BIN:-} ]]; then
        VIDORIENT=$VIDORIENT_BIN
        [[ -x $VIDORIENT ]] || die "VIDORIENT_BIN=$VIDORIENT is not an executable file"
        BUILD_NOTE="given as VIDORIENT_BIN"
    else
        local cmd=(swift build -c release --static-swift-stdlib --scratch-path .build-release)
        log "building: ${cmd[*]}"
        if ! (cd "$REPO_ROOT" && "${cmd[@]}") >&2; then
            log "the build failed; trying again in 60 s (someone may be mid-edit)"
            sleep 60
            (cd "$REPO_ROOT" && "${cmd[@]}") >&2 ||
                die "the release build failed twice (set VIDORIENT_BIN to measure a binary you built)"
        fi
        VIDORIENT="$REPO_ROOT/.build-release/release/vidorient"
        [[ -x $VIDORIENT ]] || die "the build succeeded but $VIDORIENT is missing"
        BUILD_NOTE="${cmd[*]}"
    fi
    VIDORIENT=$(cd "$(dirname "$VIDORIENT")" && pwd)/$(basename "$VIDORIENT")
    build_commit
}

# snapshot_vidorient: measure a private copy, so that a rebuild of .build-release by someone else
# during the run cannot swap the binary half-way. Needs TMP.
snapshot_vidorient() {
    mkdir -p "$TMP/bin"
    cp "$VIDORIENT" "$TMP/bin/vidorient"
    VIDORIENT_BUILT=$VIDORIENT
    VIDORIENT="$TMP/bin/vidorient"
}

# wait_for_quiet: while the 1-minute load average is above BENCH_MAX_LOAD (default 1.5), sleep
# in steps of 20 s, at most BENCH_MAX_WAIT seconds (default 600). Sets WAITED (seconds) and
# LOAD_AT_START; measuring goes on after the wait either way, and the load is recorded.
wait_for_quiet() {
    local max_load=${BENCH_MAX_LOAD:-1.5} max_wait=${BENCH_MAX_WAIT:-600}
    WAITED=0
    while awk -v m="$max_load" '{exit !($1 > m)}' /proc/loadavg && (( WAITED < max_wait )); do
        (( WAITED == 0 )) && log "load average $(cut -d' ' -f1-3 /proc/loadavg) is above $max_load; waiting (at most ${max_wait} s)"
        sleep 20
        WAITED=$((WAITED + 20))
    done
    if awk -v m="$max_load" '{exit !($1 > m)}' /proc/loadavg; then
        log "warning: still busy after ${WAITED} s (load $(cut -d' ' -f1-3 /proc/loadavg)); measuring anyway, expect noisy numbers"
    fi
    LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
}

# busy_mark TAG: one line of busy.tsv in $TMP: TAG, wall clock (s), CPU busy time of the whole
# machine (s, from /proc/stat: user nice system irq softirq steal) and CPU time of this shell's
# finished children (s, from the times builtin, run in this shell, not a subshell). Between
# two marks, (machine busy - our children) / wall = how many cores other processes took.
busy_mark() {
    local busy now
    busy=$(awk -v hz="$(getconf CLK_TCK)" '/^cpu / {printf "%.2f", ($2 + $3 + $4 + $7 + $8 + $9) / hz}' /proc/stat)
    now=$(date +%s.%N)
    times >"$TMP/times.txt"
    local kids
    kids=$(tail -n1 "$TMP/times.txt" | awk '{
        s = 0
        for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] }
        printf "%.2f", s }')
    printf '%s\t%s\t%s\t%s\n' "$1" "$now" "$busy" "$kids" >>"$TMP/busy.tsv"
}

# others_over SECONDS: cores the machine spent busy over the next SECONDS while this script only
# sleeps, i.e. what other processes (other sessions' builds and benchmarks, in other containers
# too, which ps does not show) take.
others_over() {
    local a b
    a=$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat)
    sleep "$1"
    b=$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat)
    awk -v a="$a" -v b="$b" -v s="$1" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", (b - a) / hz / s}'
}

# Gating each measurement on a quiet machine. A run during which other processes took more than
# BENCH_MAX_OTHERS cores (default 0.3) is thrown away and run again, at most BENCH_RETRIES times
# (default 2), each attempt after waiting (at most 60 s) for 2 quiet seconds (others under 0.2
# cores); at most BENCH_GATE_WAIT seconds of such waiting in all (default 900), after which runs
# are kept as they come. Every kept run's share of other processes is reported.
MAX_OTHERS=${BENCH_MAX_OTHERS:-0.3}
RETRIES=${BENCH_RETRIES:-2}
GATE_WAIT=${BENCH_GATE_WAIT:-900}
GATE_SPENT=0
DISCARDED=0
await_quiet() {
    local waited=0 o
    while (( GATE_SPENT < GATE_WAIT && waited < 60 )); do
        o=$(others_over 2)
        waited=$((waited + 2))
        GATE_SPENT=$((GATE_SPENT + 2))
        awk -v o="$o" 'BEGIN {exit !(o < 0.2)}' && return 0
    done
    return 0
}
# too_busy CORES: whether a run with that share of other processes must be run again
too_busy() { awk -v o="$1" -v m="$MAX_OTHERS" 'BEGIN {exit !(o > m)}'; }
gate_open() { (( GATE_SPENT < GATE_WAIT )); }

# others_between TAG1 TAG2: cores other processes took between two busy marks
others_between() {
    awk -F'\t' -v a="$1" -v b="$2" '$1 == a {t = $2; u = $3; k = $4} $1 == b {T = $2; U = $3; K = $4}
        END {o = ((U - u) - (K - k)) / (T - t); if (o < 0) o = 0; printf "%.2f", o}' "$TMP/busy.tsv"
}

# fact KEY VALUE: one line of facts.tsv in $TMP, read by the report
fact() { printf '%s\t%s\n' "$1" "$2" >>"$TMP/facts.tsv"; }

machine_facts() {
    fact date "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    fact nproc "$(nproc)"
    fact cpu "$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//' || echo unknown)"
    fact kernel "$(uname -sr)"
    fact memory "$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    fact ffmpeg "$(ffmpeg -version 2>/dev/null | head -n1 | awk '{print $3}' || echo unknown)"
    if command -v swift >/dev/null 2>&1; then
        fact swift "$(swift --version 2>&1 | grep -m1 -i 'swift version' || echo unknown)"
    else
        fact swift "not on PATH (binary given as VIDORIENT_BIN)"
    fi
    fact vidorient_version "$("$VIDORIENT" --version 2>&1 | head -n1 || echo unknown)"
    fact vidorient_build "$BUILD_NOTE"
    fact commit "$BUILD_COMMIT"
}

# the commit the sources were at when vidorient was built (or now, for VIDORIENT_BIN)
build_commit() {
    if git -C "$REPO_ROOT" rev-parse --short HEAD >/dev/null 2>&1; then
        BUILD_COMMIT=$(git -C "$REPO_ROOT" rev-parse --short HEAD)
        if [[ -n $(git -C "$REPO_ROOT" status --porcelain -- Sources Package.swift 2>/dev/null) ]]; then
            BUILD_COMMIT+=" (with uncommitted changes to Sources/ or Package.swift)"
        fi
    else
        BUILD_COMMIT="unknown (not a git checkout)"
    fi
}

# One word quoted for a shell (and for hyperfine -N, which splits like sh).
shq() {
    if [[ $1 =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then
        printf '%s' "$1"
    else
        local s=${1//\'/\'\\\'\'}
        printf "'%s'" "$s"
    fi
}
cmdline() { local out="" w; for w in "$@"; do out+="${out:+ }$(shq "$w")"; done; printf '%s' "$out"; }
