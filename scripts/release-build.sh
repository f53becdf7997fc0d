#!/usr/bin/env bash
# scripts/release-build.sh: the release tool with the functions everyday commands run placed first in its .text
# (lld --symbol-ordering-file; "Memory" in docs/performance.md). Prints the binary's path on stdout.
#   1. when .build/hot-functions.txt is missing or older than Sources/, Package.swift or scripts/hot-functions.sh:
#      `swift build -c release --product mediaexport`, then scripts/hot-functions.sh profiles that binary and
#      writes the list (about 3 min of callgrind on 2 cores);
#   2. the same build with MEDIAEXPORT_SYMBOL_ORDERING_FILE naming the list (Package.swift): the link command
#      changes, so SwiftPM links again (the compiled objects are reused).
# Without valgrind or ffmpeg a missing list is left out, with a note: it costs 3-5 MiB of peak RSS, never
# correctness. HOT_FUNCTIONS=required makes that an error (scripts/package-deb.sh). SWIFT_BUILD_FLAGS adds flags to
# both builds.
#
#   bash scripts/release-build.sh          # used by scripts/install.sh (and so package-deb.sh) and bench/lib.sh
set -euo pipefail
cd "$(dirname "$0")/.."
LIST=$PWD/.build/hot-functions.txt
note() { echo "release-build.sh: $*" >&2; }
build() {   # [ORDER]: the release build, linked with ORDER when given
    # shellcheck disable=SC2086
    MEDIAEXPORT_SYMBOL_ORDERING_FILE=${1:-} swift build -c release --product mediaexport ${SWIFT_BUILD_FLAGS:-} >&2
}

if [[ ! -s $LIST || -n $(find Sources Package.swift scripts/hot-functions.sh -newer "$LIST" -type f -print -quit) ]]; then
    if command -v valgrind >/dev/null && command -v ffmpeg >/dev/null; then
        build
        bash scripts/hot-functions.sh "$(swift build -c release --show-bin-path)/mediaexport" "$LIST"
    elif [[ ${HOT_FUNCTIONS:-} == required ]]; then
        note "the hot-function list needs valgrind and ffmpeg (Debian: apt-get install valgrind ffmpeg)"; exit 1
    else
        note "no valgrind or ffmpeg: linking without a current hot-function list (3-5 MiB more peak RSS)"
    fi
fi
if [[ -s $LIST ]]; then build "$LIST"; else build; fi
echo "$(swift build -c release --show-bin-path)/mediaexport"
