#!/usr/bin/env bash
# libFuzzer runs of the Fuzz/ package (separate SwiftPM package that depends on the root one).
#
#   scripts/fuzz.sh [sidecar|adjustment|probe|all]        build, seed the corpora, fuzz each target FUZZ_SECONDS (default 120)
#   scripts/fuzz.sh build                                 only build (Fuzz/.build-fuzz/release/Fuzz{Sidecar,Adjustment,Probe})
#   scripts/fuzz.sh repro sidecar|adjustment|probe FILE…  run a target once on saved inputs (e.g. Fuzz/findings/*)
#
# Environment: FUZZ_SECONDS (120), FUZZ_TIMEOUT (10 s per input), FUZZ_RSS_MB (2048), FUZZ_SIDECAR_AAE=0 (skip
# the .AAE reader in FuzzSidecar), FUZZ_DETECT_LEAKS (0/1, per-target default), FUZZ_ARGS (extra libFuzzer flags,
# e.g. "-seed=1", or "-fork=1 -ignore_crashes=1" to go on past a known crash). The corpora (Fuzz/corpus-*),
# artifacts (Fuzz/artifacts/) and logs (Fuzz/logs/) are not committed; small reproducers go to Fuzz/findings/.
# Exit status: 0 when no run found anything, 1 when a run left a crash/timeout/leak/oom artifact.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FUZZ=$ROOT/Fuzz
BIN=$FUZZ/.build-fuzz/release
SECONDS_PER_TARGET=${FUZZ_SECONDS:-120}
TIMEOUT=${FUZZ_TIMEOUT:-10}
RSS_MB=${FUZZ_RSS_MB:-2048}

build() {
    echo "== building the fuzz targets (release, -sanitize=fuzzer,address)" >&2
    (cd "$FUZZ" && swift build -c release --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address \
        -Xcc -fsanitize=fuzzer-no-link,address)
}

# Swift's crash backtracer would take over a trap (fatalError, overflow, Double→Int) from libFuzzer's handler and
# can leave the run hanging; libFuzzer and ASan print the stack themselves.
export SWIFT_BACKTRACE=enable=no
# Sanitizer settings shared by fuzzing and repro runs.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1:detect_stack_use_after_return=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$FUZZ/lsan.supp:print_suppressions=0}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer || echo /opt/swift/usr/bin/llvm-symbolizer)}

