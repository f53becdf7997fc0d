#!/usr/bin/env bash
# bench/batch.sh: benchmark `mediaexport batch` on a folder of mixed inputs against the shell loop it replaces
# (the ffmpeg CLI once per file, with the same settings as the preset). See "Batch" in bench/README.md.
#
#   bench/batch.sh                                      # builds .build/release/mediaexport, then one run (~10 min on 2 cores; +3 min the first time)
#   BATCH_JOBS=3 bench/batch.sh                         # mediaexport batch --jobs 3 (default 2)
#   BATCH_PRESET=av1-1280x720 bench/batch.sh            # another preset (default 1280x720)
#   BATCH_REPEAT=3 bench/batch.sh                       # median of 3 rotating runs per case
#   BATCH_MEMORY=0 bench/batch.sh                       # skip the 20-input memory check (about half the time)
#   BATCH_CASES="ours loop" bench/batch.sh              # leave out xargs -P2 (ours and the loop always run)
#   BATCH_INPUTS_ONLY=1 bench/batch.sh                  # only make (or check) the cached inputs
#   MEDIAEXPORT_BIN=/path/to/mediaexport bench/batch.sh # skip the build
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=$BENCH_DIR/work                        # gitignored
INPUTS=$WORK/batch-inputs                   # set12/ (generated, cached) and set20/ (hard links)
OUTS=$WORK/batch-out
LOGS=$WORK/batch-logs
PRESET=${BATCH_PRESET:-1280x720}
JOBS=${BATCH_JOBS:-2}
REPEAT=${BATCH_REPEAT:-1}
GNU_TIME=/usr/bin/time
export MEDIAEXPORT_PRESETS_DIR=${MEDIAEXPORT_PRESETS_DIR:-$ROOT/Presets}   # the tool plans with the tree's presets
MEM_RATIO_MAX=2.0                           # peak RSS with --jobs 2 must stay below 2x that with --jobs 1
export CPU_RATIO_MAX=0.5                    # ours' CPU time must be at most 0.5x the ffmpeg loop's (issue 19)
MEMORY=${BATCH_MEMORY:-1}                   # 0: skip the 20-input memory check (--jobs 1 vs 2)
CASES=" ${BATCH_CASES:-ours loop xargs} "   # which of the folder-of-12 cases run (ours and loop always do)
GEN_VERSION=2                               # bump when the input recipe changes: regenerates the cache

die() { echo "batch-bench: $*" >&2; exit 1; }
note() { echo "batch-bench: $*" >&2; }

# ---------------------------------------------------------------------------------------------- checks
for tool in ffmpeg ffprobe python3 xargs; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found (Debian/Ubuntu: sudo apt-get install ffmpeg time python3)"
done
{ [[ -x $GNU_TIME ]] && $GNU_TIME -v true >/dev/null 2>&1; } \
    || die "GNU time not found at $GNU_TIME (Debian/Ubuntu: sudo apt-get install time)"
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "BATCH_JOBS must be a positive integer (got '$JOBS')"
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || die "BATCH_REPEAT must be a positive integer (got '$REPEAT')"
[[ -r /proc/self/smaps_rollup ]] || note "no /proc/PID/smaps_rollup: the sampled PSS column will read 0"
mkdir -p "$INPUTS" "$OUTS" "$LOGS"

# ---------------------------------------------------------------------------------------------- build
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"
if [[ ${BATCH_INPUTS_ONLY:-0} != 1 ]]; then
    find_or_build_mediaexport "$LOGS/build.log"
    "$BIN" batch --help >/dev/null 2>&1 || die "$BIN has no batch command"
fi

