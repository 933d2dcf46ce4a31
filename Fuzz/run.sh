#!/usr/bin/env bash
# Builds a libFuzzer target and runs it.
#   bash Fuzz/run.sh [TARGET] [SECONDS] [extra libFuzzer flags...]
# TARGET is `isobmff` (the box reader, the default), `photo` (the photo readers), `arguments`
# (argument parsing, thumbnail geometry, terminal escaping, path bytes and non-blocking opens) or
# `lists` (the fix journal and the audit output fix --from-audit reads); SECONDS defaults to 300;
# two jobs (FUZZ_JOBS=1: one process, whose exit status is the verdict, as Fuzz/ci.sh runs it).
# Everything it makes (objects, the binaries, the corpora, crashes) goes to Fuzz/work/, which git
# ignores; a module object is rebuilt only when a source is newer. The seeds are the committed
# Fuzz/corpus/TARGET/ (Fuzz/make-corpus.sh), and ../shared/media's and the fetched corpus's raws
# (TestMedia/corpus/fetch.py) when present.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
target=isobmff
case "${1:-}" in
  isobmff | photo | arguments | lists) target=$1; shift ;;
esac
seconds=${1:-300}
shift || true
work=Fuzz/work
# Where the target's corpus and crashes go (Fuzz/ci.sh keeps its runs apart from local ones).
runs=${FUZZ_RUNS:-$work}
mkdir -p "$work/build" "$runs/$target/corpus" "$runs/$target/crashes"
jobs=${FUZZ_JOBS:-2}
# libFuzzer's flags for the run: two workers, or one process whose exit status says whether it found anything.
parallel=(-jobs="$jobs" -workers="$jobs")
[ "$jobs" = 1 ] && parallel=()
# The committed seeds, copied into the growing corpus (libFuzzer adds to its first folder only).
cp -n Fuzz/corpus/"$target"/* "$runs/$target/corpus/" 2>/dev/null || true

# The package's settings (Swift 6, the same upcoming features), optimised, with debug info.
flags=(-swift-version 6 -package-name vidorient -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
  -O -g -parse-as-library)
if [ "$target" = arguments ]; then
  # Here Core is what is fuzzed: instrumented, with the target in the same module build.
  mkdir -p "$runs/arguments/paths" "$work/build-arguments"
  # Core and IO (RegularFile, the non-blocking opens), both instrumented, each rebuilt when a source changed.
  for name in VidorientCore VidorientIO; do
    if [ ! -f "$work/build-arguments/$name.o" ] || [ -n "$(find Sources/VidorientCore "Sources/$name" -name '*.swift' -newer "$work/build-arguments/$name.o")" ]; then
      swiftc "${flags[@]}" -sanitize=fuzzer,address -wmo -module-name "$name" -I "$work/build-arguments" \
        -emit-module -emit-module-path "$work/build-arguments/$name.swiftmodule" \
        -c -o "$work/build-arguments/$name.o" Sources/"$name"/*.swift
    fi
  done
  swiftc "${flags[@]}" -sanitize=fuzzer,address -I "$work/build-arguments" -o "$work/arguments-fuzzer" \
    Fuzz/ArgumentFuzzer.swift "$work/build-arguments/VidorientIO.o" "$work/build-arguments/VidorientCore.o"
  cd "$runs/arguments"
  exec "$OLDPWD/$work/arguments-fuzzer" corpus -max_total_time="$seconds" "${parallel[@]}" \
    -artifact_prefix=crashes/ -print_final_stats=1 "$@"
fi

# module NAME [swiftc flags...] -- SOURCES: one module object, instrumented unless it is Core.
module() {
  local name=$1; shift
  local extra=()
  while [ "$1" != "--" ]; do extra+=("$1"); shift; done
  shift
  # Built already, from these sources with these flags: kept (the flags are part of the stamp).
  # The modules below it count as its sources: a change there changes what it compiles against.
  local stamp="$work/build/$name.flags"
  if [ -f "$work/build/$name.o" ] && [ "$(cat "$stamp" 2>/dev/null)" = "${extra[*]}" ] \
    && [ -z "$(find "$@" Sources/VidorientCore Sources/VidorientIO Sources/VidorientISOBMFF -name '*.swift' -newer "$work/build/$name.o")" ]; then
    return
  fi
  printf '%s' "${extra[*]}" > "$stamp"
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
  lists)
    # The readers of the journal and of an audit's output, with the fuzzer in their module: their
    # records are internal types. Only these sources of VidorientFix: the rest needs the whole library.
    objects=("$work/build/VidorientIO.o" "$work/build/VidorientCore.o")
    source="Fuzz/ListFuzzer.swift Sources/VidorientFix/Journal.swift Sources/VidorientFix/AuditInput.swift Sources/VidorientFix/AuditedFix.swift Sources/VidorientFix/AuditSelection.swift Sources/VidorientFix/FileChecksum.swift"
    link=(-module-name VidorientFix -I Sources/CZlib -lz)
    seeds=()
    ;;
esac
# shellcheck disable=SC2086 # $source is a list of files
swiftc "${flags[@]}" -sanitize=fuzzer,address -I "$work/build" "${link[@]}" -o "$work/$target-fuzzer" $source "${objects[@]}"

# Seeds: whole small files (libFuzzer's default -max_len follows the largest seed).
for file in "${seeds[@]}"; do
  [ -f "$file" ] && cp -n "$file" "$runs/$target/corpus/" 2>/dev/null || true
done

# From inside the target's folder: with -jobs, libFuzzer writes its fuzz-N.log files to the current folder.
root=$PWD
cd "$runs/$target"
dictionary=()
[ -f "$root/Fuzz/$target.dict" ] && dictionary=(-dict="$root/Fuzz/$target.dict")
"$root/$work/$target-fuzzer" corpus "${dictionary[@]}" -max_total_time="$seconds" "${parallel[@]}" \
  -artifact_prefix=crashes/ -print_final_stats=1 "$@"
