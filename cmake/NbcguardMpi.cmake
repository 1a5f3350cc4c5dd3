# Short name of the MPI implementation found by FindMPI ("openmpi", "mpich",
# "mvapich", "intelmpi"; "mpi" when not recognised), used for CTest names,
# labels and build directories. Read from the library's own version string
# (MPI_Get_library_version, which FindMPI runs when
# MPI_DETERMINE_LIBRARY_VERSION is set), with the same signatures, in the
# same order, as the driver's run-time check (harness/src/spec/
# library_version.cc); the compiler's and launcher's names only where no
# version string could be read. NBCGUARD_MPI_IMPL overrides it.
function(nbcguard_detect_mpi_impl out)
  if(NBCGUARD_MPI_IMPL)
    set(${out} "${NBCGUARD_MPI_IMPL}" PARENT_SCOPE)
    return()
  endif()
  set(version "${MPI_C_LIBRARY_VERSION_STRING}")
  set(impl "")
  if(version MATCHES "Intel\\(R\\) MPI Library")
    set(impl intelmpi)
  elseif(version MATCHES "MVAPICH2 Version")
    set(impl mvapich)
  elseif(version MATCHES "Open MPI")
    set(impl openmpi)
  elseif(version MATCHES "MPICH Version")
    set(impl mpich)
  elseif(version STREQUAL "")
    set(names "${MPI_C_COMPILER} ${MPIEXEC_EXECUTABLE}")
    if(names MATCHES "openmpi")
      set(impl openmpi)
    elseif(names MATCHES "mpich")
      set(impl mpich)
    endif()
  endif()
  if(impl STREQUAL "")
    set(impl mpi)
  endif()
  string(REGEX REPLACE "[\r\n].*" "" first_line "${version}")
  message(STATUS "nbcguard: MPI implementation label: ${impl} (${MPIEXEC_EXECUTABLE}; ${first_line})")
  set(${out} "${impl}" PARENT_SCOPE)
endfunction()

# MPIEXEC_PREFLAGS and what Open MPI's mpirun needs on a machine like the
# ones nbcguard runs on, where the user's flags lack it (each added once,
# and said so): --oversubscribe (tests of 4 ranks run on 2 cores; mpirun
# refuses more ranks than slots without it) and, when configured as root,
# --allow-run-as-root (mpirun refuses root without it or
# OMPI_ALLOW_RUN_AS_ROOT=1 + OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1). MPICH's
# Hydra needs neither. NBCGUARD_MPIEXEC_AUTO_FLAGS=OFF: exactly
# MPIEXEC_PREFLAGS.
function(nbcguard_mpiexec_preflags out)
  set(flags ${MPIEXEC_PREFLAGS})
  option(NBCGUARD_MPIEXEC_AUTO_FLAGS "Add the launcher options the MPI library needs here (Open MPI: --oversubscribe, --allow-run-as-root as root)" ON)
  if(NBCGUARD_MPIEXEC_AUTO_FLAGS AND NBCGUARD_MPI_IMPL_DETECTED STREQUAL "openmpi")
    set(needed --oversubscribe)
    execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(uid STREQUAL "0")
      list(APPEND needed --allow-run-as-root)
    endif()
    foreach(flag IN LISTS needed)
      if(NOT flag IN_LIST flags)
        list(APPEND flags ${flag})
        message(STATUS "nbcguard: mpirun gets ${flag} (NBCGUARD_MPIEXEC_AUTO_FLAGS=OFF to leave it out)")
      endif()
    endforeach()
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# FindMPI (C), then the implementation's label (NBCGUARD_MPI_IMPL_DETECTED)
# and the launcher's options (NBCGUARD_MPIEXEC_PREFLAGS) in the caller's
# scope. MPI_DETERMINE_LIBRARY_VERSION has FindMPI run a program that prints
# MPI_Get_library_version, which the label is read from.
macro(nbcguard_find_mpi)
  set(MPI_DETERMINE_LIBRARY_VERSION TRUE)
  find_package(MPI REQUIRED COMPONENTS C)
  nbcguard_detect_mpi_impl(NBCGUARD_MPI_IMPL_DETECTED)
  nbcguard_mpiexec_preflags(NBCGUARD_MPIEXEC_PREFLAGS)
endmacro()
