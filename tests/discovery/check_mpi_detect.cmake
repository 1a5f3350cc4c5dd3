# An MPI given only by its compiler wrapper and launcher (no preset, no
# NBCGUARD_MPI_IMPL), as a site points nbcguard at its own build: a project
# of only nbcguard_find_mpi() must read the implementation from the
# library's version string (EXPECT, the label this build was configured
# with), and for Open MPI give mpirun --oversubscribe (and
# --allow-run-as-root when configured as root) on top of the user's flags,
# once; NBCGUARD_MPIEXEC_AUTO_FLAGS=OFF leaves exactly MPIEXEC_PREFLAGS.
#   cmake -DSOURCE_DIR= -DWORK= -DMPI_C_COMPILER= -DMPIEXEC_EXECUTABLE= -DEXPECT= -P check_mpi_detect.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/src")
file(WRITE "${WORK}/src/CMakeLists.txt" "
cmake_minimum_required(VERSION 3.25)
project(mpi_detect C)
include(\"${SOURCE_DIR}/cmake/NbcguardMpi.cmake\")
nbcguard_find_mpi()
file(WRITE \"\${CMAKE_BINARY_DIR}/impl.txt\" \"\${NBCGUARD_MPI_IMPL_DETECTED}\")
file(WRITE \"\${CMAKE_BINARY_DIR}/flags.txt\" \"\${NBCGUARD_MPIEXEC_PREFLAGS}\")
file(WRITE \"\${CMAKE_BINARY_DIR}/version.txt\" \"\${MPI_C_LIBRARY_VERSION_STRING}\")
")

# Configures the project in WORK/<tag>, its cache first set by `init` (CMake
# code: lists pass intact that way); sets impl, flags, version.
function(detect tag init)
  file(WRITE "${WORK}/${tag}-init.cmake" "${init}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -C "${WORK}/${tag}-init.cmake" -S "${WORK}/src" -B "${WORK}/${tag}"
                          "-DMPI_C_COMPILER=${MPI_C_COMPILER}" "-DMPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring against ${MPI_C_COMPILER} (${tag}) failed:\n${out}${err}")
  endif()
  message("${out}")
  file(READ "${WORK}/${tag}/impl.txt" impl)
  file(READ "${WORK}/${tag}/flags.txt" flags)
  file(READ "${WORK}/${tag}/version.txt" version)
  set(impl "${impl}" PARENT_SCOPE)
  set(flags "${flags}" PARENT_SCOPE)
  set(version "${version}" PARENT_SCOPE)
endfunction()

detect(plain "")
if(version STREQUAL "")
  message(FATAL_ERROR "FindMPI read no version string from ${MPI_C_COMPILER}: the label would rest on file names")
endif()
if(NOT impl STREQUAL EXPECT)
  message(FATAL_ERROR "detected '${impl}' for ${MPI_C_COMPILER}, expected '${EXPECT}' (version: ${version})")
endif()
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
set(want "")
if(impl STREQUAL "openmpi")
  set(want --oversubscribe)
  if(uid STREQUAL "0")
    list(APPEND want --allow-run-as-root)
  endif()
endif()
if(NOT flags STREQUAL want)
  message(FATAL_ERROR "launcher flags '${flags}' for ${impl}, expected '${want}'")
endif()

# The user's own flags come first and are not repeated.
detect(user "set(MPIEXEC_PREFLAGS \"--oversubscribe;--bind-to;core\" CACHE STRING \"\")")
set(want_user --oversubscribe --bind-to core)
if(impl STREQUAL "openmpi" AND uid STREQUAL "0")
  list(APPEND want_user --allow-run-as-root)
endif()
if(NOT flags STREQUAL want_user)
  message(FATAL_ERROR "launcher flags '${flags}' with the user's, expected '${want_user}'")
endif()

detect(off "set(MPIEXEC_PREFLAGS \"--bind-to;core\" CACHE STRING \"\")\nset(NBCGUARD_MPIEXEC_AUTO_FLAGS OFF CACHE BOOL \"\")")
if(NOT flags STREQUAL "--bind-to;core")
  message(FATAL_ERROR "NBCGUARD_MPIEXEC_AUTO_FLAGS=OFF: flags '${flags}', expected exactly the user's")
endif()
message(STATUS "mpi-detect: ${impl} from '${version}', launcher flags '${want}'")
