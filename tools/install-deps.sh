#!/usr/bin/env bash
# Installs what nbcguard needs from Debian 12's archive. Idempotent: packages
# already present are skipped, and apt is not touched at all when nothing is
# missing. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  openmpi-bin libopenmpi-dev        # Open MPI 4.1: mpicc.openmpi, mpirun.openmpi
  mpich libmpich-dev                # MPICH 4.0: mpicc.mpich, mpiexec.mpich
  libyaml-cpp-dev                   # case and threshold files
  nlohmann-json3-dev                # results.json
  libcli11-dev                      # command lines of the driver and harness
  libgtest-dev                      # unit tests
  libomp-dev                        # (gcc's libgomp ships with gcc; kept for clang users)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
