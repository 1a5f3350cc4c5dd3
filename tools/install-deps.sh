#!/usr/bin/env bash
# Installs what nbcguard needs from Debian 12's archive. Idempotent: packages
# already present are skipped, and apt is not touched at all when nothing is
# missing. Run as root (or with sudo available).
set -euo pipefail

# What building and running nbcguard needs (--build-only: these alone, as
# packaging/container/Dockerfile's build stage installs them) ...
build_packages=(
  build-essential cmake pkg-config
  ninja-build                       # the presets' generator: every target's objects compiled side by side
  ccache                            # the presets' builds share their MPI-independent objects (CMakeLists.txt)
  openmpi-bin libopenmpi-dev        # Open MPI 4.1: mpicc.openmpi, mpirun.openmpi
  mpich libmpich-dev                # MPICH 4.0: mpicc.mpich, mpiexec.mpich
  libyaml-cpp-dev                   # case and threshold files
  nlohmann-json3-dev                # results.json
  libpugixml-dev                    # nbcguard junit: reasons into the JUnit files CTest writes
  libcli11-dev                      # command lines of the driver and harness
  libgtest-dev                      # unit tests
  libcairo2-dev                     # heat-maps and r_mpi_impact bars (PNG, SVG)
  libhwloc-dev                      # cores and NUMA nodes for progress-thread placement
  libsqlite3-dev libpq-dev          # the results history: an SQLite file, or a PostgreSQL server
  fonts-dejavu-core                 # the pictures' font
  libomp-dev                        # (gcc's libgomp ships with gcc; kept for clang users)
)
# ... and what its tests and pipeline need besides.
test_packages=(
  python3-jsonschema                # tools/validate-results.py: results.json against its JSON Schema (tests)
  postgresql                        # the history's tests: tools/postgres-server.sh's local server
  chromium                          # screenshot test of the HTML run summary (skips without it)
  clang libclang-rt-14-dev          # the sanitize job: ASan/UBSan unit tests and libFuzzer targets (GCC has no libFuzzer)
  rsync curl unzip ca-certificates  # the pipeline: gitlab-ci-local needs rsync; the nightly job fetches its baseline
  slurmctld slurmd slurm-client munge  # srun launcher, slurm tests: tools/slurm-cluster.sh's one-node cluster
  iproute2 iputils-ping             # netns launcher, netns tests: tools/netns-cluster.sh (ip, tc, readiness)
)
build_only=false
if [ "${1:-}" = "--build-only" ]; then
  build_only=true
elif [ $# -gt 0 ]; then
  echo "install-deps: unknown argument '$1'; usage: install-deps.sh [--build-only]" >&2
  exit 2
fi
packages=("${build_packages[@]}")
$build_only || packages+=("${test_packages[@]}")
# Node.js for gitlab-ci-local (tools/pipeline.sh); Debian's (18) is enough
# where the machine has none of its own.
if ! $build_only; then
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

# gitlab-ci-local runs .gitlab-ci.yml here. 4.60.0 is pinned: it runs on
# Node 18-20, newer releases need a newer Node.
GITLAB_CI_LOCAL_VERSION=4.60.0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
install_gitlab_ci_local() {
  $build_only && return 0
  if [ "$(gitlab-ci-local --version 2>/dev/null)" != "$GITLAB_CI_LOCAL_VERSION" ]; then
    echo "install-deps: installing gitlab-ci-local@$GITLAB_CI_LOCAL_VERSION (npm)"
    $SUDO npm install --global --no-fund --no-audit "gitlab-ci-local@$GITLAB_CI_LOCAL_VERSION"
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  install_gitlab_ci_local
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_gitlab_ci_local
