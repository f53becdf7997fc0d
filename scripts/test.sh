#!/usr/bin/env bash
# One command from a fresh Debian 12 machine with Swift: install what is missing, build, run the fixture
# regression against its committed baseline (natively, then part of it as on two other CPUs under qemu-user),
# then the test suite, then its same-bytes tests again with the machine loaded (scripts/same-bytes-under-load.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
bash scripts/regress-fixtures.sh
bash scripts/regress-emulated.sh
swift test --skip-build "$@"
bash scripts/same-bytes-under-load.sh
