#!/usr/bin/env bash
# Builds a libFuzzer target and runs it.
#   bash Fuzz/run.sh [TARGET] [SECONDS] [extra libFuzzer flags...]
# TARGET is `isobmff` (the box reader, the default), `photo` (the photo readers) or `arguments`
# (argument parsing, thumbnail geometry, terminal escaping, path bytes and non-blocking opens); SECONDS
# defaults to 300; two jobs. Everything it makes (objects, the binaries, the corpora, crashes)
# goes to Fuzz/work/, which git ignores. The seed corpus is TestMedia's files of the target's
# formats, and ../shared/media's and the fetched corpus's raws (TestMedia/corpus/fetch.py) when present.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
target=isobmff
case "${1:-}" in
  isobmff | photo | arguments) target=$1; shift ;;
esac
seconds=${1:-300}
shift || true
work=Fuzz/work
mkdir -p "$work/build" "$work/$target/corpus" "$work/$target/crashes"

# The package's settings (Swift 6, the same upcoming features), optimised, with debug info.
flags=(-swift-version 6 -package-name vidorient -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
  -O -g -parse-as-library)
if [ "$target" = arguments ]; then
  # Here Core is what is fuzzed: instrumented, with the target in the same module build.
  mkdir -p "$work/arguments/corpus" "$work/arguments/crashes" "$work/arguments/paths" "$work/build-arguments"
  printf '%s' 12.5 > "$work/arguments/corpus/time"; printf '%s' 01:02:03.250 > "$work/arguments/corpus/clock"
  printf '%s' 0,1,-1,0 > "$work/arguments/corpus/matrix"; printf '%s' 'a\x1b[2J.mp4' > "$work/arguments/corpus/name"
  printf 'caf\351\377\357\237\251.mp4' > "$work/arguments/corpus/bytes"
  swiftc "${flags[@]}" -sanitize=fuzzer,address -wmo -module-name VidorientCore \
    -emit-module -emit-module-path "$work/build-arguments/VidorientCore.swiftmodule" \
    -c -o "$work/build-arguments/VidorientCore.o" Sources/VidorientCore/*.swift
  swiftc "${flags[@]}" -sanitize=fuzzer,address -I "$work/build-arguments" -o "$work/arguments-fuzzer" \
    Fuzz/ArgumentFuzzer.swift "$work/build-arguments/VidorientCore.o"
  cd "$work/arguments"
  exec ../arguments-fuzzer corpus -max_total_time="$seconds" -jobs=2 -workers=2 \
    -artifact_prefix=crashes/ -print_final_stats=1 "$@"
fi

# module NAME [swiftc flags...] -- SOURCES: one module object, instrumented unless it is Core.
module() {
  local name=$1; shift
  local extra=()
  while [ "$1" != "--" ]; do extra+=("$1"); shift; done
  shift
  swiftc "${flags[@]}" "${extra[@]}" -wmo -module-name "$name" -I "$work/build" \
    -emit-module -emit-module-path "$work/build/$name.swiftmodule" -c -o "$work/build/$name.o" "$@"
}
# Core is not instrumented: coverage there would only distract the fuzzer from the parsers.
module VidorientCore -- Sources/VidorientCore/*.swift
# The byte sources the parsers read through; not instrumented either.
module VidorientIO -- Sources/VidorientIO/*.swift
module VidorientISOBMFF -sanitize=fuzzer,address -- Sources/VidorientISOBMFF/*.swift
objects=("$work/build/VidorientISOBMFF.o" "$work/build/VidorientIO.o" "$work/build/VidorientCore.o")
link=()
case $target in
  isobmff)
    source=Fuzz/ISOBMFFFuzzer.swift
    seeds=(TestMedia/*.mp4 TestMedia/*.mov TestMedia/*.m4a TestMedia/*.heic TestMedia/*.avif ../shared/media/*.heic ../shared/media/*.avif ../shared/media/*.mp4 ../shared/media/*.mov ../shared/media/*.MOV)
    ;;
  photo)
    # CZlib is a module map only: point clang at it and link zlib.
    module VidorientPhoto -sanitize=fuzzer,address -I Sources/CZlib -- $(find Sources/VidorientPhoto -name "*.swift" | sort)
    objects=("$work/build/VidorientPhoto.o" "${objects[@]}")
    link=(-I Sources/CZlib -lz)
    source=Fuzz/PhotoFuzzer.swift
    seeds=(TestMedia/*.jpg TestMedia/*.png TestMedia/*.tif TestMedia/*.webp TestMedia/*.heic TestMedia/*.avif ../shared/media/*.jpg ../shared/media/*.webp
      # The raws, from exiftool's small test images when TestMedia/corpus/fetch.py has fetched them.
      TestMedia/*.dng .build/corpus/exiftool/t/images/*.{raf,cr3,crw,mrw,orf,rw2,dng})
    ;;
esac
swiftc "${flags[@]}" -sanitize=fuzzer,address -I "$work/build" "${link[@]}" -o "$work/$target-fuzzer" "$source" "${objects[@]}"

# Seeds: whole small files (libFuzzer's default -max_len follows the largest seed).
for file in "${seeds[@]}"; do
  [ -f "$file" ] && cp -n "$file" "$work/$target/corpus/" 2>/dev/null || true
done

# From inside the target's folder: with -jobs, libFuzzer writes its fuzz-N.log files to the current folder.
cd "$work/$target"
"../$target-fuzzer" corpus -dict="../../$target.dict" -max_total_time="$seconds" -jobs=2 -workers=2 \
  -artifact_prefix=crashes/ -print_final_stats=1 "$@"