# ---------------------------------------------------------------------------------------------- inputs
# 12 clips like an upload folder from phones, 4-5 s each (see "Inputs" in bench/README.md). Every picture is testsrc2
# under temporal noise (`noise=alls=N:allf=t`: sensor grain, new in every frame, which is what makes camera video
# expensive to decode and to encode), with a sine tone at a different pitch per file.
#  - camera: straight from a phone camera, 1080p30 at a phone's bit rate (H.264 60-100 Mb/s, or HEVC 40 Mb/s),
#    grain 20, GOP 30 without B-frames, AAC 192k. Too large for the 1280x720 box (and the HEVC is not H.264): transcoded.
#  - shared: clips that went through a messaging app or an earlier export: H.264 inside the box, grain 8, an ABR
#    rate of 0.12 bits a pixel (about half the ceiling our planner derives from CRF 23: 3.3 Mb/s at 720p30), AAC
#    128k. They already fit the preset: .mov ones are remuxed to .mp4, .mp4 ones copied.
#   name                    size       fps  kind    codec  rate  seconds
SPECS=(
    "camera-1080p-a.mov     1920x1080  30   camera  h264   100M  4"
    "camera-1080p-b.mp4     1920x1080  30   camera  h264   60M   5"
    "camera-portrait.mov    1080x1920  30   camera  h264   100M  4"
    "camera-hevc.mov        1920x1080  30   camera  hevc   40M   4"
    "shared-720p-a.mov      1280x720   30   shared  h264   -     5"
    "shared-720p-b.mp4      1280x720   30   shared  h264   -     5"
    "shared-720p-c.mov      1280x720   25   shared  h264   -     5"
    "shared-720p-d.mp4      1280x720   30   shared  h264   -     4"
    "shared-540p.mov        960x540    30   shared  h264   -     5"
    "shared-portrait.mov    720x1280   30   shared  h264   -     5"
    "shared-480p.mp4        848x480    30   shared  h264   -     5"
    "shared-360p.mp4        640x360    25   shared  h264   -     5"
)
# The 20-input set for the memory check: the 12 plus 8 more (hard links in more/: 4 transcodes, 2 remuxes, 2 copies).
EXTRA=(camera-1080p-a.mov camera-1080p-b.mp4 camera-portrait.mov camera-hevc.mov shared-720p-a.mov shared-540p.mov shared-720p-b.mp4 shared-360p.mp4)
# Ours' summary with the default preset (another preset is only checked for nothing failed or fallen back).
EXPECT12="4 transcoded, 4 remuxed, 4 copied" EXPECT20="8 transcoded, 6 remuxed, 6 copied"
[[ $PRESET == 1280x720 ]] || EXPECT12="" EXPECT20=""

SET12=$INPUTS/set12
SET20=$INPUTS/set20
gen_clip() {   # NAME SIZE FPS KIND CODEC RATE SECONDS FREQ
    local name=$1 size=$2 fps=$3 kind=$4 codec=$5 rate=$6 secs=$7 freq=$8 grain venc abr
    if [[ $kind == camera ]]; then
        grain=20
        case $codec in
            h264) venc=(-c:v libx264 -preset veryfast -b:v "$rate" -maxrate "$rate" -bufsize "$rate" -g 30 -bf 0) ;;
            hevc) venc=(-c:v libx265 -preset ultrafast -b:v "$rate" -tag:v hvc1 -x265-params "log-level=error:keyint=30:bframes=0") ;;
        esac
        venc+=(-c:a aac -b:a 192k)
    else
        grain=8
        abr=$(awk -v s="$size" -v f="$fps" 'BEGIN {split(s, d, "x"); printf "%d", d[1] * d[2] * f * 0.12}')
        venc=(-c:v libx264 -preset veryfast -b:v "$abr" -maxrate "$((abr * 6 / 5))" -bufsize "$((abr * 2))" -g 60 -c:a aac -b:a 128k)
    fi
    ffmpeg -nostdin -hide_banner -loglevel error -y \
        -f lavfi -i "testsrc2=size=$size:rate=$fps:duration=$secs,noise=alls=$grain:allf=t" \
        -f lavfi -i "sine=frequency=$freq:sample_rate=48000:duration=$secs" \
        -map 0:v -map 1:a "${venc[@]}" -pix_fmt yuv420p -ar 48000 -ac 2 -shortest \
        -movflags +faststart "$SET12.tmp/$name"
}
if [[ $(cat "$SET12/.version" 2>/dev/null) != "$GEN_VERSION" ]]; then
    note "generating 12 inputs of 4-5 s into ${SET12#"$ROOT"/} (cached; ~4 min on 2 idle cores)"
    rm -rf "$SET12" "$SET12.tmp" "$SET20"
    mkdir -p "$SET12.tmp"
    i=0
    for spec in "${SPECS[@]}"; do
        read -r name size fps kind codec rate secs <<<"$spec"
        note "  $name ($size ${fps}fps $kind $codec, $secs s)"
        gen_clip "$name" "$size" "$fps" "$kind" "$codec" "$rate" "$secs" $((300 + 40 * i))
        i=$((i + 1))
    done
    echo "$GEN_VERSION" >"$SET12.tmp/.version"
    mv "$SET12.tmp" "$SET12"
fi
if [[ ! -d $SET20 ]]; then
    mkdir -p "$SET20.tmp/more"
    for spec in "${SPECS[@]}"; do read -r name _ <<<"$spec"; ln "$SET12/$name" "$SET20.tmp/$name" 2>/dev/null || cp "$SET12/$name" "$SET20.tmp/$name"; done
    for name in "${EXTRA[@]}"; do ln "$SET12/$name" "$SET20.tmp/more/$name" 2>/dev/null || cp "$SET12/$name" "$SET20.tmp/more/$name"; done
    mv "$SET20.tmp" "$SET20"
