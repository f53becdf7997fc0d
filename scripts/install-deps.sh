#!/usr/bin/env bash
# Installs the Debian 12 packages mediaexport needs (FFmpeg 5.1's libraries and headers, zimg's header for the choice
# of its code path, SQLite, zlib, pkg-config), what only tests use: the ffmpeg/ffprobe CLIs, chromium (headless,
# to screenshot `regress --html` reports), qemu-user (to run the regression as on other CPUs), stress-ng (to run the
# same-bytes tests on a loaded machine), GStreamer's tools, plugins and libav decoders (an independent player of the
# streaming packages' HLS and DASH manifests), and valgrind, with which the release build lists the functions to place
# first (scripts/release-build.sh, for the package). Does nothing when all are present.
set -euo pipefail
PKGS=(pkg-config libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavfilter-dev libzimg-dev libsqlite3-dev zlib1g-dev ffmpeg time chromium qemu-user valgrind stress-ng zsh fish gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "Installing: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
