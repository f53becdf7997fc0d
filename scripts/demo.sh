#!/usr/bin/env bash
# One command from a fresh Debian 12 machine with Swift: install what is missing, build, and export a
# bundled fixture with the `highest` preset into ./out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release
mkdir -p out
.build/release/mediaexport --preset highest --overwrite Fixtures/landscape.mov out/landscape.mp4
.build/release/mediaexport probe out/landscape.mp4
