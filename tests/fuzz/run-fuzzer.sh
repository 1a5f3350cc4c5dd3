#!/usr/bin/env bash
# Runs one libFuzzer target for a fixed budget from a seed corpus, as a CTest
# test: exit 0 when the budget ran out without a finding, non-zero on a
# crash, a sanitizer report, a timeout or running out of memory.
#
#   run-fuzzer.sh FUZZER ARTIFACT_DIR DICT SECONDS PATTERN SEED...
#
# SEED: files or directories; every file under a directory whose name
# matches PATTERN (a find -name glob) is a seed. The seeds are copied into a
# temporary corpus, so the run never writes into the source tree; what the
# fuzzer adds to it is discarded afterwards. A reproducer of a finding is
# written to ARTIFACT_DIR (crash-*, timeout-*, oom-*, leak-*) and its path
# printed; `FUZZER REPRODUCER` runs it again.
set -uo pipefail
fuzzer=$1 artifacts=$2 dict=$3 seconds=$4 pattern=$5
shift 5

corpus=$(mktemp -d "${TMPDIR:-/tmp}/nbcguard-fuzz.XXXXXX")
trap 'rm -rf "$corpus"' EXIT
n=0
for seed in "$@"; do
  while IFS= read -r -d '' f; do
    n=$((n + 1))
    cp "$f" "$corpus/seed-$n-$(basename "$f")"
  done < <(find "$seed" -type f -name "$pattern" -print0)
done
echo "run-fuzzer: $(basename "$fuzzer"): $n seed file(s), ${seconds}s, reproducers in $artifacts/"
mkdir -p "$artifacts"

"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -dict="$dict" -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus"
status=$?
if [ $status -ne 0 ]; then
  echo "run-fuzzer: FINDING (exit $status); reproducer(s):"
  ls -1t "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-* "$artifacts"/leak-* 2>/dev/null | head -5
  echo "run-fuzzer: rerun with: $fuzzer <reproducer>"
fi
exit $status
