#!/usr/bin/env bash
# bench/batch-memory.sh: peak RSS of `mediaexport batch` against the number of files (issue 29). One tiny clip
# (0.2 s, made once with ffmpeg) is hard-linked N times into 40 folders; the batch runs as `--dry-run`, for real
# (`--preset low --jobs 2`), then both again beside the export database the run left (`dry-db`, `resume`: every asset
# skipped), each under /usr/bin/time -v. See "Batch memory" in bench/README.md.
#
#   bench/batch-memory.sh                               # N = 1000 and 4000; builds .build/release/mediaexport
#   MEMORY_COUNTS="1000 4000 10000" bench/batch-memory.sh
#   MEMORY_RUN=0 bench/batch-memory.sh                  # dry runs only
#   MEDIAEXPORT_BIN=/path/to/mediaexport bench/batch-memory.sh
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=$BENCH_DIR/work/batch-memory            # gitignored
LOGS=$WORK/logs
COUNTS=${MEMORY_COUNTS:-1000 4000}
RUN=${MEMORY_RUN:-1}
FOLDERS=40
GNU_TIME=/usr/bin/time
export MEDIAEXPORT_PRESETS_DIR=${MEDIAEXPORT_PRESETS_DIR:-$ROOT/Presets}

die() { echo "batch-memory: $*" >&2; exit 1; }
note() { echo "batch-memory: $*" >&2; }

for tool in ffmpeg python3; do command -v "$tool" >/dev/null 2>&1 || die "$tool not found (Debian: sudo apt-get install ffmpeg python3)"; done
{ [[ -x $GNU_TIME ]] && $GNU_TIME -v true >/dev/null 2>&1; } || die "GNU time not found at $GNU_TIME (Debian: sudo apt-get install time)"
mkdir -p "$LOGS"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"
find_or_build_mediaexport "$LOGS/build.log"

# The one clip: 0.2 s of 160x120 H.264 with AAC, in .mov so that `low` transcodes it (a real job per file).
CLIP=$WORK/clip.mov
if [[ ! -s $CLIP ]]; then
    ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i sine=frequency=440 \
        -t 0.2 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -b:a 64k "$CLIP"
fi

# N hard links (copies where links fail) in $FOLDERS folders: in-N/f00/clip00000.mov … (bench/link_inputs.py).
make_inputs() {
    local n=$1 dir=$WORK/in-$1
    [[ -f $dir.complete ]] && return 0
    rm -rf "$dir"
    python3 "$BENCH_DIR/link_inputs.py" "$CLIP" "$dir" "$n" "$FOLDERS"
    : >"$dir.complete"
}

# Peak RSS in kB of one command (its /usr/bin/time -v log goes to $1).
peak_kb() {
    local log=$1; shift
    local rc=0
    "$GNU_TIME" -v "$@" >"$log.out" 2>"$log" || rc=$?
    [[ $rc == 0 || $rc == 3 ]] || { tail -n 5 "$log" >&2; die "exit $rc: $*"; }
    awk -F': ' '/Maximum resident set size/ {print $2}' "$log"
}

row() {  # label n kB seconds
    awk -v l="$1" -v n="$2" -v kb="$3" -v s="$4" \
        'BEGIN { printf "| %-8s | %6d | %8.1f | %13.1f | %7.1f |\n", l, n, kb / 1024, kb / 1024 / n * 1000, s }'
}

elapsed() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$1"; }

echo "| run      |  files |  peak MB | MB/1000 files |  wall s |"
echo "|----------|--------|----------|---------------|---------|"
for n in $COUNTS; do
    make_inputs "$n"
    out=$WORK/out-$n
    rm -rf "$out"
    kb=$(peak_kb "$LOGS/dry-$n.log" "$BIN" batch "$WORK/in-$n" --out "$out" --preset low --dry-run)
    row dry-run "$n" "$kb" "$(elapsed "$LOGS/dry-$n.log")"
    if [[ $RUN == 1 ]]; then
        kb=$(peak_kb "$LOGS/run-$n.log" "$BIN" batch "$WORK/in-$n" --out "$out" --preset low --jobs 2)
        row run "$n" "$kb" "$(elapsed "$LOGS/run-$n.log")"
        # The same two beside the export database the run left: every asset is looked up and skipped.
        kb=$(peak_kb "$LOGS/dry-db-$n.log" "$BIN" batch "$WORK/in-$n" --out "$out" --preset low --dry-run)
        row dry-db "$n" "$kb" "$(elapsed "$LOGS/dry-db-$n.log")"
        kb=$(peak_kb "$LOGS/resume-$n.log" "$BIN" batch "$WORK/in-$n" --out "$out" --preset low --jobs 2)
        row resume "$n" "$kb" "$(elapsed "$LOGS/resume-$n.log")"
        rm -rf "$out"
    fi
done
