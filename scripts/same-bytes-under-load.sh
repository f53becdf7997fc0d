#!/usr/bin/env bash
# Same bytes under load (issue 45): the suite's same-bytes tests run again while two `stress-ng --cpu 1 --vm 1`
# keep every core and the memory busy, then RUNS default-mode `highest` exports of one 1080p clip, which must all
# have one SHA-256. A busy CI runner is where an encoder's or a pipeline's timing shows in the bytes.
#   bash scripts/same-bytes-under-load.sh               # after `swift build --build-tests`
#   SAME_BYTES_RUNS=50 bash scripts/same-bytes-under-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${MEDIAEXPORT_BIN:-.build/debug/mediaexport}"
RUNS="${SAME_BYTES_RUNS:-6}"
command -v stress-ng >/dev/null || { echo "same-bytes-under-load: stress-ng not installed (Debian: stress-ng)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/same-bytes.XXXXXX")
load=()
stop() { for p in "${load[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap stop EXIT
for _ in 1 2; do stress-ng --cpu 1 --vm 1 --vm-bytes 256M --timeout 3600 >/dev/null 2>&1 & load+=($!); done

swift test --skip-build --filter \
  'AudioGapTests/audioWithoutBreaksIsLeftAlone|PipelineTests/theDecodeThreadChangesNothingInTheOutput|ReproducibilityTests/(quickTimeKeysComeOutTheSameEveryRun|theHeapDoesNotReachTheFile|matroskaComesOutTheSameEveryRun|batchOutputsComeOutTheSameEveryRun|hevcSameBytesUnderLoad)|TimecodeTests'

# 180 frames of camera-like 1080p (noise that moves), with audio: past the frame where a timing-dependent
# encoder was seen to diverge (164).
clip="$work/clip.mp4"
ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=6,noise=alls=3:allf=t" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=6" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p \
  -c:a aac -b:a 128k "$clip"
for ((i = 1; i <= RUNS; i++)); do
  "$BIN" -q -y --stall-timeout 0 --preset highest "$clip" "$work/out.mp4"
  sha256sum "$work/out.mp4" | cut -c1-64 >> "$work/sums"
done
sort "$work/sums" | uniq -c
distinct=$(sort -u "$work/sums" | wc -l)
[ "$distinct" -eq 1 ] || { echo "same-bytes-under-load: $distinct different outputs in $RUNS runs" >&2; exit 1; }
echo "same-bytes-under-load: $RUNS exports, one SHA-256"
