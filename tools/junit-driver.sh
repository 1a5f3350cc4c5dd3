# Sourced by tools/failed-tests.sh and tools/inconclusive-tests.sh: sets
# $driver to the nbcguard driver that reads JUnit files (NBCGUARD_DRIVER, else
# the first build/<preset>/harness/nbcguard of this checkout), or exits 2.
driver=${NBCGUARD_DRIVER:-}
if [ -z "$driver" ]; then
  for candidate in "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"/build/*/harness/nbcguard; do
    [ -x "$candidate" ] && { driver=$candidate; break; }
  done
fi
if [ -z "$driver" ] || [ ! -x "$driver" ]; then
  echo "$(basename "$0"): no nbcguard driver to read JUnit files: build a preset" \
       "(build/<preset>/harness/nbcguard) or set NBCGUARD_DRIVER" >&2
  exit 2
fi
