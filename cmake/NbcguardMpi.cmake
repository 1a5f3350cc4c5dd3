# Short name of the MPI implementation found by FindMPI ("openmpi", "mpich"),
# used for CTest labels and build directories. The authoritative check at run
# time is MPI_Get_library_version (threshold selection); this is only a label.
function(nbcguard_detect_mpi_impl out)
  if(NBCGUARD_MPI_IMPL)
    set(${out} "${NBCGUARD_MPI_IMPL}" PARENT_SCOPE)
    return()
  endif()
  set(text "${MPI_C_LIBRARY_VERSION_STRING} ${MPI_C_COMPILER} ${MPIEXEC_EXECUTABLE}")
  if(text MATCHES "Open MPI|openmpi")
    set(impl openmpi)
  elseif(text MATCHES "MPICH|mpich")
    set(impl mpich)
  else()
    set(impl mpi)
  endif()
  message(STATUS "nbcguard: MPI implementation label: ${impl} (${MPIEXEC_EXECUTABLE})")
  set(${out} "${impl}" PARENT_SCOPE)
endfunction()