seed_sidecar() {
    local dir=$FUZZ/corpus-sidecar
    mkdir -p "$dir"
    cp -n "$ROOT"/Fixtures/assets/*.edit.json "$ROOT"/Fixtures/assets/*.AAE "$dir"/ 2>/dev/null || true
    # The built-in presets: FuzzSidecar also feeds every input to the preset parser.
    for f in "$ROOT"/Presets/*.json; do cp -n "$f" "$dir/preset-$(basename "$f")"; done
    # Earlier findings: regressions stay covered.
    cp -n "$FUZZ"/findings/*.json "$FUZZ"/findings/*.aae "$dir"/ 2>/dev/null || true
    printf '{ adjustmentFormatIdentifier = "com.apple.photo"; adjustmentBaseVersion = 0; adjustmentData = <00010203>; }' \
        > "$dir/seed-openstep.aae"
    local i=0
    while IFS= read -r line; do
        i=$((i + 1)); [ -n "$line" ] && printf '%s' "$line" > "$dir/seed-$i.json"
    done <<'EOF'
{"formatVersion":1}
{"formatVersion":1,"trim":{"start":1.5,"end":4},"crop":{"x":0,"y":0,"width":640,"height":360},"rotate":90,"flip":"horizontal","mute":false,"volume":0.5}
{"formatVersion":1,"rotate":-270,"flip":"vertical","mute":true}
{"formatVersion":2}
{"formatVersion":1,"trim":{"start":0,"end":1e308}}
{"formatVersion":1,"crop":{"x":9223372036854775807,"y":0,"width":2,"height":2}}
{"formatVersion":1,"trim":{"start":1,"end":2,"speed":3}}
{"formatVersion":1,"volume":16,"rotate":360}
{"formatVersion":"1"}
[{"formatVersion":1}]
EOF
    python3 - "$dir" <<'EOF'
import plistlib, sys
d = {"adjustmentFormatIdentifier": "com.apple.photo", "adjustmentFormatVersion": "1.5",
     "adjustmentBaseVersion": 0, "adjustmentData": b"\x00\x01\x02\x03"}
open(sys.argv[1] + "/seed-bin.aae", "wb").write(plistlib.dumps(d, fmt=plistlib.FMT_BINARY))
open(sys.argv[1] + "/seed-xml.aae", "wb").write(plistlib.dumps(d, fmt=plistlib.FMT_XML))
EOF
}

seed_adjustment() {
    local dir=$FUZZ/corpus-adjustment
    mkdir -p "$dir"
    cp -n "$ROOT"/Fixtures/assets/*.AAE "$ROOT"/Fixtures/aae/*.AAE "$FUZZ"/findings/*.aae "$dir"/ 2>/dev/null || true
    # Real-looking .AAEs (XML as Photos writes it, binary), and the markup the nesting scan must read as Foundation
    # does: comments, CDATA, processing instructions, empty tags, nesting just under and over the 64-level bound.
    python3 - "$dir" <<'EOF'
import plistlib, sys, zlib
out = sys.argv[1]
c = zlib.compressobj(wbits=-15)
payload = c.compress(b'{"adjustments":[{"identifier":"Trim","settings":{}}]}') + c.flush()
d = {"adjustmentFormatIdentifier": "com.apple.photo", "adjustmentFormatVersion": "1.4", "adjustmentBaseVersion": 0,
     "adjustmentEditorBundleID": "com.apple.mobileslideshow", "adjustmentRenderTypes": 0, "adjustmentData": payload}
open(out + "/seed-photos.aae", "wb").write(plistlib.dumps(d, fmt=plistlib.FMT_XML))
open(out + "/seed-photos-bin.aae", "wb").write(plistlib.dumps(d, fmt=plistlib.FMT_BINARY))
head = b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>adjustmentFormatIdentifier</key><string>com.apple.video</string><key>x</key>'
tail = b'</dict></plist>\n'
seeds = {
    "nest-62": b"<array>" * 62 + b"</array>" * 62,
    "nest-63": b"<array>" * 63 + b"</array>" * 63,
    "dicts": b"<dict><key>k</key>" * 20 + b"<true/>" + b"</dict>" * 20,
    "comment": b"<!-- <array><array> --><true/>",
    "cdata": b"<string><![CDATA[<array>]]>&lt;&#65;&#x10FFFF;</string>",
    "pi": b"<?pi </a></a> ?><array/>",
    "empty": b"<array/><dict/><string/>",
    "scalars": b"<array><integer>-9223372036854775808</integer><real>1e300</real><real>nan</real><date>2024-01-02T03:04:05Z</date><data>AAEC</data><false/></array>",
}
for name, inner in seeds.items():
    open(out + "/seed-" + name + ".aae", "wb").write(head + inner + tail)
EOF
}

seed_probe() {
    local dir=$FUZZ/corpus-probe
    mkdir -p "$dir"
    # The small fixtures (≤ 64 KB, the run's -max_len), good and bad.
    find "$ROOT/Fixtures" -type f -size -65k ! -name '*.sh' ! -name '*.json' ! -name '*.AAE' -print0 |
        while IFS= read -r -d '' f; do cp -n "$f" "$dir/fixture-$(basename "$f" | tr -c 'A-Za-z0-9.\n-' '_')"; done
    # Inputs that name other files (refused at open, exit 65): the refusal path stays fuzzed.
    printf '#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n/etc/hostname\n#EXT-X-ENDLIST\n' > "$dir/hostile-hls.mov"
    printf 'ffconcat version 1.0\nfile /etc/hostname\n' > "$dir/hostile-concat.mp4"
    printf 'v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nm=video 5004 RTP/AVP 96\n' > "$dir/hostile.sdp"
    printf '<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><Period><AdaptationSet><Representation><BaseURL>file:///etc/hostname</BaseURL></Representation></AdaptationSet></Period></MPD>' > "$dir/hostile-dash.mp4"
    command -v ffmpeg >/dev/null || { echo "ffmpeg not found: only the fixtures seed the probe corpus" >&2; return 0; }
    local v="-f lavfi -i testsrc2=size=32x32:rate=5:duration=0.4" a="-f lavfi -i sine=frequency=440:sample_rate=8000:duration=0.4"
    local ff="ffmpeg -nostdin -hide_banner -loglevel error -y"
    # H.264 in MOV/MP4 whose stream information is read from the SPS (StreamInfoReader): a VUI with every field the
    # reader takes, 4:2:2 10-bit, 4:4:4 with scaling matrices, interlaced.
    if [ ! -e "$dir/gen-h264-vui.mp4" ]; then
        $ff $v -c:v libx264 -preset ultrafast -pix_fmt yuv420p -color_primaries bt709 -color_trc bt709 -colorspace bt709 \
            -bsf:v h264_metadata=sample_aspect_ratio=40/33:chroma_sample_loc_type=2:video_full_range_flag=1 "$dir/gen-h264-vui.mp4" || true
        $ff $v -c:v libx264 -preset ultrafast -pix_fmt yuv422p10le "$dir/gen-h264-422p10.mov" || true
        $ff $v -c:v libx264 -preset ultrafast -pix_fmt yuv444p -x264-params cqm=jvt "$dir/gen-h264-444-cqm.mov" || true
        $ff $v -c:v libx264 -preset ultrafast -pix_fmt yuv420p -flags +ildct+ilme "$dir/gen-h264-interlaced.mov" || true
    fi
    # Tiny generated files, one per common container (a few hundred bytes to a few KB each).
    [ -e "$dir/gen-tiny.mp4" ] && return 0
    $ff $v $a -c:v libx264 -preset ultrafast -c:a aac -b:a 16k -shortest "$dir/gen-tiny.mp4" || true
    $ff $v $a -c:v libx264 -preset ultrafast -c:a aac -b:a 16k -movflags frag_keyframe+empty_moov "$dir/gen-frag.mp4" || true
    $ff $v $a -c:v mpeg4 -c:a pcm_s16le -metadata:s:v:0 rotate=90 -metadata creation_time=2024-01-02T03:04:05Z \
        "$dir/gen-rotated.mov" || true
    $ff $v $a -c:v libx264 -preset ultrafast -c:a libopus -b:a 16k "$dir/gen-tiny.mkv" || true
    $ff $v $a -c:v libvpx -b:v 50k -c:a libvorbis "$dir/gen-tiny.webm" || true
    $ff $v $a -c:v mpeg4 -c:a libmp3lame -b:a 16k "$dir/gen-tiny.ts" || true
    $ff $v $a -c:v mjpeg -c:a pcm_s16le "$dir/gen-tiny.avi" || true
    $ff $v $a -c:v flv1 -c:a libmp3lame -b:a 16k -ar 11025 "$dir/gen-tiny.flv" || true
    $ff $a -c:a pcm_s16le "$dir/gen-tiny.wav" || true
    $ff $a -c:a flac "$dir/gen-tiny.flac" || true
    $ff $a -c:a libmp3lame -b:a 16k "$dir/gen-tiny.mp3" || true
    $ff $a -c:a libvorbis "$dir/gen-tiny.ogg" || true
    $ff -f lavfi -i testsrc2=size=16x16:rate=5:duration=0.2 -pix_fmt yuv420p "$dir/gen-tiny.y4m" || true
    $ff $a -c:a aac -b:a 16k "$dir/gen-tiny.m4a" || true
}

# Runs every file of a corpus once with LeakSanitizer on; a leak anywhere fails the pass (LSan reports at exit).
leak_pass() {
    local name=$1 target=$2 log=$3 rc=0
    echo "== $target: leak pass over Fuzz/corpus-$name" >&2
    find "$FUZZ/corpus-$name" -type f -print0 |
        xargs -0 -n 400 "$BIN/$target" -detect_leaks=1 -timeout="$TIMEOUT" -rss_limit_mb="$RSS_MB" \
            -artifact_prefix="$FUZZ/artifacts/$name/leakpass-" >>"$log" 2>&1 || rc=$?
    grep -E 'ERROR: LeakSanitizer|SUMMARY' "$log" | tail -3 >&2 || true
    return "$rc"
}

run_target() {
    local name=$1 target dict maxlen leaks
    case $name in
        # LeakSanitizer after every execution whose mallocs and frees differ costs ~30x on this target (the Swift
        # runtime's metadata caches and Foundation's allocations make that most of them), so it fuzzes without and
        # the corpus gets a leak pass at the end.
        sidecar) target=FuzzSidecar; dict=sidecar.dict; maxlen=4096; leaks=0; seed_sidecar ;;
        # The .AAE alone: 8 KB holds nesting far past the 64-level bound. Leaks as for sidecar (a pass at the end).
        adjustment) target=FuzzAdjustment; dict=plist.dict; maxlen=8192; leaks=0; seed_adjustment ;;
        probe) target=FuzzProbe; dict=media.dict; maxlen=65536; leaks=1; seed_probe ;;
        *) echo "unknown target: $name (sidecar|adjustment|probe)" >&2; exit 2 ;;
    esac
    leaks=${FUZZ_DETECT_LEAKS:-$leaks}
    mkdir -p "$FUZZ/artifacts/$name" "$FUZZ/logs"
    local log
    log=$FUZZ/logs/$name-$(date +%Y%m%d-%H%M%S).log
    echo "== $target: ${SECONDS_PER_TARGET}s, corpus Fuzz/corpus-$name, log ${log#"$ROOT"/}" >&2
    local rc=0
    # shellcheck disable=SC2086
    "$BIN/$target" "$FUZZ/corpus-$name" -dict="$FUZZ/dicts/$dict" -max_len=$maxlen -detect_leaks="$leaks" \
        -max_total_time="$SECONDS_PER_TARGET" -timeout="$TIMEOUT" -rss_limit_mb="$RSS_MB" \
        -artifact_prefix="$FUZZ/artifacts/$name/" -print_final_stats=1 ${FUZZ_ARGS:-} >"$log" 2>&1 || rc=$?
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|ERROR|SUMMARY|Test unit written|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" >&2 || true
    if [ "$rc" -eq 0 ]; then leak_pass "$name" "$target" "$log" || rc=$?; fi
    echo "== $target exit $rc; corpus: $(find "$FUZZ/corpus-$name" -type f | wc -l) files; artifacts: $(find "$FUZZ/artifacts/$name" -type f | wc -l)" >&2
    return "$rc"
}

mode=${1:-all}
case $mode in
    build) build ;;
    repro)
        [ $# -ge 3 ] || { echo "usage: $0 repro sidecar|adjustment|probe FILE…" >&2; exit 2; }
        case $2 in sidecar) t=FuzzSidecar ;; adjustment) t=FuzzAdjustment ;; probe) t=FuzzProbe ;; *) echo "unknown target: $2" >&2; exit 2 ;; esac
        [ -x "$BIN/$t" ] || build
        shift 2
        exec "$BIN/$t" -timeout="$TIMEOUT" -rss_limit_mb="$RSS_MB" "$@" ;;
    sidecar | adjustment | probe | all)
        build
        status=0
        targets=$([ "$mode" = all ] && echo "sidecar adjustment probe" || echo "$mode")
        for t in $targets; do run_target "$t" || status=1; done
        exit "$status" ;;
    *) echo "usage: $0 [sidecar|adjustment|probe|all|build|repro TARGET FILE…]" >&2; exit 2 ;;
esac
