#!/usr/bin/env bash
# scripts/hot-functions.sh BIN OUT: writes OUT, the functions of the release binary BIN that everyday commands run,
# which the release link places first in .text (lld --symbol-ordering-file; see "Memory" in docs/performance.md).
# scripts/release-build.sh runs it (OUT: .build/hot-functions.txt, not in git) when the list is older than the
# sources. Needs valgrind (callgrind lists every function a run executes) and ffmpeg.
#
# The list is the same for the same binary: one name a line, sorted by name, of the functions any of the runs
# below executed (membership, not counts, so thread timing cannot reorder it; SWIFT_DETERMINISTIC_HASHING keeps
# Swift's dictionaries in one order). A stale list costs memory, never correctness: a name no longer in the binary
# is skipped, and a function missing from the list stays where the linker puts it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FIX=$ROOT/Fixtures
die() { echo "hot-functions: $*" >&2; exit 1; }
note() { echo "hot-functions: $*" >&2; }
[[ $# == 2 && -x $1 ]] || die "usage: scripts/hot-functions.sh BIN OUT (BIN: a release build of mediaexport)"
BIN=$(realpath "$1") OUT=$(realpath -m "$2")
for tool in valgrind ffmpeg python3 nm strip; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found (Debian: sudo apt-get install valgrind ffmpeg python3 binutils)"
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hot-functions.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# valgrind cannot read the release binary's DWARF 5: profile a copy without it (same code, same symbols).
strip --strip-debug -o "$WORK/mediaexport" "$BIN"
export MEDIAEXPORT_PRESETS_DIR=$ROOT/Presets SWIFT_DETERMINISTIC_HASHING=1
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

# The functions of the binary the runs executed (callgrind's fn= records of its own object), sorted by name.
python3 - "$WORK/mediaexport" "$WORK"/cg.* >"$OUT.tmp" <<'PY'
import re, subprocess, sys
binary, profiles = sys.argv[1], sys.argv[2:]
defined = set()
for line in subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW":
        defined.add(parts[2])
runs = set()
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
    runs |= seen & defined
for name in sorted(runs):
    print(name)
PY
mkdir -p "$(dirname "$OUT")"
mv "$OUT.tmp" "$OUT"
note "wrote ${OUT#"$ROOT"/}: $(wc -l <"$OUT") functions from $i runs"
