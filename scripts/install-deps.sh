#!/usr/bin/env bash
# Installs the Debian 12 packages mediaexport needs (FFmpeg 5.1's libraries and headers, SQLite, zlib, pkg-config,
# the ffmpeg/ffprobe CLIs used only by tests and fixture scripts, and chromium, which tests use headless to screenshot
# `regress --html` reports). Does nothing when all are present.
set -euo pipefail
PKGS=(pkg-config libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavfilter-dev libsqlite3-dev zlib1g-dev ffmpeg time chromium)
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
