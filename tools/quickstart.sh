#!/usr/bin/env bash
# The main job on the default case: installs what is missing, builds the MPICH
# configuration, and measures MPI_Ibcast on 2 ranks in every deployment of
# cases/ibcast.yaml, printing the ratios and the verdict. Pass another case
# file and options to measure something else, e.g.
#   bash tools/quickstart.sh cases/ireduce.yaml --deployment basic
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
preset=${NBCGUARD_PRESET:-mpich}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
if [ $# -eq 0 ]; then set -- cases/ibcast.yaml; fi
exec "build/$preset/harness/nbcguard" run "$@"