fi
if [[ ${BATCH_INPUTS_ONLY:-0} == 1 ]]; then note "inputs ready in ${SET12#"$ROOT"/}"; exit 0; fi
cat "$SET12"/* >/dev/null                   # warm the page cache for every contender alike

# ---------------------------------------------------------------------------------------------- the ffmpeg loop
# The per-file ffmpeg command with the preset's settings as the tool reads them (bench/presets.py loop): the box is
# orientation-free (a portrait clip fits 720x1280), never upscales, keeps the aspect ratio and even sizes.
FF_LINE=$(python3 "$BENCH_DIR/presets.py" loop "$BIN" "$PRESET") || die "no ffmpeg arguments for preset $PRESET"
FF_EXT=${FF_LINE##* }
FF_ARGS=${FF_LINE% *}
ONE=$LOGS/ffmpeg-one.sh
cat >"$ONE" <<EOF
#!/usr/bin/env bash
# ffmpeg-one.sh IN OUTDIR: the ffmpeg CLI with the settings of preset $PRESET (generated by bench/batch.sh)
set -eu
name=\${1##*/}
exec ffmpeg -nostdin -hide_banner -nostats -loglevel error -y -i "\$1" $FF_ARGS "\$2/\${name%.*}.$FF_EXT"
EOF
chmod +x "$ONE"
# (b) the naive loop, one file after the other; (c) the same, two files at a time.
LOOP_SCRIPT='set -e; for f in "$1"/*.*; do "$2" "$f" "$3"; done'
XARGS_SCRIPT='find "$1" -maxdepth 1 -type f -name "[!.]*.*" -print0 | sort -z | xargs -0 -P 2 -I{} "$2" {} "$3"'

# ---------------------------------------------------------------------------------------------- measuring
# GNU time's "Maximum resident set size" is the largest single process (for the loops: the largest ffmpeg, not
# the sum of two running at once), so bench/tree_pss.py also sums PSS over the whole process tree every 0.2 s.

