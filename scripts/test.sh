#!/usr/bin/env bash
# One command from a fresh Debian 12 machine with Swift: install what is missing, build, run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
