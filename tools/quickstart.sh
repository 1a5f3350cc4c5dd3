#!/usr/bin/env bash
# The main job on the default case: installs what is missing, builds the MPICH
# configuration, and measures MPI_Ibcast on 2 ranks with library defaults
# (cases/ibcast.yaml) and with MPICH's asynchronous progress
# (cases/ibcast-progress.yaml), printing the ratios and the verdicts. Pass
# other case files and options to measure something else, e.g.
#   bash tools/quickstart.sh cases/ireduce.yaml --deployment basic
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
preset=${NBCGUARD_PRESET:-mpich}
bash tools/configure.sh "$preset" >/dev/null
cmake --build --preset "$preset"
if [ $# -eq 0 ]; then set -- cases/ibcast.yaml cases/ibcast-progress.yaml; fi
exec "build/$preset/harness/nbcguard" run "$@"
