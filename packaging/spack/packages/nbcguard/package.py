# nbcguard for Spack: built against whichever MPI provider the spec names.
#   spack repo add <checkout>/packaging/spack
#   spack install nbcguard ^mpich               (or ^openmpi, ^mvapich2, an external MPI)
#   spack install nbcguard launcher=srun ^openmpi+pmi schedulers=slurm
#   spack develop --path <checkout> nbcguard@main   (a checkout of one's own)
# The installed tree is the one `cmake --install` writes
# (docs/use-in-your-project.md): find_package(nbcguard CONFIG) in a
# project built with this package loaded.
from spack.package import *


class Nbcguard(CMakePackage):
    """Overlap conformance and regression tests for MPI nonblocking
    collectives: the synchronized-barrier method of Denis, Jaeger, Jeannot
    and Reynier (CCPE 2022), verdicts from per-library threshold files, as
    CTest tests."""

    # Where the repository is cloned from: a placeholder, set to the site's
    # copy; or build a checkout with `spack develop --path`.
    git = "https://git.example.org/nbcguard/nbcguard.git"

    version("main", branch="main")

    variant("tests", default=False, description="Build the unit and MPI integration tests (GoogleTest)")
    variant(
        "launcher",
        default="mpiexec",
        values=("mpiexec", "srun"),
        multi=False,
        description="How the installed tests start MPI ranks: the MPI's mpiexec, or Slurm's srun",
    )

    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi")
    depends_on("yaml-cpp")
    depends_on("nlohmann-json@3:")
    depends_on("cli11")
    depends_on("pugixml")
    depends_on("hwloc")
    depends_on("cairo+png+svg+ft+fc")  # heat-maps: PNG and SVG, text in DejaVu Sans
    depends_on("sqlite")
    depends_on("postgresql")  # libpq: the results history on a PostgreSQL server
    depends_on("googletest", when="+tests")
    depends_on("slurm", when="launcher=srun")

    def cmake_args(self):
        mpi = self.spec["mpi"]
        return [
            # FindMPI from the provider's own wrapper and launcher; the
            # implementation is read from its library's version string.
            self.define("MPI_C_COMPILER", mpi.mpicc),
            # mpiexec in the provider's bin/ (Open MPI, MPICH, MVAPICH2);
            # a provider that names it otherwise needs this line changed.
            self.define("MPIEXEC_EXECUTABLE", join_path(mpi.prefix.bin, "mpiexec")),
            self.define_from_variant("NBCGUARD_BUILD_TESTS", "tests"),
            self.define_from_variant("NBCGUARD_LAUNCHER", "launcher"),
            # Spack has its own compiler wrappers and caches.
            self.define("NBCGUARD_CCACHE", False),
        ]
