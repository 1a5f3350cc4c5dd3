#!/usr/bin/env bash
# Lists the tests that failed in CTest JUnit files, one line each:
# "<test>: <the last line of its output that names the failure>" (the last
# line with FAIL, Error, error or failed; else its last line). Exit 0, or 2
# when a file cannot be read. A failed test's name at the end of a long
# pipeline log is what the reader needs first.
#   bash tools/failed-tests.sh JUNIT.xml...
# ctest writes a failed test as <testcase ... status="fail"> with
# <failure message="..."/> and its output in <system-out>.
set -uo pipefail
for file in "$@"; do
  [ -r "$file" ] || { echo "failed-tests: cannot read $file" >&2; exit 2; }
  awk 'BEGIN { RS = "</testcase>" }
       /status="fail"/ {
         name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name)
         n = split($0, lines, "\n"); reason = ""; last = ""; prev = ""
         for (i = 1; i <= n; i++) {
           line = lines[i]; sub(/.*<system-out>/, "", line); sub(/<\/system-out>.*/, "", line)
           sub(/^[ \t]*/, "", line)
           if (line == "" || line ~ /^<(failure|testcase|\/)/) continue
           last = line
           if (line ~ /FAIL|Error|error|failed/) reason = line
           if (prev ~ /^CMake Error/) reason = prev " " line  # the message is on the next line
           prev = line
         }
         if (reason == "") reason = last
         if (length(reason) > 300) reason = substr(reason, 1, 300) "..."
         gsub(/&quot;/, "\"", reason); gsub(/&apos;/, "\047", reason)
         gsub(/&lt;/, "<", reason); gsub(/&gt;/, ">", reason); gsub(/&amp;/, "\\&", reason)
         gsub(/&quot;/, "\"", name); gsub(/&amp;/, "\\&", name)
         print name ": " reason
       }' "$file"
done
