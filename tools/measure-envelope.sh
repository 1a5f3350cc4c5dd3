#!/usr/bin/env bash
# Runs every quick-tier case ROUNDS times (default 2) for each built preset
# and prints the envelope of each ratio: where the CI-tier limits in
# thresholds/*.yaml come from. Results stay in build/envelope/.
#   bash tools/measure-envelope.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
out=build/envelope
rm -rf "$out"
mkdir -p "$out/logs"
for preset in ${NBCGUARD_PRESETS:-openmpi mpich}; do
  driver=build/$preset/harness/nbcguard
  [ -x "$driver" ] || { echo "build the $preset preset first" >&2; exit 2; }
  for ((r = 1; r <= rounds; r++)); do
    for c in $(grep -l -E '^labels:.*\bquick\b' cases/*.yaml); do
      "$driver" run "$c" --out "$out/$preset/r$r" > "$out/logs/$preset.r$r.$(basename "$c" .yaml).log" 2>&1 || true
    done
  done
done
build/mpich/harness/nbcguard envelope "$out" 2>/dev/null || build/openmpi/harness/nbcguard envelope "$out"
