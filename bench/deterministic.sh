#!/usr/bin/env bash
# What `--deterministic` costs: each case exported by the same binary with and without it, alternating runs, on
# camera-like input (testsrc2 1080p30 with temporal noise; a 10-bit HLG version of it for tone mapping). Prints the
# median CPU seconds, wall seconds and peak RSS of each, and the ratios deterministic / default.
#   bench/deterministic.sh                 # 3 runs each, 4 s inputs (~6 min of CPU on 2 cores)
#   BENCH_REPEAT=5 BENCH_LEN=10 MEDIAEXPORT_BIN=.build/release/mediaexport bench/deterministic.sh
#   BENCH_CASES="1280x720" bench/deterministic.sh   # only the tone-mapping case (presets: highest hevc-1920x1080 1280x720)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }
source "$ROOT/bench/lib.sh"
WORK=$ROOT/bench/work; mkdir -p "$WORK/inputs" "$WORK/logs" "$WORK/out"
find_or_build_mediaexport "$WORK/logs/build.log"
REPEAT=${BENCH_REPEAT:-3}; LEN=${BENCH_LEN:-4}

sdr=$WORK/inputs/det-camera-${LEN}s.mov hlg=$WORK/inputs/det-hlg-${LEN}s.mov
[[ -s $sdr ]] || ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$LEN,noise=alls=20:allf=t" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$LEN" -c:v libx264 -preset veryfast -b:v 100M -g 30 -bf 0 \
    -pix_fmt yuv420p -c:a aac -b:a 192k -ac 2 -shortest -f mov "$sdr"
[[ -s $hlg ]] || ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$LEN,format=yuv420p,noise=alls=20:allf=t" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$LEN" \
    -vf "zscale=tin=bt709:pin=bt709:min=bt709:rin=tv:t=arib-std-b67:p=bt2020:m=bt2020nc:r=tv,format=yuv420p10le" \
    -c:v libx265 -preset ultrafast -crf 18 -x265-params log-level=error -tag:v hvc1 -color_primaries bt2020 \
    -color_trc arib-std-b67 -colorspace bt2020nc -color_range tv -c:a aac -b:a 192k -ac 2 -shortest -f mov "$hlg"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run() {   # LOG ARGS... -> appends "cpu wall rssKiB" to LOG
    local log=$1; shift
    /usr/bin/time -f "%U %S %e %M" -o "$WORK/logs/time" "$BIN" -q -y "$@" >/dev/null 2>&1
    awk '{printf "%.2f %.2f %d\n", $1 + $2, $3, $4}' "$WORK/logs/time" >> "$log"
}
printf '| case | default CPU s | deterministic CPU s | CPU ratio | default wall s | deterministic wall s | wall ratio | peak RSS MiB (default / det.) |\n|---|---|---|---|---|---|---|---|\n'
for c in "highest $sdr" "hevc-1920x1080 $sdr" "1280x720 $hlg"; do
    set -- $c; preset=$1 input=$2
    [[ " ${BENCH_CASES:-highest hevc-1920x1080 1280x720} " == *" $preset "* ]] || continue
    a=$WORK/logs/det-a.log b=$WORK/logs/det-b.log; : > "$a"; : > "$b"
    for ((i = 0; i < REPEAT; i++)); do
        run "$a" --preset "$preset" "$input" "$WORK/out/a.mp4"
        run "$b" --deterministic --preset "$preset" "$input" "$WORK/out/b.mp4"
    done
    ca=$(cut -d' ' -f1 "$a" | median) cb=$(cut -d' ' -f1 "$b" | median)
    wa=$(cut -d' ' -f2 "$a" | median) wb=$(cut -d' ' -f2 "$b" | median)
    ra=$(cut -d' ' -f3 "$a" | median) rb=$(cut -d' ' -f3 "$b" | median)
    printf '| %s (%s) | %s | %s | %s | %s | %s | %s | %d / %d |\n' "$preset" "$(basename "$input")" "$ca" "$cb" \
        "$(awk "BEGIN { printf \"%.2f\", $cb / $ca }")" "$wa" "$wb" "$(awk "BEGIN { printf \"%.2f\", $wb / $wa }")" $((ra / 1024)) $((rb / 1024))
done
