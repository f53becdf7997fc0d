#!/usr/bin/env bash
# Cancellation and stall stress test of the mediaexport CLI under ThreadSanitizer: proves that cancelling an export
# or a batch at a random moment, and the stall watchdog, are race-free and leave nothing behind.
#
#   bash scripts/stress.sh                                            TSan build into .build-tsan/, then 300 runs
#   STRESS_BINARY=/tmp/mediaexport STRESS_RUNS=20 bash scripts/stress.sh   quick run with a binary you already have
#
# Setup: builds `mediaexport` with --sanitize=thread into .build-tsan/ (unless STRESS_BINARY is given), then makes
# five small inputs once with the ffmpeg CLI (2–3 s, 320x240): clip.mp4 (testsrc2, h264/aac, faststart), noise.mov
# (random noise, h264/aac: hard to encode), pcm.mkv (h264 + pcm_s16le), cut.mp4 (clip.mp4 cut at 55 %: truncated),
# voice.m4a (aac only).
#
# Each run is one of (drawn at random; STRESS_SEED replays a sequence):
#   single      `mediaexport --preset P --stall-timeout 1 [--overwrite] INPUT OUTPUT.{mp4,mov,mkv,m4a}`, P from
#               highest / 1280x720 / passthrough, hevc-highest 1 time in 10 (x265 is slow); sometimes the output
#               already exists (with --overwrite, or without: then exit 73 is expected)        ~70 % of runs
#   batch       `mediaexport batch INPUTS --out DIR --preset P --jobs 2 -q [--policy always] [--report F]`, into a
#               fresh folder or into one shared by all batch runs (resume after a cancel)        ~25 %
#   batch-pair  two batches on one --out at once (the second sometimes with --wait): the lock     ~5 %
# and each process is sent SIGINT or SIGTERM (random) after a random 0–1.5 s, 1 time in 10 a second signal 0–0.3 s
# later (which must remove the temporary files and exit at once), or, 15 % of the time, no signal. Processes run
# with SIGINT at its default disposition (as after Ctrl-C in a terminal), not ignored as bash does for `&` jobs.
#
# Checks after each run (a failure of any of them makes the script exit 1, and keeps that run's folder):
#   races      no ThreadSanitizer report. TSAN_OPTIONS="halt_on_error=0 exitcode=86 log_path=RUN/tsan": each process
#              writes its reports to RUN/tsan.PID as they happen, so they are found even when a second signal ends
#              the process with _exit (which skips TSan's exit code). 86, not 66: 66 is mediaexport's "input missing".
#   crashes    no exit by SIGSEGV/SIGABRT/SIGILL/SIGBUS/SIGTRAP/SIGFPE (139/134/132/135/133/136), no SIGKILL we did
#              not send, no TSan exitcode (86), no "FATAL: ThreadSanitizer"
#   hangs      every process ends within STRESS_GRACE s of its signal and STRESS_TIMEOUT s of its start (else SIGKILL)
#   bad exits  the exit code is one the README documents (0 1 3 64 65 66 73 78 79 80, and 129 130 141 143), and
#              130 / 143 only after SIGINT / SIGTERM was sent. Documented codes that these inputs should not give
#              (65 for a valid file, 73 with no output in the way …) are counted as warnings only.
#   leftovers  no temporary file (`.NAME.mediaexport-tmp-PID-TOKEN`, Sources/…/Output/OutputTarget.swift) or other
#              hidden file in the output folders, the run folder or the inputs — except a batch's .mediaexport.lock
#              and .mediaexport.sqlite{,-wal,-shm,-journal}
#   broken     every output that exists is complete: `ffprobe -v error` exits 0, sees a stream, its declared
#              duration and the end of its last packet are within 0.5 s of its source's (ffprobe alone accepts a
#              faststart MP4 cut short); an export that exits 0 or 3 left an output (a fresh batch: one per input);
#              one that exits otherwise wrote nothing and left a file in the way untouched
#   late       an export that exits 130/143 although it had completed (printed "Exported …", output in place): the
#              signal came after the work was done and the exit status says "cancelled". A failure too, unless
#              STRESS_ALLOW_LATE_SIGNAL=1 (then a warning)
# The summary gives the runs by kind, an exit-code histogram per kind, the signals sent, and each check's count.
#
# Environment: STRESS_RUNS (300), STRESS_BINARY (use this binary, no build), STRESS_SEED (default: random, printed),
# STRESS_MAX_DELAY_MS (1500), STRESS_STALL_TIMEOUT (1), STRESS_GRACE (60 s), STRESS_TIMEOUT (600 s),
# STRESS_TSAN_OPTIONS (appended to TSAN_OPTIONS, e.g. "suppressions=FILE"), STRESS_ALLOW_LATE_SIGNAL=1 (see
# "late"), STRESS_KEEP=1 (keep the work folder with its logs even when all passed; a passing run's
# own folder is removed as soon as it passes, unless it warned), TMPDIR (where the work folder goes).
#
# Time here (2 CPUs): about 3 s a run with the TSan build (12 runs: 36 s), so 300 runs take about 15 min plus the
# build; 1–2 s a run with the plain debug build (20 runs: 17–38 s; 300: 5–10 min). An hevc-highest run of the
# noise clip under TSan takes 10–15 s, hence its low share.
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${STRESS_RUNS:-300}
SEED=${STRESS_SEED:-$(( $(date +%s%N) % 32768 ))}
MAX_DELAY_MS=${STRESS_MAX_DELAY_MS:-1500}
STALL_TIMEOUT=${STRESS_STALL_TIMEOUT:-1}
GRACE_S=${STRESS_GRACE:-60}
TIMEOUT_S=${STRESS_TIMEOUT:-600}
TSAN_EXITCODE=86
RANDOM=$SEED

