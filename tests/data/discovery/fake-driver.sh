#!/bin/sh
# Stands in for `nbcguard list --config FILE --format json`: prints FILE, a
# fixture test list, and fails on any other command line.
if [ "$#" -ne 5 ] || [ "$1" != list ] || [ "$2" != --config ] || [ "$4" != --format ] || [ "$5" != json ]; then
  echo "fake-driver: unexpected arguments: $*" >&2
  exit 2
fi
# FAKE_DRIVER_LOG: a file that gets one line per run (discovery's cache).
[ -z "${FAKE_DRIVER_LOG:-}" ] || echo run >>"$FAKE_DRIVER_LOG"
cat "$3"
