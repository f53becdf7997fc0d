#!/usr/bin/env bash
# What x265's `frame-threads=1` costs (mediaexport's setting since HEVC came out different under load with frame
# threads): the ffmpeg CLI encodes the same camera-like 1080p input with x265 at hevc-1920x1080's settings, with
# x265's own frame-thread count (from the cores) and with one frame at a time, alternating runs. Prints the median
# CPU and wall seconds of each and the ratios. Then checks the reason: six frame-threaded encodes sharing one core,
# counting the distinct bitstreams (1 = the same bytes every run).
#   bench/x265-frame-threads.sh            # 3 runs each, 4 s input
#   BENCH_REPEAT=5 BENCH_LEN=10 bench/x265-frame-threads.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$ROOT/bench/work; mkdir -p "$WORK/inputs" "$WORK/logs" "$WORK/out"
REPEAT=${BENCH_REPEAT:-3}; LEN=${BENCH_LEN:-4}
sdr=$WORK/inputs/det-camera-${LEN}s.mov
[[ -s $sdr ]] || ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$LEN,noise=alls=20:allf=t" \
    -c:v libx264 -preset veryfast -b:v 100M -g 30 -bf 0 -pix_fmt yuv420p -f mov "$sdr"

encode() {   # X265PARAMS OUT
    ffmpeg -nostdin -loglevel error -y -i "$sdr" -an -c:v libx265 -preset fast -crf 24 -x265-params "log-level=error$1" -f hevc "$2"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
a=$WORK/logs/ft-auto.log b=$WORK/logs/ft-one.log; : > "$a"; : > "$b"
for ((i = 0; i < REPEAT; i++)); do
    for side in a b; do
        params=""; [[ $side == b ]] && params=":frame-threads=1"
        log=$a; [[ $side == b ]] && log=$b
        /usr/bin/time -f "%U %S %e" -o "$WORK/logs/time" bash -c "$(declare -f encode); sdr='$sdr'; encode '$params' '$WORK/out/ft.hevc'"
        awk '{printf "%.2f %.2f\n", $1 + $2, $3}' "$WORK/logs/time" >> "$log"
    done
done
ca=$(cut -d' ' -f1 "$a" | median) cb=$(cut -d' ' -f1 "$b" | median)
wa=$(cut -d' ' -f2 "$a" | median) wb=$(cut -d' ' -f2 "$b" | median)
printf '| %d cores | CPU s (frame threads / one) | ratio | wall s (frame threads / one) | ratio |\n|---|---|---|---|---|\n' "$(nproc)"
printf '| hevc-1920x1080 settings, %s s 1080p | %s / %s | %s | %s / %s | %s |\n' "$LEN" "$ca" "$cb" \
    "$(awk "BEGIN { printf \"%.2f\", $cb / $ca }")" "$wa" "$wb" "$(awk "BEGIN { printf \"%.2f\", $wb / $wa }")"
for params in ":pools=4:frame-threads=3" ":pools=4:frame-threads=1"; do
    for i in 1 2 3 4 5 6; do (taskset -c 0 ffmpeg -nostdin -loglevel error -y -i "$ROOT/Fixtures/landscape.mov" -an -c:v libx265 \
        -preset fast -crf 24 -x265-params "log-level=error$params" -f hevc "$WORK/out/starved-$i.hevc") & done
    wait
    echo "six encodes on one core, x265-params$params: $(sha256sum "$WORK"/out/starved-*.hevc | cut -d' ' -f1 | sort -u | wc -l) distinct bitstream(s)"
done
