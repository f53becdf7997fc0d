#!/usr/bin/env bash
# The test suite under AddressSanitizer (+ LeakSanitizer): the library, the tests and the mediaexport binary the tests
# run (found next to the test bundle, so the instrumented one) are all built with -sanitize=address in .build-asan/.
# FFmpeg's own libraries are not instrumented.
#
#   scripts/sanitize.sh                      build and run every test (several minutes on 2 cores)
#   scripts/sanitize.sh --filter ProbeTests  extra arguments go to `swift test`
#   SANITIZER=thread scripts/sanitize.sh     the same under ThreadSanitizer, in .build-tsan/ (reports: tsan.log.*)
#
# Environment: ASAN_OPTIONS / LSAN_OPTIONS override the defaults below; SANITIZE_LOG (default .build-asan/asan.log)
# collects every sanitizer report (log_path), from the test process and from each mediaexport child process, so a
# report from a child that a test only sees as "exit code 1" is not lost. Exit status: swift test's, or 1 when it
# passed but a sanitizer report was written.
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZER=${SANITIZER:-address}
if [ "$SANITIZER" = thread ]; then
    SCRATCH=.build-tsan
    mkdir -p "$SCRATCH"
    LOG_BASE=${SANITIZE_LOG:-$PWD/$SCRATCH/tsan.log}
    rm -f "$LOG_BASE".*
    # halt_on_error=0: every race is logged (per process), and the run goes on to report them all.
    export TSAN_OPTIONS=${TSAN_OPTIONS:-log_path=$LOG_BASE:halt_on_error=0:second_deadlock_stack=1}
    echo "== building with -sanitize=thread in $SCRATCH" >&2
    swift build --build-tests --sanitize=thread --scratch-path "$SCRATCH"
    echo "== swift test --sanitize=thread (reports go to $LOG_BASE.<pid>)" >&2
    status=0
    swift test --skip-build --sanitize=thread --scratch-path "$SCRATCH" "$@" || status=$?
    reports=$(find "$(dirname "$LOG_BASE")" -maxdepth 1 -name "$(basename "$LOG_BASE").*" -size +0 2>/dev/null | sort)
    if [ -n "$reports" ]; then
        echo "== ThreadSanitizer reports:" >&2
        for r in $reports; do echo "--- $r" >&2; grep -E '^WARNING: ThreadSanitizer|^SUMMARY' "$r" >&2 || head -5 "$r" >&2; done
        [ "$status" -eq 0 ] && status=1
    else
        echo "== no sanitizer reports" >&2
    fi
    exit "$status"
fi
SCRATCH=.build-asan
mkdir -p "$SCRATCH"
LOG_BASE=${SANITIZE_LOG:-$PWD/$SCRATCH/asan.log}
rm -f "$LOG_BASE".*

# Leak reports that are not ours: Fuzz/lsan.supp (Foundation's PropertyListSerialization), plus
# - formWeakReference: the 32-byte side table of an object that ever had a `weak` reference to it (StallWatchdog's
#   timer handler, BatchRunner's session.onEvent, Foundation's Process). The object points to it only through its
#   refcount word, shifted right by 3, which LeakSanitizer cannot read as a pointer: reported when that object is
#   still alive at exit, or itself leaked (then its own report is the one that matters).
# - libx265.so: libx265 3.5 (Debian 12) loses 1168 bytes per encoder in x265_encoder_open, even after
#   x265_encoder_close; nothing of FFmpeg's or ours leaks with it (one per HEVC export).
# - libXCTest.so: the XCTest runner's own objects, in the process that runs the (zero) XCTest cases.
# - libFoundationXML.so / libxml2.so: XMLDocument's node graph (only RegressTests reads JUnit XML with it).
# - ArgumentParser8InputKey: swift-argument-parser's parser loses the 48-byte path array of an option group's
#   InputKey when a command line fails to parse (a usage error, exit 64); LeakSanitizer's report at exit then
#   turned that exit status into 1.
# - *Cases_WZ / deepAAE_WZ: the one-time initialisers of HardeningSidecarTests' `static let` argument tables; Swift
#   Testing keeps its copies of a parameterised test's arguments until exit, where LeakSanitizer finds them.
SUPP=$PWD/$SCRATCH/lsan.supp
{ cat Fuzz/lsan.supp; printf '%s\n' leak:formWeakReference leak:libx265.so leak:libXCTest.so \
    leak:libFoundationXML.so leak:libxml2.so leak:ArgumentParser8InputKey 'leak:HardeningSidecarC0V*Cases_WZ' \
    'leak:HardeningSidecarC0V7deepAAE_WZ'; } > "$SUPP"
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$SUPP:print_suppressions=0}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:log_path=$LOG_BASE:detect_stack_use_after_return=0:halt_on_error=1}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer || echo /opt/swift/usr/bin/llvm-symbolizer)}

echo "== building with -sanitize=address in $SCRATCH" >&2
# ASAN_OPTIONS also reaches the build's own tools; keep their reports out of the log.
ASAN_OPTIONS=detect_leaks=0 swift build --build-tests --sanitize=address --scratch-path "$SCRATCH"
echo "== swift test --sanitize=address (reports go to $LOG_BASE.<pid>)" >&2
status=0
swift test --skip-build --sanitize=address --scratch-path "$SCRATCH" "$@" || status=$?

reports=$(find "$(dirname "$LOG_BASE")" -maxdepth 1 -name "$(basename "$LOG_BASE").*" -size +0 2>/dev/null | sort)
if [ -n "$reports" ]; then
    echo "== sanitizer reports:" >&2
    for r in $reports; do
        echo "--- $r" >&2
        grep -E '^==[0-9]+==ERROR|^SUMMARY' "$r" >&2 || head -5 "$r" >&2
    done
    [ "$status" -eq 0 ] && status=1
else
    echo "== no sanitizer reports" >&2
fi
exit "$status"
