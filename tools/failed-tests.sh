#!/usr/bin/env bash
# Lists the tests that failed in CTest JUnit files, one line each:
# "<test>: <the line of its output that says why>" (the rule is
# nbcguard's, harness/include/nbcguard/junit.h: the last line with FAIL,
# Error, error or failed, else its last line). A failed test's name at the
# end of a long pipeline log is what the reader needs first. Exit 0, or 2
# when a file cannot be read or no nbcguard driver is built.
#   bash tools/failed-tests.sh JUNIT.xml...
# The driver: NBCGUARD_DRIVER, else the first build/<preset>/harness/nbcguard.
set -uo pipefail
source "$(dirname "$0")/junit-driver.sh"
"$driver" junit --list failed "$@"