die() { echo "stress: $*" >&2; exit 2; }
for tool in ffmpeg ffprobe sha256sum find awk; do command -v "$tool" >/dev/null || die "$tool is needed"; done
[[ $RUNS =~ ^[0-9]+$ ]] || die "STRESS_RUNS must be a number"

# ---------------------------------------------------------------------------------------------------- the binary
if [[ -n ${STRESS_BINARY:-} ]]; then
    BIN=$STRESS_BINARY
    [[ -x $BIN ]] || die "STRESS_BINARY=$BIN is not an executable"
else
    echo "== building mediaexport with -sanitize=thread into $ROOT/.build-tsan" >&2
    swift build --package-path "$ROOT" --scratch-path "$ROOT/.build-tsan" --sanitize=thread --product mediaexport >&2 \
        || die "the TSan build failed"
    BIN=$(swift build --package-path "$ROOT" --scratch-path "$ROOT/.build-tsan" --sanitize=thread --show-bin-path)/mediaexport
    [[ -x $BIN ]] || die "no binary at $BIN after the build"
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
# (grep without -q: reading all of nm's output keeps nm from dying of SIGPIPE, which pipefail would see)
if nm -D "$BIN" 2>/dev/null | grep __tsan_init >/dev/null || nm "$BIN" 2>/dev/null | grep __tsan_init >/dev/null; then
    SANITIZED="ThreadSanitizer"
else
    SANITIZED="not instrumented: races are not detected"
fi

TSAN_BASE="halt_on_error=0 exitcode=$TSAN_EXITCODE"
SYMBOLIZER=$(command -v llvm-symbolizer || true)
[[ -n $SYMBOLIZER ]] && TSAN_BASE+=" external_symbolizer_path=$SYMBOLIZER"
[[ -n ${STRESS_TSAN_OPTIONS:-} ]] && TSAN_BASE+=" $STRESS_TSAN_OPTIONS"

# SIGINT back to its default for the children (bash ignores it in `&` jobs); without coreutils' --default-signal
# they start with SIGINT ignored, which mediaexport overrides once it installs its own handling.
DEFAULT_SIGNALS=()
if env --default-signal=INT true 2>/dev/null; then DEFAULT_SIGNALS=(env "--default-signal=INT,QUIT"); fi

# ---------------------------------------------------------------------------------------------------- work folder
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mediaexport-stress.XXXXXX")
LOGDIR=$WORK/logs
INPUTS=$WORK/inputs
SHARED_OUT=$WORK/batch-shared
mkdir -p "$LOGDIR" "$INPUTS"

ACTIVE_PIDS=()
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    local p
    for p in "${ACTIVE_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'echo "stress: interrupted; work folder kept: $WORK" >&2; exit 130' INT TERM

echo "== mediaexport stress: $RUNS runs, seed $SEED" >&2
echo "   binary $BIN ($SANITIZED)" >&2
echo "   work   $WORK" >&2

# ---------------------------------------------------------------------------------------------------- inputs
gen() { ffmpeg -nostdin -v error -y "$@" || die "ffmpeg could not make an input: ffmpeg $*"; }
gen -f lavfi -i testsrc2=s=320x240:r=30:d=3 -f lavfi -i sine=f=440:r=48000:d=3 -c:v libx264 -preset ultrafast \
    -pix_fmt yuv420p -c:a aac -b:a 96k -shortest -movflags +faststart "$INPUTS/clip.mp4"
