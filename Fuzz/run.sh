#!/usr/bin/env bash
# Builds the libFuzzer target for the ISO-BMFF box reader and runs it.
#   bash Fuzz/run.sh [SECONDS] [extra libFuzzer flags...]     (default 300 s, 2 jobs)
#   bash Fuzz/run.sh arguments [SECONDS] [flags...]          the argument and path target instead
# Everything it makes (objects, the binary, the corpus, crashes) goes to Fuzz/work/, which git
# ignores. The seed corpus is TestMedia's MP4/MOV/M4A files, and ../shared/media's when present.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
work=Fuzz/work
mkdir -p "$work/build" "$work/corpus" "$work/crashes"
target=isobmff
if [ "${1:-}" = arguments ]; then target=arguments; shift; fi
seconds=${1:-300}
shift || true

# The package's settings (Swift 6, the same upcoming features), optimised, with debug info.
flags=(-swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
  -O -g -parse-as-library)
if [ "$target" = arguments ]; then
  # Here Core is what is fuzzed: instrumented, with the target in the same module build.
  mkdir -p "$work/arguments-corpus" "$work/paths"
  printf '%s' 12.5 > "$work/arguments-corpus/time"; printf '%s' 01:02:03.250 > "$work/arguments-corpus/clock"
  printf '%s' 0,1,-1,0 > "$work/arguments-corpus/matrix"; printf '%s' 'a\x1b[2J.mp4' > "$work/arguments-corpus/name"
  mkdir -p "$work/build-arguments"
  swiftc "${flags[@]}" -sanitize=fuzzer,address -wmo -module-name VidorientCore \
    -emit-module -emit-module-path "$work/build-arguments/VidorientCore.swiftmodule" \
    -c -o "$work/build-arguments/VidorientCore.o" Sources/VidorientCore/*.swift
  swiftc "${flags[@]}" -sanitize=fuzzer,address -I "$work/build-arguments" -o "$work/arguments-fuzzer" \
    Fuzz/ArgumentFuzzer.swift "$work/build-arguments/VidorientCore.o"
  cd "$work"
  exec ./arguments-fuzzer arguments-corpus -max_total_time="$seconds" -jobs=2 -workers=2 \
    -artifact_prefix=crashes/ -print_final_stats=1 "$@"
fi

# Core is not instrumented: coverage there would only distract the fuzzer from the parser.
swiftc "${flags[@]}" -wmo -module-name VidorientCore -emit-module -emit-module-path "$work/build/VidorientCore.swiftmodule" \
  -c -o "$work/build/VidorientCore.o" Sources/VidorientCore/*.swift
swiftc "${flags[@]}" -sanitize=fuzzer,address -wmo -module-name VidorientISOBMFF -I "$work/build" \
  -emit-module -emit-module-path "$work/build/VidorientISOBMFF.swiftmodule" \
  -c -o "$work/build/VidorientISOBMFF.o" Sources/VidorientISOBMFF/*.swift
swiftc "${flags[@]}" -sanitize=fuzzer,address -I "$work/build" -o "$work/isobmff-fuzzer" \
  Fuzz/ISOBMFFFuzzer.swift "$work/build/VidorientISOBMFF.o" "$work/build/VidorientCore.o"

# Seeds: whole small files (libFuzzer's default -max_len follows the largest seed).
for file in TestMedia/*.mp4 TestMedia/*.mov TestMedia/*.m4a ../shared/media/*.mp4 ../shared/media/*.mov ../shared/media/*.MOV; do
  [ -f "$file" ] && cp -n "$file" "$work/corpus/" 2>/dev/null || true
done

# From inside work/: with -jobs, libFuzzer writes its fuzz-N.log files to the current folder.
cd "$work"
./isobmff-fuzzer corpus -dict=../isobmff.dict -max_total_time="$seconds" -jobs=2 -workers=2 \
  -artifact_prefix=crashes/ -print_final_stats=1 "$@"
