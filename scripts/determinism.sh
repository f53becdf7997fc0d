#!/usr/bin/env bash
# Checks `--deterministic` on this machine as on others: exports each INPUT with PRESET natively, on one core
# (`taskset -c 0`), and under `qemu-x86_64 -cpu Haswell` and `-cpu Nehalem` (Debian's qemu-user), and prints the
# output's SHA-256 for each; exits 1 when any differs. Emulation is 5-10 times slower: use short inputs.
#   scripts/determinism.sh PRESET INPUT... [-- EXTRA EXPORT OPTIONS]
#   scripts/determinism.sh low Fixtures/hdr-pq.mp4 Fixtures/hdr-hlg.mov
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${MEDIAEXPORT_BIN:-.build/debug/mediaexport}"
preset="$1"; shift
inputs=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do inputs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
status=0
for input in "${inputs[@]}"; do
  sums=()
  for how in native one-core Haswell Nehalem; do
    case "$how" in
      native) run=() ;;
      one-core) run=(taskset -c 0) ;;
      *) run=(qemu-x86_64 -cpu "$how") ;;
    esac
    out="$work/$how.mp4"
    # No stall timeout: emulation is slow enough to look like a stall.
    "${run[@]}" "$BIN" -q -y --deterministic --stall-timeout 0 --preset "$preset" "$@" "$input" "$out" 2> >(grep -v "TCG doesn't support" >&2) >/dev/null
    sum=$(sha256sum "$out" | cut -c1-64)
    sums+=("$sum")
    printf '%-28s %-14s %-9s %s\n' "$(basename "$input")" "$preset" "$how" "$sum"
  done
  for s in "${sums[@]}"; do [ "$s" = "${sums[0]}" ] || { echo "DIFFERS: $input" >&2; status=1; }; done
done
exit $status
