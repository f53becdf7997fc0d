#!/usr/bin/env bash
# Recreates Fixtures/bad/, the bad-input corpus: files that must never crash, hang or lose data.
# Needs Debian's ffmpeg and python3; derived from the clips of make-fixtures.sh.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p bad
FF=(ffmpeg -nostdin -hide_banner -loglevel error -y)

# Zero bytes, and text that only claims to be a movie.
: > bad/empty.mov
printf 'This is a text file with a .mov name.\n' > bad/text.mov

# An MP4 with its moov atom at the end (no faststart), cut before the moov: no index at all.
"${FF[@]}" -i landscape.mov -c copy -movflags -faststart bad/.whole.mp4
python3 - <<'PY'
data = open("bad/.whole.mp4", "rb").read()
moov = data.rfind(b"moov") - 4
open("bad/cut-before-moov.mp4", "wb").write(data[:moov])
PY
# A faststart MP4 cut at half: the index promises 2 s, the data holds about 1 s.
"${FF[@]}" -i landscape.mov -c copy -movflags +faststart bad/.fast.mp4
python3 - <<'PY'
data = open("bad/.fast.mp4", "rb").read()
open("bad/cut-at-half.mp4", "wb").write(data[:len(data) // 2])
PY
# Flipped bytes inside the video packets (every 23rd byte of the second half of mdat's payload).
python3 - <<'PY'
data = bytearray(open("bad/.fast.mp4", "rb").read())
start = data.find(b"mdat") + 4
for i in range(start + (len(data) - start) // 2, len(data) - 8, 23):
    data[i] ^= 0xFF
open("bad/flipped-bytes.mp4", "wb").write(bytes(data))
PY
# A valid container whose video stream has no decoder here: the video sample entry's fourcc is unknown.
python3 - <<'PY'
data = bytearray(open("bad/.fast.mp4", "rb").read())
i = data.find(b"avc1", data.find(b"stsd"))
data[i:i+4] = b"zzv9"
open("bad/no-decoder.mp4", "wb").write(bytes(data))
PY
# A header that claims a 100000x100000 picture (YUV4MPEG2 stream with a tiny frame).
python3 - <<'PY'
with open("bad/huge-header.y4m", "wb") as f:
    f.write(b"YUV4MPEG2 W100000 H100000 F30:1 Ip A1:1 C420jpeg\nFRAME\n" + bytes(4096))
PY
# Audio only, sent to a video preset.
cp audio.m4a bad/audio-only.m4a
# A good clip whose name has spaces and non-ASCII characters.
cp landscape.mov "bad/clip with spaces – été.mov"
rm -f bad/.whole.mp4 bad/.fast.mp4
ls -l bad
