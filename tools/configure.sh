#!/usr/bin/env bash
# Configures a preset's own build directory (build/<preset>):
#   bash tools/configure.sh PRESET [CMAKE_ARGS...]
# as `cmake --preset PRESET CMAKE_ARGS...`, except that a directory an older
# tree configured with another generator (the presets used Make before they
# used Ninja, CMakePresets.json) is configured afresh (--fresh) instead of
# failing on the mismatch; its objects come back from ccache.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: configure.sh PRESET [CMAKE_ARGS...]}
shift
generator=Ninja  # the presets' "generator" (CMakePresets.json, preset base)
cache="build/$preset/CMakeCache.txt"
fresh=()
if [ -f "$cache" ] && ! grep -qx "CMAKE_GENERATOR:INTERNAL=$generator" "$cache"; then
  echo "configure: build/$preset was configured with '$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$cache")';" \
       "configuring it afresh with $generator" >&2
  fresh=(--fresh)
fi
exec cmake --preset "$preset" "${fresh[@]}" "$@"
