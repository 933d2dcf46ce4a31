#!/usr/bin/env bash
# CI's fuzz step (.ci/run): every fuzz target, built with -sanitize=fuzzer,address, fuzzed for a
# few seconds each from the committed seeds (Fuzz/corpus/, TestMedia), one process each, so that
# a crash, a trap, a memory error, a hang or a broken invariant that lands in a change is caught
# that day. A fresh corpus each time, under Fuzz/work/ci/ (local runs' corpora stay as they are).
#   bash Fuzz/ci.sh [SECONDS]        seconds per target; 20 by default
# Fails (exit 1) when any target finds something: its log's end and the reproducer's path are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
seconds=${1:-20}
runs=Fuzz/work/ci
rm -rf "$runs"
mkdir -p "$runs"
# libFuzzer comes with Swift's Linux toolchains; a toolchain without it fails here, never skips.
probe=$(mktemp -d)
printf '@_cdecl("LLVMFuzzerTestOneInput") public func f(_ d: UnsafePointer<UInt8>?, _ n: Int) -> Int32 { 0 }\n' > "$probe/p.swift"
if ! swiftc -sanitize=fuzzer -parse-as-library -o "$probe/p" "$probe/p.swift" 2> "$probe/log"; then
  echo "fuzz: this Swift toolchain cannot build with -sanitize=fuzzer:" >&2
  cat "$probe/log" >&2
  exit 1
fi
rm -rf "$probe"

# One target: built (Fuzz/run.sh), fuzzed, and its verdict said; 1 when it found something.
fuzz_one() {
  local target=$1 log="$runs/$1.log" start
  start=$(date +%s)
  # -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: one that needs over 2 GiB is a bomb.
  if FUZZ_JOBS=1 FUZZ_RUNS="$runs" bash Fuzz/run.sh "$target" "$seconds" -timeout=10 -rss_limit_mb=2048 > "$log" 2>&1; then
    runs_done=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz: $target: $runs_done inputs in ${seconds} s, nothing found ($(($(date +%s) - start)) s with the build)"
  else
    echo "fuzz: $target FOUND SOMETHING (or did not build); the end of $log:" >&2
    tail -40 "$log" >&2
    ls "$runs/$target/crashes/" 2>/dev/null | sed "s|^|fuzz: reproducer $runs/$target/crashes/|" >&2 || true
    return 1
  fi
}

# `arguments` builds its own instrumented Core and IO (Fuzz/work/build-arguments), so it builds and
# runs beside the other three, which share Fuzz/work/build one after another: each module's build
# is one compiler process, and the two chains keep two cores busy (the fuzz step went from 5:26 to 3:30 in a fresh-clone rehearsal).
fuzz_one arguments > "$runs/arguments.verdict" 2>&1 &
beside=$!
failed=0
for target in isobmff photo lists; do
  fuzz_one "$target" || failed=1
done
wait "$beside" || failed=1
cat "$runs/arguments.verdict"
exit $failed
