#!/usr/bin/env bash
# The fixture regression as on other CPUs: part of Fixtures/regress-baseline.json (the HDR samples, whose tone
# mapping runs float code that differs by vector unit unless pinned, an HEVC and an interlaced one, and the
# slow-motion asset, whose sound is slowed by atempo's float FFT; about 19 s of the run per CPU) checked under
# `qemu-x86_64 -cpu Haswell` (AVX2, FMA) and `-cpu Nehalem` (SSE4.2, no AVX), Debian's qemu-user, against the same
# committed baseline: `--deterministic` outputs must be the same bytes on every x86-64 CPU. Emulation is about ten
# times slower than native, hence the subset; REGRESS_SAMPLES and REGRESS_CPUS choose others (all fixtures: see
# scripts/regress-fixtures.sh). Skipped, saying so, where qemu-x86_64 is not installed.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v qemu-x86_64 >/dev/null; then
  echo "regress-emulated: qemu-x86_64 not installed (Debian: qemu-user); not run" >&2
  exit 0
fi
export REGRESS_SAMPLES="${REGRESS_SAMPLES:-Fixtures/hdr-pq.mp4 Fixtures/hdr-hlg.mov Fixtures/hevc.mp4 Fixtures/interlaced.ts Fixtures/edits/slomo.MOV}"
for cpu in ${REGRESS_CPUS:-Haswell Nehalem}; do
  echo "== regression under qemu-x86_64 -cpu $cpu"
  # QEMU warns on stderr about CPUID features it cannot emulate: harmless, and left out here.
  MEDIAEXPORT_RUNNER="qemu-x86_64 -cpu $cpu" bash scripts/regress-fixtures.sh --subset "$@" 2> >(grep -v "TCG doesn't support" >&2)
done
