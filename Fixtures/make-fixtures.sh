#!/usr/bin/env bash
# Recreates the tiny test clips in Fixtures/ with the ffmpeg CLI (a dev tool; the product never runs it).
# Usage: bash Fixtures/make-fixtures.sh   (needs Debian's ffmpeg package)
# The clips are deterministic in content (synthetic test patterns and tones); encoders may differ in bytes
# across FFmpeg builds, so tests assert on probed properties, never on these files' checksums.
set -euo pipefail
cd "$(dirname "$0")"
FF=(ffmpeg -nostdin -hide_banner -loglevel error -y)
X264=(-c:v libx264 -preset veryfast -crf 30 -pix_fmt yuv420p -g 30)
AAC=(-c:a aac -b:a 64k)
EPOCH=(-metadata creation_time=2024-05-01T12:34:56.000000Z -fflags +bitexact)

# Landscape H.264 + AAC, 320x180, 30 fps, 2 s, in a QuickTime container.
"${FF[@]}" -f lavfi -i testsrc2=size=320x180:rate=30:duration=2 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=2 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest landscape.mov

# Portrait as phones record it: coded 320x180 with a 90° display matrix (shown as 180x320).
"${FF[@]}" -f lavfi -i testsrc2=size=320x180:rate=30:duration=2 -f lavfi -i sine=frequency=660:sample_rate=44100:duration=2 \
  "${X264[@]}" "${AAC[@]}" -ac 1 -shortest portrait-tmp.mov
# (FFmpeg 5.1 only turns the rotate tag into a display matrix when stream-copying.)
"${FF[@]}" -i portrait-tmp.mov -c copy -metadata:s:v:0 rotate=90 portrait-rotated.mov && rm portrait-tmp.mov

# A 1920x1080 clip (1 s) so size presets have something to shrink.
"${FF[@]}" -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=1 -f lavfi -i sine=frequency=330:sample_rate=48000:duration=1 \
  -c:v libx264 -preset veryfast -crf 40 -pix_fmt yuv420p -g 30 "${AAC[@]}" -ac 2 -shortest hd1080.mp4

# HEVC + AAC in MP4 (hvc1 tag, as Apple writes it).
"${FF[@]}" -f lavfi -i testsrc2=size=320x240:rate=25:duration=1 -f lavfi -i sine=frequency=550:sample_rate=48000:duration=1 \
  -c:v libx265 -preset ultrafast -crf 32 -pix_fmt yuv420p -tag:v hvc1 -x265-params log-level=error "${AAC[@]}" -ac 2 -shortest hevc.mp4

# Variable frame rate: 15 frames at 30 fps, then 10 fps, in MP4.
"${FF[@]}" -f lavfi -i testsrc2=size=320x180:rate=30:duration=2 \
  -vf "setpts='if(lt(N,15),N/30,0.5+(N-15)/10)/TB'" -fps_mode vfr "${X264[@]}" -frames:v 30 vfr.mp4

# Audio only: AAC in M4A, stereo 44.1 kHz, 2 s.
"${FF[@]}" -f lavfi -i sine=frequency=440:sample_rate=44100:duration=2 -ac 2 "${AAC[@]}" audio.m4a

# Odd-sized picture (not a multiple of 16; halves to odd numbers).
"${FF[@]}" -f lavfi -i testsrc2=size=322x242:rate=24:duration=1 -f lavfi -i sine=frequency=220:sample_rate=48000:duration=1 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest odd-322x242.mov

# Creation time and GPS location in the container metadata.
"${FF[@]}" -f lavfi -i testsrc2=size=320x180:rate=30:duration=1 -f lavfi -i sine=frequency=880:sample_rate=48000:duration=1 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest "${EPOCH[@]}" -metadata location=+48.8584+002.2945/ metadata.mov

# Colour (issue 15). An HLG 10-bit HEVC clip as iPhones record it (BT.2020, arib-std-b67, hvc1, in a .mov), made
# by converting the test pattern from BT.709 to HLG with zscale so the signal is a real HLG picture.
"${FF[@]}" -f lavfi -i testsrc2=size=640x360:rate=25:duration=1 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=1 \
  -vf "zscale=tin=bt709:pin=bt709:min=bt709:rin=tv:t=arib-std-b67:p=bt2020:m=bt2020nc:r=tv,format=yuv420p10le" \
  -c:v libx265 -preset ultrafast -crf 28 -tag:v hvc1 -x265-params log-level=error \
  -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc -color_range tv "${AAC[@]}" -ac 2 -shortest hdr-hlg.mov
# A PQ (HDR10) 10-bit HEVC clip with mastering display (1000 nits) and content light level (MaxCLL 1000, MaxFALL
# 400) in its SEI, as HDR10 phones and cameras write it (FFmpeg 5.1's MP4 muxer writes no mdcv/clli boxes).
"${FF[@]}" -f lavfi -i testsrc2=size=640x360:rate=25:duration=1 \
  -vf "zscale=tin=bt709:pin=bt709:min=bt709:rin=tv:t=smpte2084:p=bt2020:m=bt2020nc:r=tv:npl=100,format=yuv420p10le" \
  -c:v libx265 -preset ultrafast -crf 28 -tag:v hvc1 \
  -x265-params "log-level=error:hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400" \
  -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -color_range tv hdr-pq.mp4
