#!/usr/bin/env bash
# Benchmark `vidorient fix --rotate 90` on a QuickTime file of at least 1 GiB against the
# two usual ways: `exiftool -Rotation=90 -overwrite_original`, which rewrites the whole file,
# and an `ffmpeg -c copy -metadata:s:v:0 rotate=-90` remux into a new file (FFmpeg 5.1's
# `rotate` tag is counter-clockwise: -90 gives the same matrix as the other two).
#
#   bash bench/fix.sh        print the results as markdown on stdout
#
# Runnable from any directory. Builds the release binary the way users get it
# (swift build -c release --static-swift-stdlib --scratch-path .build-release) unless
# VIDORIENT_BIN names a binary to measure instead. Two more rows show where the time goes:
# `vidorient --version` (starting the process: the Swift runtime and FFmpeg's shared libraries,
# which `fix` never calls) and a 10-line program that calls `MatrixFix.fix(... mode: .inPlace)`
# from the VidorientISOBMFF sources alone (built here with swiftc, no FFmpeg).
#
# The big file is made in bench/work/ (git-ignored) by ffmpeg: uncompressed 1080p video (2vuy),
# so that every byte of its mdat is media an honest remux must copy; moov comes after mdat, as
# cameras write it. It is deleted at the end.
#
# Environment:
#   VIDORIENT_BIN     measure this binary, do not build
#   BENCH_RUNS        timed runs per command (default 5); each one starts from the same file
#   BENCH_MIB         size of the media data in MiB (default 1024)
#
# Wall time is measured around each command; bytes written come from /usr/bin/time's %O (blocks
# of 512 bytes the process sent to the storage layer, which Linux counts as pages are dirtied).
# The file stays in the page cache between runs, for every tool alike, and `sync` runs before each.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
RUNS=${BENCH_RUNS:-5}
MIB=${BENCH_MIB:-1024}

log() { printf '%s\n' "fix.sh: $*" >&2; }
die() { printf '%s\n' "fix.sh: error: $*" >&2; exit 1; }

[[ $RUNS =~ ^[0-9]+$ && $RUNS -ge 1 ]] || die "BENCH_RUNS must be a whole number >= 1"
[[ $MIB =~ ^[0-9]+$ && $MIB -ge 1 ]] || die "BENCH_MIB must be a whole number >= 1"
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
for tool in exiftool ffmpeg ffprobe python3 /usr/bin/time swiftc; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (bash .ci/setup --bench installs the tools)"
done

if [[ -n ${VIDORIENT_BIN:-} ]]; then
    VIDORIENT=$VIDORIENT_BIN
    BUILD_NOTE="given as VIDORIENT_BIN"
else
    log "building: swift build -c release --static-swift-stdlib --scratch-path .build-release"
    (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib --scratch-path .build-release) >&2 ||
        die "the release build failed (or set VIDORIENT_BIN)"
    VIDORIENT="$REPO_ROOT/.build-release/release/vidorient"
    BUILD_NOTE="swift build -c release --static-swift-stdlib --scratch-path .build-release"
fi
[[ -x $VIDORIENT ]] || die "$VIDORIENT is not an executable file"
"$VIDORIENT" fix --help >/dev/null 2>&1 || die "$VIDORIENT has no fix command"

WORK="$REPO_ROOT/bench/work"
BUILD="$WORK/fix-library"
mkdir -p "$BUILD"
BIG="$WORK/fix-big.mov"
REMUX="$WORK/fix-remux.mov"
TIMES="$WORK/fix-time.txt"
trap 'rm -rf "$BIG" "$REMUX" "$TIMES" "$BUILD" "$WORK"/.fix-big.mov.vidorient-*.partial' EXIT

