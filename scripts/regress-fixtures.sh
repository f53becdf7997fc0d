#!/usr/bin/env bash
# Our own CI regression: export the bundled fixtures with `low` and `passthrough` and compare with the committed
# baseline, as users of `mediaexport regress` do with theirs. Pass --update-baseline to refresh it.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${MEDIAEXPORT_BIN:-.build/debug/mediaexport}"
"$BIN" regress Fixtures/*.mov Fixtures/*.mp4 Fixtures/*.m4a Fixtures/*.ts Fixtures/assets \
  --preset low --preset passthrough --baseline Fixtures/regress-baseline.json "$@"
