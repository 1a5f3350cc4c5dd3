#!/usr/bin/env bash
# Lists the tests that ended INCONCLUSIVE in CTest JUnit files: reported as
# skipped by their SKIP_REGULAR_EXPRESSION (never passed), with a line
# "INCONCLUSIVE ..." or "<test> INCONCLUSIVE: ..." in their output.
# Prints one line per such test, "<test>: <its last INCONCLUSIVE line>",
# and nothing else; exit 0, or 2 when a file cannot be read.
#   bash tools/inconclusive-tests.sh JUNIT.xml...
# ctest writes each test as <testcase ... status="notrun"> with
# <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/> and the output in
# <system-out> (uncompressed: the nightly dashboard script runs with
# --no-compress-output for this).
set -uo pipefail
for file in "$@"; do
  [ -r "$file" ] || { echo "inconclusive-tests: cannot read $file" >&2; exit 2; }
  awk 'BEGIN { RS = "</testcase>" }
       /status="notrun"/ && /SKIP_REGULAR_EXPRESSION_MATCHED/ && /INCONCLUSIVE/ {
         name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name)
         n = split($0, lines, "\n"); reason = ""
         for (i = 1; i <= n; i++) if (lines[i] ~ /INCONCLUSIVE/) reason = lines[i]
         sub(/.*<system-out>/, "", reason); sub(/^[ \t]*/, "", reason)
         gsub(/&quot;/, "\"", reason); gsub(/&apos;/, "\047", reason)
         gsub(/&lt;/, "<", reason); gsub(/&gt;/, ">", reason); gsub(/&amp;/, "\\&", reason)
         gsub(/&quot;/, "\"", name); gsub(/&amp;/, "\\&", name)
         print name ": " reason
       }' "$file"
done