gen -f lavfi -i 'nullsrc=s=320x240:r=25:d=2,geq=lum=random(1)*255:cb=128:cr=128' -f lavfi -i sine=f=660:r=44100:d=2 \
    -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -shortest "$INPUTS/noise.mov"
gen -f lavfi -i testsrc2=s=320x240:r=24:d=2 -f lavfi -i sine=f=330:r=48000:d=2 -c:v libx264 -preset ultrafast \
    -pix_fmt yuv420p -c:a pcm_s16le -shortest "$INPUTS/pcm.mkv"
gen -f lavfi -i sine=f=550:r=44100:d=3 -c:a aac -b:a 96k "$INPUTS/voice.m4a"
size=$(stat -c %s "$INPUTS/clip.mp4")
head -c $(( size * 55 / 100 )) "$INPUTS/clip.mp4" > "$INPUTS/cut.mp4"
INPUT_NAMES=(clip.mp4 noise.mov pcm.mkv cut.mp4 voice.m4a)

# What ffprobe says of a file: its declared duration, and where its data really ends (the latest packet's end, over
# all streams: a file cut short keeps its declared duration but not its packets). The truncated input keeps both
# in a byte copy of it; every other output must match its source's within 0.5 s.
declare -A SRC_DUR=() SRC_END=()
probe() {  # FILE -> 0 and DUR, END when ffprobe reads it and sees a stream; 1 and REASON otherwise
    local text
    if ! text=$(ffprobe -v error -show_entries format=duration:stream=codec_type -show_entries packet=pts_time,duration_time \
            -of compact "$1" 2>/dev/null); then
        REASON="ffprobe cannot read it: $(ffprobe -v error "$1" 2>&1 | head -c 200 | tr '\n' ' ')"; return 1
    fi
    read -r DUR END STREAMS < <(awk -F'|' '
        $1 == "stream" { n++ }
        $1 == "format" { for (i = 2; i <= NF; i++) if ($i ~ /^duration=/) { d = substr($i, 10) } }
        $1 == "packet" { p = ""; l = 0
            for (i = 2; i <= NF; i++) { if ($i ~ /^pts_time=/) p = substr($i, 10); if ($i ~ /^duration_time=/) l = substr($i, 15) }
            if (p != "N/A" && p != "") { if (l == "N/A") l = 0; if (p + l > e) e = p + l } }
        END { printf "%s %.3f %d\n", (d == "" ? "N/A" : d), e, n }' <<<"$text")
    if (( STREAMS == 0 )); then REASON="no stream"; return 1; fi
    if [[ ! $DUR =~ ^[0-9.]+$ ]]; then REASON="no duration ($DUR)"; return 1; fi
    return 0
}
for name in "${INPUT_NAMES[@]}"; do
    probe "$INPUTS/$name" || die "generated input $name is unreadable: $REASON"
    SRC_DUR[${name%.*}]=$DUR; SRC_END[${name%.*}]=$END
done
INPUT_SUMS=$(cd "$INPUTS" && sha256sum -- *)

# ---------------------------------------------------------------------------------------------------- helpers
rand() { REPLY=$(( RANDOM % $1 )); }                    # 0 ≤ REPLY < $1 (sets REPLY: no subshell, seed stays ours)
pick() { rand $#; local a=("$@"); REPLY=${a[REPLY]}; }
now_us() { local t=$EPOCHREALTIME; REPLY=$(( 10#${t%.*} * 1000000 + 10#${t#*.} )); }
fmt_s() { printf -v REPLY '%d.%03d' $(( $1 / 1000000 )) $(( $1 % 1000000 / 1000 )); }

# The signal plan of one process: P_SIG (INT/TERM/""), P_AT and P_AT2 (µs after start, -1 for none).
draw_signal() {
    rand 100
    if (( REPLY < 15 )); then PLAN_SIG=""; PLAN_AT=-1; PLAN_AT2=-1; return; fi
    pick INT TERM; PLAN_SIG=$REPLY
    rand $(( MAX_DELAY_MS + 1 )); PLAN_AT=$(( REPLY * 1000 ))
    rand 10
    if (( REPLY == 0 )); then rand 301; PLAN_AT2=$(( PLAN_AT + REPLY * 1000 )); else PLAN_AT2=-1; fi
}

# Processes of the current run, by index.
P_PID=(); P_TAG=(); P_SIG=(); P_AT=(); P_AT2=(); P_START=(); P_SENT=(); P_SENT_US=(); P_RC=(); P_HANG=()
reset_procs() { P_PID=(); P_TAG=(); P_SIG=(); P_AT=(); P_AT2=(); P_START=(); P_SENT=(); P_SENT_US=(); P_RC=(); P_HANG=(); }

spawn() {  # TAG CMD... (the signal plan comes from PLAN_*)
    local tag=$1 i=${#P_PID[@]}; shift
    now_us; P_START[i]=$REPLY
    TSAN_OPTIONS="$TSAN_BASE log_path=$RUN_DIR/tsan" "${DEFAULT_SIGNALS[@]}" "$@" \
        >"$RUN_DIR/$tag.stdout" 2>"$RUN_DIR/$tag.stderr" </dev/null &
    P_PID[i]=$!; P_TAG[i]=$tag; P_SIG[i]=$PLAN_SIG; P_AT[i]=$PLAN_AT; P_AT2[i]=$PLAN_AT2
    P_SENT[i]=0; P_SENT_US[i]=0; P_RC[i]=""; P_HANG[i]=0
    ACTIVE_PIDS+=("$!")
    printf '%s\n' "$*" > "$RUN_DIR/$tag.cmd"
}

alive() {  # PID: running (a zombie not yet reaped by bash counts as ended)
    local state rest
    [[ -r /proc/$1/stat ]] || return 1
    { read -r rest < "/proc/$1/stat"; } 2>/dev/null || return 1
    rest=${rest##*") "}; state=${rest%% *}
    [[ $state != Z ]]
}

supervise() {  # sends the planned signals, enforces the time limits, collects exit codes
    local n=${#P_PID[@]} i now running rc
    while :; do
        running=0
        now_us; now=$REPLY
        for (( i = 0; i < n; i++ )); do
            [[ -n ${P_RC[i]} ]] && continue
            if ! alive "${P_PID[i]}"; then
                rc=0; { wait "${P_PID[i]}"; } 2>/dev/null || rc=$?
                P_RC[i]=$rc
                continue
            fi
            running=1
            local elapsed=$(( now - P_START[i] ))
            if [[ -n ${P_SIG[i]} ]]; then
                if (( P_SENT[i] == 0 && elapsed >= P_AT[i] )); then
                    kill -s "${P_SIG[i]}" "${P_PID[i]}" 2>/dev/null && { P_SENT[i]=1; P_SENT_US[i]=$now; }
                elif (( P_SENT[i] == 1 && P_AT2[i] >= 0 && elapsed >= P_AT2[i] )); then
                    kill -s "${P_SIG[i]}" "${P_PID[i]}" 2>/dev/null && P_SENT[i]=2
                fi
            fi
            if (( P_HANG[i] == 0 )) && { (( elapsed > TIMEOUT_S * 1000000 )) ||
                    (( P_SENT[i] > 0 && now - P_SENT_US[i] > GRACE_S * 1000000 )); }; then
                P_HANG[i]=1
                cat "/proc/${P_PID[i]}/task/"*/stat > "$RUN_DIR/${P_TAG[i]}.hang-threads" 2>/dev/null || true
                kill -KILL "${P_PID[i]}" 2>/dev/null || true
            fi
        done
        (( running )) || break
        sleep 0.02
    done
    ACTIVE_PIDS=()
}

# ---------------------------------------------------------------------------------------------------- tallies
declare -A KIND_RUNS=() HIST=() SIGNALS=()
RACES=0; CRASHES=0; HANGS=0; BAD_EXITS=0; LEFTOVERS=0; BROKEN=0; WARNINGS=0; LATE_SIGNALS=0
ALLOW_LATE=${STRESS_ALLOW_LATE_SIGNAL:-0}
FAILED_RUNS=()
ISSUES=(); WARNS=(); NOTES=()
note() { NOTES+=("$1"); }
issue() { ISSUES+=("$1"); }
warn() { WARNS+=("$1"); }

DOCUMENTED=" 0 1 3 64 65 66 73 78 79 80 129 130 141 143 "
CRASH_CODES=" 132 133 134 135 136 139 $TSAN_EXITCODE "

check_exit() {  # INDEX EXPECTED-CODES ("0 1 3 …")
    local i=$1 expected=" $2 " rc=${P_RC[$1]} tag=${P_TAG[$1]} sig=${P_SIG[$1]} sent=${P_SENT[$1]}
    local sigcode=""
    if (( sent > 0 )); then [[ $sig == INT ]] && sigcode=130 || sigcode=143; fi
    HIST[$KIND:$rc]=$(( ${HIST[$KIND:$rc]:-0} + 1 ))
    if (( P_HANG[i] )); then
        HANGS=$((HANGS + 1)); issue "hang: $tag did not end (signal ${sig:-none} sent ${sent}x), killed"
        return
    fi
    if [[ $CRASH_CODES == *" $rc "* ]] || { (( rc == 137 )); }; then
        local name; name=$(kill -l "$(( rc - 128 ))" 2>/dev/null || echo "?")
        (( rc == TSAN_EXITCODE )) && name="TSan exitcode"
        CRASHES=$((CRASHES + 1)); issue "crash: $tag exited $rc ($name)"; return
    fi
    if (( rc == 130 || rc == 143 )); then
        if [[ $rc != "$sigcode" ]]; then BAD_EXITS=$((BAD_EXITS + 1)); issue "bad exit: $tag exited $rc, but the signal it got was ${sig:-none}$( ((sent)) || echo ' (none sent: it had ended)')"; fi
        return
    fi
    if [[ $DOCUMENTED != *" $rc "* ]]; then
        BAD_EXITS=$((BAD_EXITS + 1)); issue "bad exit: $tag exited $rc (not a documented code)"; return
    fi
    if (( rc == 1 )); then note "$tag exited 1: $(grep -v '^mediaexport: note:' "$RUN_DIR/$tag.stderr" | tail -1 | cut -c1-160)"; fi
    if [[ $expected != *" $rc "* ]]; then
        WARNINGS=$((WARNINGS + 1)); warn "unexpected exit: $tag exited $rc ($(tail -1 "$RUN_DIR/$tag.stderr" | head -c 200))"
    fi
}

check_tsan() {
    local f n fatal=0 total=0
    for f in "$RUN_DIR"/tsan.*; do
        [[ -e $f ]] || continue
        n=$(grep -c 'WARNING: ThreadSanitizer' "$f" || true)
        total=$(( total + n ))
        if grep -q -e 'FATAL: ThreadSanitizer' -e 'ERROR: ThreadSanitizer' "$f"; then fatal=1; fi
    done
    if (( total > 0 )); then
        RACES=$(( RACES + total ))
        issue "race: $total ThreadSanitizer report(s): $(grep -h -m1 -A0 'SUMMARY: ThreadSanitizer' "$RUN_DIR"/tsan.* | head -1)"
    fi
    if (( fatal )); then CRASHES=$((CRASHES + 1)); issue "crash: ThreadSanitizer error ($(grep -h -m1 -e FATAL -e ERROR "$RUN_DIR"/tsan.* | head -1))"; fi
}

# Temporary files and other hidden files. A SIGKILLed (hung) process may legitimately leave its temporary file.
check_leftovers() {  # DIR... (scanned recursively; the batch's own files are allowed)
    local d f name found=()
    for d in "$@"; do
        [[ -d $d ]] || continue
        while IFS= read -r -d '' f; do
            name=${f##*/}
            case $name in
                .mediaexport.lock|.mediaexport.sqlite|.mediaexport.sqlite-wal|.mediaexport.sqlite-shm|.mediaexport.sqlite-journal) ;;
                *) found+=("$f") ;;
            esac
        done < <(find "$d" -name '.*' ! -name . ! -name .. -print0 -o -name '*.mediaexport-tmp-*' -print0)
    done
    if (( ${#found[@]} )); then
        local any_hang=0 i
        for (( i = 0; i < ${#P_HANG[@]}; i++ )); do (( P_HANG[i] )) && any_hang=1; done
        if (( any_hang )); then
            warn "leftover after a SIGKILL (expected): ${found[*]##*/}"
        else
            LEFTOVERS=$(( LEFTOVERS + ${#found[@]} ))
            issue "leftover: ${found[*]#"$WORK"/}"
        fi
        # Keep them for inspection, out of the way of the next run.
        mkdir -p "$RUN_DIR/leftovers"
        for f in "${found[@]}"; do mv -f -- "$f" "$RUN_DIR/leftovers/" 2>/dev/null || true; done
    fi
}

source_of() {  # OUTPUT-FILE -> REPLY = source key (base name of an input) or ""
    local base=${1##*/}; base=${base%.*}
    if [[ -n ${SRC_DUR[$base]+x} ]]; then REPLY=$base; return; fi
    base=${base%-[0-9]*}
    if [[ -n ${SRC_DUR[$base]+x} ]]; then REPLY=$base; else REPLY=""; fi
}

near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.5) }'; }
check_media() {  # FILE SOURCE-KEY (or "") -> 0 complete, 1 broken (issue recorded)
    local f=$1 src=$2 why=""
    if ! probe "$f"; then why=$REASON
    elif [[ -n $src ]] && ! near "$DUR" "${SRC_DUR[$src]}"; then why="declares ${DUR}s, its source ${SRC_DUR[$src]}s"
    elif [[ -n $src ]] && ! near "$END" "${SRC_END[$src]}"; then why="its data ends at ${END}s, its source's at ${SRC_END[$src]}s"
    elif [[ -z $src ]] && ! awk -v e="$END" 'BEGIN { exit !(e > 0) }'; then why="no packets"
    fi
    if [[ -n $why ]]; then BROKEN=$((BROKEN + 1)); issue "broken output: ${f#"$WORK"/}: $why"; return 1; fi
    return 0
}

media_files() {  # DIR -> MEDIA=(non-hidden files, recursive, without our .cmd/.std* files)
    MEDIA=()
    [[ -d $1 ]] || return 0
    local f
    while IFS= read -r -d '' f; do MEDIA+=("$f"); done < <(find "$1" -type f ! -name '.*' -print0 | sort -z)
}

signal_label() {  # INDEX -> REPLY
    local i=$1
    if [[ -z ${P_SIG[i]} ]]; then REPLY="no signal"; return; fi
    local label
    fmt_s "${P_AT[i]}"; label="${P_SIG[i]}@${REPLY}s"
    if (( P_AT2[i] >= 0 )); then fmt_s "${P_AT2[i]}"; label+="+${REPLY}s"; fi
    if (( P_SENT[i] == 0 )); then label+="(not sent)"; fi
    REPLY=$label
}

tally_signals() {
    local i
    for (( i = 0; i < ${#P_PID[@]}; i++ )); do
        if [[ -z ${P_SIG[i]} ]]; then SIGNALS[none]=$(( ${SIGNALS[none]:-0} + 1 ))
        elif (( P_SENT[i] == 0 )); then SIGNALS[late]=$(( ${SIGNALS[late]:-0} + 1 ))
        else
            SIGNALS[${P_SIG[i]}]=$(( ${SIGNALS[${P_SIG[i]}]:-0} + 1 ))
            (( P_SENT[i] == 2 )) && SIGNALS[double]=$(( ${SIGNALS[double]:-0} + 1 ))
        fi
    done
    return 0
}

# ---------------------------------------------------------------------------------------------------- one run
run_single() {
    local preset ext input overwrite=0 blocker=0 out_dir=$RUN_DIR/out args
    rand 10
    if (( REPLY == 0 )); then preset=hevc-highest; else pick highest 1280x720 passthrough; preset=$REPLY; fi
    pick "${INPUT_NAMES[@]}"; input=$REPLY
    rand 20
    if (( REPLY < 11 )); then ext=mp4; elif (( REPLY < 15 )); then ext=mov; elif (( REPLY < 18 )); then ext=mkv; else ext=m4a; fi
    rand 100
    if (( REPLY < 15 )); then overwrite=1; blocker=1      # an output in the way, replaced
    elif (( REPLY < 30 )); then overwrite=1               # --overwrite with nothing in the way
    elif (( REPLY < 35 )); then blocker=1                 # in the way, no --overwrite: 73
    fi
    mkdir -p "$out_dir"
    local target=$out_dir/result.$ext blocker_sum=""
    if (( blocker )); then
        cp "$INPUTS/voice.m4a" "$target"
        blocker_sum=$(sha256sum < "$target")
    fi
    args=(--preset "$preset" --stall-timeout "$STALL_TIMEOUT" -q)
    (( overwrite )) && args+=(--overwrite)
    draw_signal
    spawn export "$BIN" "${args[@]}" "$INPUTS/$input" "$target"
    supervise 2>/dev/null  # bash's own "Segmentation fault …" job notices; the checks report crashes
    signal_label 0
    DESC="$preset $input→result.$ext"
    if (( overwrite )); then DESC+=" --overwrite"; fi
    if (( blocker )); then DESC+=" (in the way)"; fi
    DESC+=" $REPLY"

    local expected="0 1 3"
    (( blocker && !overwrite )) && expected+=" 73"
    check_exit 0 "$expected"

    # The outputs: every file in the folder is an output (or the file that was in the way).
    local rc=${P_RC[0]} f produced=0 unchanged_blocker=0
    media_files "$out_dir"
    for f in "${MEDIA[@]}"; do
        if [[ $f == "$target" && -n $blocker_sum && $(sha256sum < "$f") == "$blocker_sum" ]]; then
            unchanged_blocker=1; continue
        fi
        produced=1
        check_media "$f" "${input%.*}" || true
    done
    if (( P_HANG[0] == 0 )); then
        if [[ $rc == 0 || $rc == 3 ]]; then
            (( produced )) || { BROKEN=$((BROKEN + 1)); issue "broken: exit $rc but no output written"; }
        elif (( produced )) || { [[ -n $blocker_sum ]] && (( ! unchanged_blocker )); }; then
            local what="an output was written"
            [[ -n $blocker_sum ]] && (( ! unchanged_blocker )) && what="the file in the way was replaced"
            if [[ $rc == 130 || $rc == 143 ]] && grep -q '^Exported ' "$RUN_DIR/export.stdout"; then
                # The export had completed (and said so) when the signal ended the process: the exit status
                # says "cancelled" although the output is in place.
                LATE_SIGNALS=$((LATE_SIGNALS + 1))
                local msg
                msg="exit $rc after the export completed ($what; stdout: $(head -1 "$RUN_DIR/export.stdout" | cut -c1-60)…)"
                if (( ALLOW_LATE )); then warn "$msg"; else issue "$msg"; fi
            else
                BROKEN=$((BROKEN + 1)); issue "broken: exit $rc, yet $what"
            fi
        fi
    fi
    check_leftovers "$RUN_DIR" "$INPUTS"
}

batch_args() {  # -> BARGS
    local preset
    rand 20
    if (( REPLY == 0 )); then preset=hevc-highest; else pick highest highest 1280x720 1280x720 passthrough; preset=$REPLY; fi
    BARGS=(batch "$INPUTS" --out "$1" --preset "$preset" --jobs 2 -q)
    rand 10; (( REPLY < 3 )) && BARGS+=(--policy always)
    rand 10
    if (( REPLY < 2 )); then BARGS+=(--report "$RUN_DIR/report.csv"); elif (( REPLY < 4 )); then BARGS+=(--report "$RUN_DIR/report.json"); fi
    BPRESET=$preset
    return 0
}

check_batch_outputs() {  # OUT-DIR FRESH(0/1) ANY-SUCCESS(0/1)
    local out=$1 fresh=$2 success=$3 f src
    media_files "$out"
    for f in "${MEDIA[@]}"; do
        source_of "$f"; src=$REPLY
        check_media "$f" "$src" || true
    done
    if (( fresh && success )) && (( ${#MEDIA[@]} < ${#INPUT_NAMES[@]} )); then
        BROKEN=$((BROKEN + 1)); issue "broken: batch succeeded but wrote ${#MEDIA[@]} outputs for ${#INPUT_NAMES[@]} inputs"
    fi
}

run_batch() {
    local out fresh=1
    rand 10
    if (( REPLY < 4 )); then out=$SHARED_OUT; fresh=0; else out=$RUN_DIR/out; fi
    batch_args "$out"
    draw_signal
    spawn batch "$BIN" "${BARGS[@]}"
    supervise 2>/dev/null  # bash's own "Segmentation fault …" job notices; the checks report crashes
    signal_label 0
    if (( fresh )); then DESC="$BPRESET fresh"; else DESC="$BPRESET shared"; fi
    DESC+=" ${BARGS[*]:9} $REPLY"; DESC=${DESC//"$RUN_DIR"\//}
    check_exit 0 "0 1 3"
    local rc=${P_RC[0]} success=0
    [[ $rc == 0 || $rc == 3 ]] && (( P_HANG[0] == 0 )) && success=1
    check_batch_outputs "$out" "$fresh" "$success"
    if (( fresh )); then check_leftovers "$RUN_DIR" "$INPUTS"; else check_leftovers "$RUN_DIR" "$INPUTS" "$out"; fi
}

run_batch_pair() {
    local out=$RUN_DIR/out wait_flag=()
    rand 2; (( REPLY )) && wait_flag=(--wait)
    batch_args "$out"
    draw_signal
    spawn batch1 "$BIN" "${BARGS[@]}"
    local first_desc="$BPRESET"
    rand 301; sleep "0.$(printf '%03d' "$REPLY")"
    batch_args "$out"
    draw_signal
    spawn batch2 "$BIN" "${BARGS[@]}" "${wait_flag[@]}"
    supervise 2>/dev/null  # bash's own "Segmentation fault …" job notices; the checks report crashes
    signal_label 0; local l1=$REPLY
    signal_label 1
    DESC="$first_desc + $BPRESET${wait_flag:+ --wait} [$l1] [$REPLY]"
    check_exit 0 "0 1 3 73"
    check_exit 1 "0 1 3 73"
    local success=0 i
    for i in 0 1; do [[ ${P_RC[i]} == 0 || ${P_RC[i]} == 3 ]] && (( P_HANG[i] == 0 )) && success=1; done
    check_batch_outputs "$out" 1 "$success"
    check_leftovers "$RUN_DIR" "$INPUTS"
}

# ---------------------------------------------------------------------------------------------------- main loop
START_ALL=$SECONDS
for (( run = 1; run <= RUNS; run++ )); do
    RUN_DIR=$WORK/runs/$run
    mkdir -p "$RUN_DIR"
    reset_procs
    ISSUES=(); WARNS=(); NOTES=()
    rand 100
    if (( REPLY < 70 )); then KIND=single; elif (( REPLY < 95 )); then KIND="batch"; else KIND=batch-pair; fi
    KIND_RUNS[$KIND]=$(( ${KIND_RUNS[$KIND]:-0} + 1 ))
    now_us; t0=$REPLY
    case $KIND in
        single) run_single ;;
        batch) run_batch ;;
        batch-pair) run_batch_pair ;;
    esac
    check_tsan
    tally_signals
    now_us; fmt_s $(( REPLY - t0 )); took=$REPLY
    codes=""; for (( i = 0; i < ${#P_RC[@]}; i++ )); do codes+="${codes:+/}${P_RC[i]}"; done
    if (( ${#ISSUES[@]} )); then verdict="FAIL"; else verdict="ok"; fi
    printf '[%4d/%d] %-10s %-70s exit %-7s %6ss %s\n' "$run" "$RUNS" "$KIND" "$DESC" "$codes" "$took" "$verdict" >&2
    for m in "${NOTES[@]}"; do printf '           note: %s\n' "$m" >&2; done
    for m in "${WARNS[@]}"; do printf '           warning: %s\n' "$m" >&2; done
    for m in "${ISSUES[@]}"; do printf '           %s\n' "$m" >&2; done
    printf '%d\t%s\t%s\t%s\t%s\t%s\n' "$run" "$KIND" "$codes" "$took" "$verdict" "$DESC" >> "$LOGDIR/runs.tsv"
    if (( ${#ISSUES[@]} )); then
        FAILED_RUNS+=("$run")
        { echo "run $run ($KIND): $DESC"; printf '  %s\n' "${ISSUES[@]}"; echo "  folder: $RUN_DIR"; } >> "$LOGDIR/failures.txt"
        for f in "$RUN_DIR"/tsan.*; do [[ -e $f ]] && cp "$f" "$LOGDIR/run$run-${f##*/}"; done
    else
        # Passed: drop the outputs, keep the logs of a run that warned.
        rm -rf "$RUN_DIR/out"
        (( ${#WARNS[@]} )) || rm -rf "$RUN_DIR"
    fi
done
ELAPSED=$(( SECONDS - START_ALL ))

# The inputs must be exactly as generated.
if [[ $(cd "$INPUTS" && sha256sum -- *) != "$INPUT_SUMS" ]]; then
    BROKEN=$((BROKEN + 1)); echo "stress: the inputs changed during the runs" >&2
fi

# ---------------------------------------------------------------------------------------------------- summary
{
    echo
    echo "== mediaexport stress summary: $RUNS runs in ${ELAPSED}s (seed $SEED; $SANITIZED)"
    printf '%-12s %5s   %s\n' kind runs "exit codes (code×count)"
    for k in single batch batch-pair; do
        line=$(for key in "${!HIST[@]}"; do
                   if [[ ${key%%:*} == "$k" ]]; then echo "${key#*:} ${HIST[$key]}"; fi
               done | sort -n | awk '{ printf "%s×%s  ", $1, $2 }')
        printf '%-12s %5d   %s\n' "$k" "${KIND_RUNS[$k]:-0}" "${line:--}"
    done
    printf 'signals: none %d, SIGINT %d, SIGTERM %d (of which twice: %d), exited before its signal %d\n' \
        "${SIGNALS[none]:-0}" "${SIGNALS[INT]:-0}" "${SIGNALS[TERM]:-0}" "${SIGNALS[double]:-0}" "${SIGNALS[late]:-0}"
    printf '%-34s %5s\n' check count
    printf '%-34s %5d\n' "races (ThreadSanitizer reports)" "$RACES" "crashes" "$CRASHES" "hangs" "$HANGS" \
        "bad exit codes" "$BAD_EXITS" "temporary/hidden files left" "$LEFTOVERS" "broken outputs" "$BROKEN"
    printf '%-34s %5d%s\n' "exit 130/143 after completing" "$LATE_SIGNALS" "$( ((ALLOW_LATE)) && echo '   (allowed: warnings only)')"
    printf '%-34s %5d   (warnings only)\n' "unexpected documented exit codes" "$WARNINGS"
} >&2

if (( RACES + CRASHES + HANGS + BAD_EXITS + LEFTOVERS + BROKEN + (ALLOW_LATE ? 0 : LATE_SIGNALS) > 0 )); then
    echo "FAILED: runs ${FAILED_RUNS[*]:-}; details in $LOGDIR/failures.txt, run folders kept in $WORK/runs" >&2
    exit 1
fi
echo "PASSED" >&2
if [[ -n ${STRESS_KEEP:-} ]]; then echo "work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
exit 0