# Run as root, SVT-AV1 raises its threads to real-time priority (SCHED_FIFO 99; ours gives the right up itself): every
# case runs without it.
NO_RT=()
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null 2>&1; then NO_RT=(setpriv --bounding-set=-sys_nice); fi
RESULTS=$WORK/batch-results.tsv
: >"$RESULTS"
CMDS=$LOGS/commands.txt
: >"$CMDS"
measure() {   # CASE RUN LOG -- cmd...
    local case=$1 run=$2 log=$3; shift 4
    local tf=$LOGS/time.txt sf=$LOGS/sampled.txt pid rc=0
    printf '%s:' "$case" >>"$CMDS"; printf ' %q' "$@" >>"$CMDS"; echo >>"$CMDS"
    "${NO_RT[@]}" $GNU_TIME -v -o "$tf" "$@" >"$log" 2>&1 &
    pid=$!
    python3 "$BENCH_DIR/tree_pss.py" "$pid" >"$sf" &
    wait "$pid" || rc=$?
    wait $! || true
    if ((rc != 0)); then
        tail -n 15 "$log" >&2
        die "case $case failed (exit $rc; log: $log); command: $*"
    fi
    local wall cpu rss pss
    wall=$(awk -F': ' '/Elapsed \(wall clock\) time/ {n = split($NF, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$tf")
    cpu=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ {s += $NF} END {print s}' "$tf")
    rss=$(awk -F': ' '/Maximum resident set size \(kbytes\)/ {print $NF}' "$tf")
    pss=$(cat "$sf" 2>/dev/null || echo 0)
    [[ -n $wall && -n $rss ]] || die "could not parse GNU time output in $tf"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$run" "$wall" "$cpu" "$rss" "${pss:-0}" >>"$RESULTS"
    printf '  %-14s run %d: %7.2f s wall  %7.2f s cpu  %7.1f MiB peak RSS  %7.1f MiB sampled tree PSS\n' \
        "$case" "$run" "$wall" "$cpu" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$(awk -v k="${pss:-0}" 'BEGIN {print k / 1024}')"
}

fresh() { rm -rf "$1"; mkdir -p "$1"; }
run_ours() {   # CASE RUN SET JOBS [MORE ARGS...]
    local out=$OUTS/$1
    fresh "$out"
    measure "$1" "$2" "$LOGS/$1.log" -- "$BIN" batch "$3" --out "$out" --preset "$PRESET" -q --jobs "$4" "${@:5}"
}
# BATCH_OURS_ALSO="--threads 3": one more case of ours, with these arguments added (e.g. the thread budget off:
# 3 threads a codec is FFmpeg's automatic count on 2 cores).
read -r -a ALSO <<<"${BATCH_OURS_ALSO:-}"
run_also() { ((${#ALSO[@]})) && run_ours ours-also "$1" "$SET12" "$JOBS" "${ALSO[@]}"; return 0; }
run_loop() {   # RUN
    fresh "$OUTS/loop"
    measure loop "$1" "$LOGS/loop.log" -- bash -c "$LOOP_SCRIPT" _ "$SET12" "$ONE" "$OUTS/loop"
}
run_xargs() {   # RUN
    [[ $CASES == *" xargs "* ]] || return 0
    fresh "$OUTS/xargs-P2"
    measure xargs-P2 "$1" "$LOGS/xargs-P2.log" -- bash -c "$XARGS_SCRIPT" _ "$SET12" "$ONE" "$OUTS/xargs-P2"
}

# ---------------------------------------------------------------------------------------------- runs
OURS=ours-j$JOBS
echo "mediaexport batch bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, load avg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  ours:   $BIN ($("$BIN" --version 2>/dev/null | head -n 1 || echo '?'))"
echo "  ffmpeg: $(command -v ffmpeg) ($(ffmpeg -hide_banner -version | head -n 1 | cut -d' ' -f1-3))"
echo "  inputs: ${SET12#"$ROOT"/} (12 clips of 4-5 s, $(du -sh "$SET12" | cut -f1)); preset $PRESET; repeats: $REPEAT"
echo "  (a) $OURS:   mediaexport batch IN --out OUT --preset $PRESET -q --jobs $JOBS"
echo "  (b) loop:      for f in IN/*; do ffmpeg -i \"\$f\" $FF_ARGS \"OUT/\$(basename \"\${f%.*}\").$FF_EXT\"; done"
[[ $CASES == *" xargs "* ]] && echo "  (c) xargs-P2:  the same ffmpeg command, xargs -P 2"
((${#ALSO[@]})) && echo "  (d) ours-also: (a) with ${ALSO[*]}"
echo

# The plan, so a reader can see which inputs count as fitting (and why the others do not).
fresh "$OUTS/plan"
"$BIN" batch "$SET12" --out "$OUTS/plan" --preset "$PRESET" --dry-run >"$LOGS/plan.txt" 2>&1 \
    || { cat "$LOGS/plan.txt" >&2; die "dry run failed"; }
echo "plan (mediaexport batch --dry-run):"
sed 's/^/  /' "$LOGS/plan.txt"
rm -rf "$OUTS/plan"
echo

echo "folder of 12: ours vs the ffmpeg loop"
for ((r = 1; r <= REPEAT; r++)); do
    # Rotate the order so no contender always runs first (or last) on a busy machine.
    if ((r % 2)); then
        run_ours "$OURS" "$r" "$SET12" "$JOBS"; run_loop "$r"; run_xargs "$r"; run_also "$r"
    else
        run_also "$r"; run_xargs "$r"; run_loop "$r"; run_ours "$OURS" "$r" "$SET12" "$JOBS"
    fi
done
echo
((MEMORY)) && echo "memory: ours on 20 inputs (${SET20#"$ROOT"/}), --jobs 1 and --jobs 2"
for ((r = 1; MEMORY && r <= REPEAT; r++)); do
    if ((r % 2)); then
        run_ours mem20-j1 "$r" "$SET20" 1; run_ours mem20-j2 "$r" "$SET20" 2
    else
        run_ours mem20-j2 "$r" "$SET20" 2; run_ours mem20-j1 "$r" "$SET20" 1
    fi
done
echo

# ---------------------------------------------------------------------------------------------- report

status=0
python3 "$BENCH_DIR/batch_report.py" "$RESULTS" "$OUTS" "$LOGS" "$SET12" "$SET20" "$OURS" "$BIN" "$PRESET" "$MEM_RATIO_MAX" \
    "$EXPECT12" "$EXPECT20" || status=$?
echo "load avg at end: $(cut -d' ' -f1-3 /proc/loadavg); raw runs: ${RESULTS#"$ROOT"/}; commands: ${CMDS#"$ROOT"/}"

# Exit 2 when an output is invalid; target misses only fail with BENCH_STRICT=1 (exit 3).
if ((status == 2)) || { ((status == 3)) && [[ ${BENCH_STRICT:-0} == 1 ]]; }; then exit "$status"; fi
((status == 0 || status == 3)) || exit "$status"
exit 0
