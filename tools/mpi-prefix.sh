#!/usr/bin/env bash
# An MPI installed under a prefix of its own, as a site or an MPI developer
# has one: Debian's MPICH packages (the version installed on this machine)
# unpacked with dpkg -x into PREFIX, their compiler wrapper pointed at
# PREFIX, and mpicc / mpiexec named as `make install` names them.
#   bash tools/mpi-prefix.sh PREFIX
# Prints the MPI_HOME to configure with (PREFIX/usr). The .deb files come
# from apt's cache, else from Debian's archive (apt-get download). PREFIX
# must be new, empty, or made by an earlier run of this script.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: mpi-prefix.sh PREFIX" >&2; exit 2; }
prefix=$(realpath -m -- "$1")
if [ -e "$prefix" ] && [ ! -f "$prefix/.nbcguard-mpi-prefix" ] && [ -n "$(ls -A "$prefix" 2>/dev/null)" ]; then
  echo "mpi-prefix: $prefix exists and was not made by this script; choose a new directory" >&2
  exit 2
fi
case "$prefix" in *[\|\&\\]*) echo "mpi-prefix: '$prefix' holds | & or \\; choose a plainer path" >&2; exit 2 ;; esac
packages=(mpich libmpich12 libmpich-dev)
version=$(dpkg-query -W -f='${Version}' mpich 2>/dev/null) ||
  { echo "mpi-prefix: Debian's mpich is not installed (bash tools/install-deps.sh)" >&2; exit 1; }
arch=$(dpkg --print-architecture)
rm -rf "$prefix"
mkdir -p "$prefix/debs"
echo "made by tools/mpi-prefix.sh" > "$prefix/.nbcguard-mpi-prefix"
for p in "${packages[@]}"; do
  # the file name's version has its epoch's ':' as %3a
  deb="/var/cache/apt/archives/${p}_${version//:/%3a}_${arch}.deb"
  if [ ! -f "$deb" ]; then
    (cd "$prefix/debs" && apt-get download -q "$p=$version" >/dev/null) ||
      { echo "mpi-prefix: $deb is not in apt's cache and apt-get download $p=$version failed" >&2; exit 1; }
    deb=$(ls "$prefix/debs/${p}_"*.deb)
  fi
  dpkg -x "$deb" "$prefix"
done
bin="$prefix/usr/bin"
# The wrapper names its installation directories; point them at the prefix.
sed -i -e "s|^prefix=/usr\$|prefix=$prefix/usr|" -e "s|^exec_prefix=/usr\$|exec_prefix=$prefix/usr|" \
       -e "s|^includedir=/usr/|includedir=$prefix/usr/|" -e "s|^libdir=/usr/|libdir=$prefix/usr/|" \
       "$bin/mpicc.mpich"
grep -qF "libdir=$prefix/" "$bin/mpicc.mpich" ||
  { echo "mpi-prefix: $bin/mpicc.mpich has no libdir= line to point at the prefix" >&2; exit 1; }
ln -sf mpicc.mpich "$bin/mpicc"
ln -sf mpiexec.hydra "$bin/mpiexec"
echo "$prefix/usr"