log "building the library-only program in $BUILD"
flags=(-swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -O -parse-as-library)
swiftc "${flags[@]}" -wmo -module-name VidorientCore -emit-module -emit-module-path "$BUILD/VidorientCore.swiftmodule" \
    -c -o "$BUILD/VidorientCore.o" "$REPO_ROOT"/Sources/VidorientCore/*.swift
swiftc "${flags[@]}" -wmo -module-name VidorientISOBMFF -I "$BUILD" -emit-module \
    -emit-module-path "$BUILD/VidorientISOBMFF.swiftmodule" -c -o "$BUILD/VidorientISOBMFF.o" \
    "$REPO_ROOT"/Sources/VidorientISOBMFF/*.swift
cat >"$BUILD/main.swift" <<'SWIFT'
import VidorientISOBMFF

@main struct FixInPlace {
    // FILE [reset]: orientation 6 (90° clockwise), or 1 with `reset`, written in place.
    static func main() throws {
        let arguments = CommandLine.arguments
        let change: OrientationChange = arguments.count > 2 ? .reset : .set(.right)
        _ = try MatrixFix.fix(path: arguments[1], change: change, mode: .inPlace)
    }
}
SWIFT
swiftc "${flags[@]}" -static-stdlib -I "$BUILD" "$BUILD/main.swift" "$BUILD/VidorientISOBMFF.o" \
    "$BUILD/VidorientCore.o" -o "$BUILD/fix-in-place" 2> >(grep -v "mktemp" >&2)

# 1920x1080 2vuy is 4147200 bytes a frame.
frames=$(( (MIB * 1048576 + 4147199) / 4147200 ))
log "making $BIG: $frames frames of uncompressed 1080p ($MIB MiB of media)"
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=30" -frames:v "$frames" \
    -c:v rawvideo -pix_fmt uyvy422 "$BIG"
size=$(stat -c %s "$BIG")
(( size >= MIB * 1048576 )) || die "$BIG is only $size bytes"
probed=$(ffprobe -v error -select_streams v:0 -show_entries stream=nb_frames -of csv=p=0 "$BIG")
[[ $probed == "$frames" ]] || die "ffprobe reads $probed frames in $BIG, expected $frames"

log "timing $RUNS runs each"
python3 - "$VIDORIENT" "$BUILD/fix-in-place" "$BIG" "$REMUX" "$TIMES" "$RUNS" "$size" "$BUILD_NOTE" "$(uname -r)" \
    "$(nproc)" "$(exiftool -ver)" "$(ffmpeg -version | head -1 | cut -d' ' -f3)" \
    "$(git -C "$REPO_ROOT" rev-parse --short HEAD)" <<'PY'
import os, statistics, subprocess, sys, time

(vidorient, library, big, remux, times, runs, size, build, kernel, cpus, exiftool, ffmpeg,
 commit) = sys.argv[1:]
runs, size = int(runs), int(size)

def rotation(path):
    """What every tool must leave: a 90° clockwise display matrix, which ffprobe prints as -90."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream_side_data=rotation", "-of", "csv=p=0", path], capture_output=True, text=True)
    return out.stdout.split()[0] if out.stdout.split() else None

# (label, file that must end up rotated or None, command)
commands = [
    ("vidorient fix --rotate 90", big, [vidorient, "fix", big, "--rotate", "90"]),
    ("vidorient fix --rotate 90 --in-place", big, [vidorient, "fix", big, "--rotate", "90", "--in-place"]),
    ("exiftool -Rotation=90 -overwrite_original", big, ["exiftool", "-q", "-Rotation=90", "-overwrite_original", big]),
    ("ffmpeg -c copy -metadata:s:v:0 rotate=-90 (remux)", remux,
     ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", big, "-map", "0", "-c", "copy", "-metadata:s:v:0", "rotate=-90",
      remux]),
    ("vidorient --version (start-up alone)", None, [vidorient, "--version"]),
    ("MatrixFix.fix in place, VidorientISOBMFF alone (no FFmpeg loaded)", big, [library, big]),
]
results = []
for label, output, command in commands:
    walls, written = [], []
    for _ in range(runs):
        # Every run starts from the same file: orientation 1, no remux output, nothing dirty.
        subprocess.run([library, big, "reset"], check=True)
        if os.path.exists(remux):
            os.remove(remux)
        os.sync()
        start = time.perf_counter()
        subprocess.run(["/usr/bin/time", "-f", "%O", "-o", times] + command, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
        written.append(int(open(times).read().split()[-1]) * 512)
        if output and rotation(output) != "-90":
            sys.exit(f"fix.sh: error: {label} left rotation {rotation(output)} in {output}, expected -90")
    results.append((label, statistics.median(walls), min(walls), max(walls), statistics.median(written)))
    print(f"fix.sh: {label}: median {statistics.median(walls):.4f} s", file=sys.stderr)

def human(n):
    for unit in ["B", "KiB", "MiB", "GiB"]:
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024

exif_wall, exif_written = next((r[1], r[4]) for r in results if r[0].startswith("exiftool"))
print(f"File: {size / 2**30:.2f} GiB QuickTime (uncompressed 1080p, moov after mdat) in the page cache; "
      f"{runs} runs of each command, each from the same file after `sync`; wall time includes starting "
      f"the process. Linux {kernel}, {cpus} CPUs, ext4; exiftool {exiftool}, ffmpeg {ffmpeg}; vidorient at "
      f"{commit}, built by `{build}`.")
print()
print("| command | wall median (s) | min–max (s) | bytes written (median) | exiftool's wall ÷ this | bytes written ÷ exiftool's |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for label, median, low, high, written in results:
    speed = exif_wall / median
    ratio = written / exif_written if exif_written else float("nan")
    speed_text = f"{speed:.0f}×" if speed >= 10 else f"{speed:.2f}×"
    print(f"| `{label}` | {median:.4f} | {low:.4f}–{high:.4f} | {human(written)} | {speed_text} | {ratio:.3g} |")
PY
