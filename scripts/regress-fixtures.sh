#!/usr/bin/env bash
# Our own CI regression: export the bundled fixtures with `low` and `passthrough` and compare with the committed
# baseline, as users of `mediaexport regress` do with theirs. `--deterministic`: the outputs are byte-identical on
# any x86-64 CPU and core count, so the baseline records each output's SHA-256 and holds on every machine (and
# under `qemu-x86_64 -cpu Haswell|Nehalem`: scripts/regress-emulated.sh). Pass --update-baseline to refresh it.
# MEDIAEXPORT_RUNNER runs the tool through another program (e.g. "qemu-x86_64 -cpu Nehalem"); REGRESS_SAMPLES
# replaces the sample list (with --subset, to check part of the baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${MEDIAEXPORT_BIN:-.build/debug/mediaexport}"
read -r -a runner <<< "${MEDIAEXPORT_RUNNER:-}"
read -r -a samples <<< "${REGRESS_SAMPLES:-Fixtures/*.mov Fixtures/*.mp4 Fixtures/*.m4a Fixtures/*.ts Fixtures/assets Fixtures/edits}"
# shellcheck disable=SC2086
"${runner[@]}" "$BIN" regress ${samples[@]} --preset low --preset passthrough --deterministic \
  --baseline Fixtures/regress-baseline.json "$@"
