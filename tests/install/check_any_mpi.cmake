# nbcguard built against an MPI found only through MPI_HOME: Debian's MPICH
# unpacked under a prefix of its own (tools/mpi-prefix.sh), configured with
# no preset and no NBCGUARD_MPI_IMPL. Checked: FindMPI takes the prefix's
# wrapper and launcher, the implementation is read from the library's
# version string (mpich), the harness loads the prefix's libmpich, and a
# small case runs through the prefix's mpiexec and is judged by the shipped
# thresholds for MPICH.
#   cmake -D SOURCE_DIR=<repo> -D WORK=<scratch> -D BUILD_DIR=<build dir for it>
#         -D BUILD_TYPE=... -D CXX_FLAGS=... -D C_FLAGS=... [-D GENERATOR=...] -P check_any_mpi.cmake
# BUILD_DIR is best at the depth of the presets' build directories
# (build/<name>), and GENERATOR theirs (Ninja), where ccache reuses their
# MPI-independent objects; BUILD_DIR is removed first only when it holds the
# marker file an earlier run left.
cmake_policy(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../mpi/run_driver.cmake)
# BUILD_DIR is outside the test's own directory: it is removed only when an
# earlier run of this test made it (its marker file), never a directory of
# someone else's.
if(EXISTS "${BUILD_DIR}" AND NOT EXISTS "${BUILD_DIR}/.nbcguard-any-mpi")
  message(FATAL_ERROR "${BUILD_DIR} exists and was not made by this test; remove it or move it away")
endif()
file(REMOVE_RECURSE "${WORK}" "${BUILD_DIR}")
file(WRITE "${BUILD_DIR}/.nbcguard-any-mpi" "made by tests/install/check_any_mpi.cmake\n")
execute_process(COMMAND bash "${SOURCE_DIR}/tools/mpi-prefix.sh" "${WORK}/mpi" RESULT_VARIABLE rc
                OUTPUT_VARIABLE mpi_home ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tools/mpi-prefix.sh failed (${rc}): ${err}")
endif()
set(generator)
if(GENERATOR)
  set(generator -G "${GENERATOR}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BUILD_DIR}" ${generator} "-DMPI_HOME=${mpi_home}"
                        -DNBCGUARD_BUILD_TESTS=OFF "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
                        "-DCMAKE_CXX_FLAGS_${BUILD_TYPE_UPPER}=${CXX_FLAGS}" "-DCMAKE_C_FLAGS_${BUILD_TYPE_UPPER}=${C_FLAGS}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring with MPI_HOME=${mpi_home} failed (${rc}):\n${out}${err}")
endif()
string(FIND "${out}" "nbcguard: MPI implementation label: mpich (${mpi_home}/bin/mpiexec; MPICH Version:" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the implementation was not read as mpich from ${mpi_home}'s library:\n${out}")
endif()
file(STRINGS "${BUILD_DIR}/CMakeCache.txt" cache REGEX "^(MPI_C_COMPILER|MPIEXEC_EXECUTABLE):")
foreach(expected "MPI_C_COMPILER:FILEPATH=${mpi_home}/bin/mpicc" "MPIEXEC_EXECUTABLE:FILEPATH=${mpi_home}/bin/mpiexec")
  if(NOT expected IN_LIST cache)
    message(FATAL_ERROR "FindMPI did not take the prefix's programs: ${cache}")
  endif()
endforeach()
# The programs a run needs (the driver, the MPI harness, the computation
# alone): the conformance program and the preload libraries are MPI code
# this check does not run, and each MPI-dependent object is compiled anew
# here (the prefix's include path is not the preset's).
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" -j2 --target nbcguard nbcguard-harness
                        nbcguard-compute
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building against ${mpi_home} failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ldd "${BUILD_DIR}/harness/nbcguard-harness" OUTPUT_VARIABLE ldd)
string(FIND "${ldd}" "libmpich.so.12 => ${mpi_home}/lib/" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the harness does not load the prefix's libmpich:\n${ldd}")
endif()

nbcguard_run("nbcguard run (MPI under ${mpi_home})" "${BUILD_DIR}/harness/nbcguard" run
             "${SOURCE_DIR}/tests/mpi/data/e2e.yaml" --quiet --no-confirm --out "${WORK}/out")
set(results "${WORK}/out/e2e/n2/basic/results.json")
if(NOT EXISTS "${results}")
  message(FATAL_ERROR "no ${results}")
endif()
file(READ "${results}" json)
string(JSON command GET "${json}" launch command)
string(JSON label GET "${json}" implementation_label)
string(JSON file GET "${json}" verdict threshold_file)
string(FIND "${command}" "${mpi_home}/bin/mpiexec " at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "the ranks were not started by ${mpi_home}/bin/mpiexec: ${command}")
endif()
if(NOT label STREQUAL "mpich" OR NOT file STREQUAL "${SOURCE_DIR}/thresholds/mpich.yaml")
  message(FATAL_ERROR "results.json: implementation '${label}', thresholds '${file}'; expected mpich, "
                      "${SOURCE_DIR}/thresholds/mpich.yaml")
endif()
message("MPI under ${mpi_home}: built, ran e2e through its mpiexec, judged by ${file} (exit ${rc})")
