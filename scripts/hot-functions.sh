#!/usr/bin/env bash
# scripts/hot-functions.sh: regenerate linker/hot-functions.txt, the functions of the release binary that everyday
# commands run, which the release link places first in .text (lld --symbol-ordering-file; see "Memory" in
# docs/performance.md). Dev-only: needs valgrind (callgrind lists every function a run executes) and ffmpeg.
#
#   scripts/hot-functions.sh                                   # builds the release tool, then ~3 min of callgrind
#   MEDIAEXPORT_BIN=.build/release/mediaexport scripts/hot-functions.sh
#
# Run it after changes that move much code (a new dependency, a new pipeline stage). A stale list costs memory,
# never correctness: a name no longer in the binary is skipped, and a function missing from the list stays where
# the linker puts it. SwiftPM does not relink for a changed list: a clean build uses it, an incremental one after a
# change to the mediaexport target's sources.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/linker/hot-functions.txt
FIX=$ROOT/Fixtures
die() { echo "hot-functions: $*" >&2; exit 1; }
note() { echo "hot-functions: $*" >&2; }
for tool in valgrind ffmpeg python3 nm strip; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found (Debian: sudo apt-get install valgrind ffmpeg python3 binutils)"
done
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hot-functions.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
find_or_build_mediaexport "$WORK/build.log"

# valgrind cannot read the release binary's DWARF 5: profile a copy without it (same code, same symbols).
strip --strip-debug -o "$WORK/mediaexport" "$BIN"
export MEDIAEXPORT_PRESETS_DIR=$ROOT/Presets
cd "$WORK"
mkdir -p out folder
ffmpeg -nostdin -v error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=0.5,noise=alls=20:allf=t" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=0.5" -c:v libx264 -preset veryfast -b:v 60M \
    -c:a aac -shortest camera.mov
cp "$FIX/landscape.mov" "$FIX/vfr.mp4" "$FIX/audio.m4a" "$FIX/hd1080.mp4" folder/
echo "not media" >notmedia.mp4

# The everyday commands: each preset family, passthrough, JSON events, HDR, audio, MPEG-TS, a damaged file, an
# error, a batch, a thumbnail, a probe. Exit codes are not checked: an error's path is profiled on purpose.
i=0
profile() {
    i=$((i + 1))
    note "  $*"
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$WORK/cg.$i" ./mediaexport "$@" >/dev/null 2>&1 || true
}
profile --preset passthrough -q -y camera.mov out/pass.mov
profile --preset 1280x720 -q -y "$FIX/hd1080.mp4" out/720.mp4
profile --preset highest -y "$FIX/landscape.mov" out/highest.mp4
profile --preset highest --json -y "$FIX/portrait-rotated.mov" out/json.mp4
profile --preset 1280x720 -q -y "$FIX/hdr-hlg.mov" out/hdr.mp4
profile --preset hevc-1920x1080 -q -y "$FIX/hevc.mp4" out/hevc.mp4
profile --preset m4a -q -y "$FIX/audio.m4a" out/audio.m4a
profile --preset 1280x720 -q -y "$FIX/interlaced.ts" out/ts.mp4
profile --preset highest -q -y "$FIX/bad/flipped-bytes.mp4" out/bad.mp4
profile --preset highest -y notmedia.mp4 out/error.mp4
profile batch --preset 1280x720 folder --out out/batch
profile thumbnail "$FIX/landscape.mov" out/thumb.jpg
profile probe --json "$FIX/landscape.mov"

# The functions of the binary each run executed (callgrind's fn= records of its own object), those run by more
# commands first, then by name: a stable file that diffs well.
python3 - "$WORK/mediaexport" "$WORK"/cg.* >"$OUT.tmp" <<'PY'
import collections, re, subprocess, sys
binary, profiles = sys.argv[1], sys.argv[2:]
defined = set()
for line in subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW":
        defined.add(parts[2])
runs = collections.Counter()
for path in profiles:
    objects, functions, current, seen = {}, {}, None, set()
    for line in open(path, errors="replace"):
        m = re.match(r"^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, ident, name = m.groups()
        table = objects if kind in ("ob", "cob") else functions
        if name:
            table[ident] = name
        if kind == "ob":
            current = objects.get(ident)
        elif kind == "fn" and current and current.endswith("/mediaexport"):
            seen.add(re.sub(r"'\d+$", "", functions[ident]))
    runs.update(seen & defined)
for name, _ in sorted(runs.items(), key=lambda kv: (-kv[1], kv[0])):
    print(name)
PY
mv "$OUT.tmp" "$OUT"
note "wrote ${OUT#"$ROOT"/}: $(wc -l <"$OUT") functions from $i runs"
