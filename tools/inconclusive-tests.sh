#!/usr/bin/env bash
# Lists the tests that ended INCONCLUSIVE in CTest JUnit files: reported as
# skipped (never passed), with a line "INCONCLUSIVE ..." or "<test>
# INCONCLUSIVE: ..." in their output. Prints one line per such test,
# "<test>: <its last INCONCLUSIVE line>", and nothing else; exit 0, or 2 when
# a file cannot be read or no nbcguard driver is built.
#   bash tools/inconclusive-tests.sh JUNIT.xml...
# The driver: NBCGUARD_DRIVER, else the first build/<preset>/harness/nbcguard.
set -uo pipefail
source "$(dirname "$0")/junit-driver.sh"
"$driver" junit --list inconclusive "$@"