# Interlaced MPEG-2 in MPEG-TS, top field first, as camcorders and broadcasts deliver it: 50 fps motion woven
# into 25 interlaced frames (each field a different moment, so a progressive encode would comb).
"${FF[@]}" -f lavfi -i testsrc2=size=352x288:rate=50:duration=0.8 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=0.8 \
  -vf "tinterlace=interleave_top,fieldorder=tff" -pix_fmt yuv420p -c:v mpeg2video -q:v 8 -flags +ildct+ilme -top 1 \
  -c:a mp2 -b:a 64k -ac 2 -shortest -f mpegts interlaced.ts
ls -l hdr-hlg.mov hdr-pq.mp4 interlaced.ts

ls -l

# Known colours (thumbnails): red, green, blue and white quadrants, 320x180, 1 s.
"${FF[@]}" -f lavfi -i "color=c=0xFF0000:s=320x180:r=25:d=1,drawbox=x=160:y=0:w=160:h=90:color=0x00FF00:t=fill,drawbox=x=0:y=90:w=160:h=90:color=0x0000FF:t=fill,drawbox=x=160:y=90:w=160:h=90:color=0xFFFFFF:t=fill" \
  -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p colors.mp4

# A black lead-in: 1 s of black, then 2 s of test pattern (the poster time must skip the black).
"${FF[@]}" -f lavfi -i "color=c=black:s=320x180:r=30:d=1" -f lavfi -i "testsrc2=size=320x180:rate=30:duration=2" \
  -filter_complex "[0:v][1:v]concat=n=2:v=1:a=0[v]" -map "[v]" "${X264[@]}" lead-in.mp4

# Assets (issue: versions). Files that share a base name form one asset.
mkdir -p assets
# 1. An original with our JSON edit sidecar: trim 1–3 s, crop, rotate, mute.
"${FF[@]}" -f lavfi -i testsrc2=size=320x180:rate=30:duration=4 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=4 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest assets/IMG_0001.MOV
cat > assets/IMG_0001.edit.json <<'JSON'
{ "formatVersion": 1,
  "trim": { "start": 1.0, "end": 3.0 },
  "crop": { "x": 0, "y": 0, "width": 160, "height": 90 },
  "rotate": 90,
  "mute": true }
JSON
# 2. An original (3 s, 320x180) and Apple's rendered edit of it (2 s, 240x136).
"${FF[@]}" -f lavfi -i testsrc2=size=320x180:rate=30:duration=3 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=3 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest assets/IMG_0002.MOV
"${FF[@]}" -f lavfi -i testsrc2=size=240x136:rate=30:duration=2 -f lavfi -i sine=frequency=550:sample_rate=48000:duration=2 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest assets/IMG_E0002.MOV
# 3. An original with only Apple adjustment data (.AAE, XML plist): not renderable here.
"${FF[@]}" -f lavfi -i testsrc2=size=320x180:rate=30:duration=1 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=1 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest assets/IMG_0003.MOV
python3 - <<'PY'
import plistlib
plistlib.dump({"adjustmentFormatIdentifier": "com.apple.video.slomo", "adjustmentFormatVersion": "1.1",
               "adjustmentBaseVersion": 0, "adjustmentData": b"\x00opaque\x01", "adjustmentEditorBundleID": "com.apple.mobileslideshow"},
              open("assets/IMG_0003.AAE", "wb"), fmt=plistlib.FMT_XML)
PY
# 4. A Live Photo: a still and its paired movie.
"${FF[@]}" -f lavfi -i testsrc2=size=320x240:rate=1:duration=1 -frames:v 1 assets/IMG_0004.JPG
"${FF[@]}" -f lavfi -i testsrc2=size=320x240:rate=30:duration=1.5 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=1.5 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest assets/IMG_0004.MOV
ls -l assets

# Apple-edited movies (issue 45: the regression pairs each output frame with the source picture the version's
# timeline puts there), each beside its .AAE as Photos leaves them. edits/trim: a 3 s clip with aae/trim.AAE (Trim
# 0.512–2.766 s). edits/slomo: a 2.5 s clip at 60 fps with aae/slomo.AAE (0.398–2.255 s played at 0.125×).
mkdir -p edits
"${FF[@]}" -f lavfi -i testsrc2=size=320x180:rate=30:duration=3 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=3 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest edits/trim.MOV
cp aae/trim.AAE edits/trim.AAE
"${FF[@]}" -f lavfi -i testsrc2=size=320x180:rate=60:duration=2.5 -f lavfi -i sine=frequency=440:sample_rate=48000:duration=2.5 \
  "${X264[@]}" "${AAC[@]}" -ac 2 -shortest edits/slomo.MOV
cp aae/slomo.AAE edits/slomo.AAE
ls -l edits
