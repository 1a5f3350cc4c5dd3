#!/usr/bin/env bash
# tools/ci-job.sh runs the commands that read what the tests left (junit,
# summary, compare, history) under NBCGUARD_REPORT_TIMEOUT. Here every one of them hangs (a
# driver that only sleeps): the job must end soon after the limit, name the
# command that did not finish, and fail.
#   bash check_report_limit.sh <source dir> <scratch dir>
set -u
src=${1:?source dir}
work=${2:?scratch dir}
rm -rf "$work"
mkdir -p "$work/tools" "$work/build/fake/harness" "$work/build/fake/results"
cp "$src/tools/ci-job.sh" "$work/tools/"
printf '#!/bin/sh\nexec sleep 1000\n' > "$work/build/fake/harness/nbcguard"
chmod +x "$work/build/fake/harness/nbcguard"
# One CTest test, which leaves a results directory for the reports to read.
cat > "$work/build/fake/CTestTestfile.cmake" <<CTEST
add_test(leaves-results mkdir -p "$work/build/fake/results/t")
set_tests_properties(leaves-results PROPERTIES LABELS quick)
CTEST
start=$(date +%s)
out=$(NBCGUARD_REPORT_TIMEOUT=1 bash "$work/tools/ci-job.sh" test fake 2>&1)
rc=$?
elapsed=$(( $(date +%s) - start ))
printf '%s\n' "$out"
fail=0
for command in junit summary; do
  if ! grep -q "ci-job: nbcguard $command did not finish within 1 s" <<<"$out"; then
    echo "FAIL: the job does not name the $command that did not finish"; fail=1
  fi
done
if [ "$rc" -eq 0 ]; then
  echo "FAIL: the job passed although its report commands never finished"; fail=1
fi
if [ "$elapsed" -gt 60 ]; then
  echo "FAIL: the job took ${elapsed} s with a 1 s limit per report command"; fail=1
fi
if pgrep -f "$work/build/fake/harness/nbcguard" > /dev/null; then
  echo "FAIL: a report command is still running"; fail=1
  pkill -f "$work/build/fake/harness/nbcguard"
fi
[ $fail -eq 0 ] && echo "report-time-limit: job ended after ${elapsed} s, exit ${rc}"
exit $fail
