#!/usr/bin/env bash
# Streaming packages (issue 48): the per-title ladder against Apple's fixed ladder on the same sources — total bytes,
# each rung's SSIM against the source scaled to the rung's size (the ffmpeg CLI's `ssim`, All), the package's CPU
# time, and the package's own validation. Synthetic 1280x720 clips plus the real files of ./corpus when present
# (scripts/corpus.sh collect). Writes bench/work/package/report.md.
#   MEDIAEXPORT_BIN=path  the binary (default .build/release/mediaexport, else debug)
#   PACKAGE_SECONDS=10    length of each clip
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${MEDIAEXPORT_BIN:-.build/release/mediaexport}
[[ -x $BIN ]] || BIN=.build/debug/mediaexport
exec python3 bench/package_report.py "$BIN" "${PACKAGE_SECONDS:-10}"
