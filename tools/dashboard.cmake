# CTest dashboard script for nightly runs (ctest -S): configure, build and
# test one MPI library's tree with the Nightly model, and submit to CDash
# when a URL is given; without one, run and keep the results locally
# (<binary dir>/Testing, as CDash would receive them).
#
#   ctest -S tools/dashboard.cmake -DMPI=mpich [-DLABELS=^nightly$] [-DEXCLUDE_LABELS=regex]
#         [-DBINARY_DIR=build/mpich] [-DBASELINE=dir] [-DCDASH_URL=https://host/submit.php?project=nbcguard]
#         [-DMODEL=Nightly] [-DJUNIT=file.xml]
#
# MPI is a configure preset (CMakePresets.json). BASELINE makes every case
# test compare itself with the same test in that results directory and fail
# on a significant worsening (NBCGUARD_BASELINE_DIR). Tests run one at a
# time: they are timing measurements.
cmake_minimum_required(VERSION 3.25)

if(NOT MPI)
  message(FATAL_ERROR "dashboard.cmake: give the library: ctest -S tools/dashboard.cmake -DMPI=openmpi|mpich")
endif()
get_filename_component(CTEST_SOURCE_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
if(NOT BINARY_DIR)
  set(BINARY_DIR "${CTEST_SOURCE_DIRECTORY}/build/${MPI}")
endif()
get_filename_component(CTEST_BINARY_DIRECTORY "${BINARY_DIR}" ABSOLUTE)
if(NOT DEFINED LABELS)
  set(LABELS "^nightly$")
endif()
if(NOT MODEL)
  set(MODEL Nightly)
endif()

site_name(CTEST_SITE)
set(CTEST_BUILD_NAME "debian12-${MPI}")
set(CTEST_CMAKE_GENERATOR "Ninja")  # as the presets
set(CTEST_NIGHTLY_START_TIME "00:00:00 UTC")
set(CTEST_BUILD_FLAGS "-j2")

# The preset carries the library's compiler wrappers and launcher; the
# baseline is a cache variable (an empty one turns the comparison off).
# A directory an older tree configured with Make is configured afresh
# (tools/configure.sh does the same for the other jobs).
set(fresh "")
if(EXISTS "${CTEST_BINARY_DIRECTORY}/CMakeCache.txt")
  file(STRINGS "${CTEST_BINARY_DIRECTORY}/CMakeCache.txt" generator REGEX "^CMAKE_GENERATOR:INTERNAL=")
  if(NOT generator STREQUAL "CMAKE_GENERATOR:INTERNAL=${CTEST_CMAKE_GENERATOR}")
    set(fresh "--fresh ")
  endif()
endif()
set(CTEST_CONFIGURE_COMMAND
    "\"${CMAKE_COMMAND}\" --preset ${MPI} ${fresh}-S \"${CTEST_SOURCE_DIRECTORY}\" -B \"${CTEST_BINARY_DIRECTORY}\" \"-DNBCGUARD_BASELINE_DIR=${BASELINE}\"")

ctest_start(${MODEL})
ctest_configure(RETURN_VALUE configure_rc)
if(NOT configure_rc EQUAL 0)
  message(FATAL_ERROR "dashboard: configure failed (${configure_rc})")
endif()
ctest_build(RETURN_VALUE build_rc NUMBER_ERRORS build_errors)
if(NOT build_rc EQUAL 0 OR build_errors GREATER 0)
  message(FATAL_ERROR "dashboard: build failed (${build_errors} errors)")
endif()

set(test_args INCLUDE_LABEL "${LABELS}" PARALLEL_LEVEL 1 RETURN_VALUE test_rc)
if(EXCLUDE_LABELS)
  list(APPEND test_args EXCLUDE_LABEL "${EXCLUDE_LABELS}")
endif()
if(JUNIT)
  list(APPEND test_args OUTPUT_JUNIT "${JUNIT}")
endif()
ctest_test(${test_args})

if(CDASH_URL)
  set(CTEST_SUBMIT_URL "${CDASH_URL}")
  ctest_submit(RETURN_VALUE submit_rc)
  if(NOT submit_rc EQUAL 0)
    message(WARNING "dashboard: submission to ${CDASH_URL} failed; results are kept in ${CTEST_BINARY_DIRECTORY}/Testing")
  endif()
else()
  message(STATUS "dashboard: no CDash URL (CDASH_URL): results kept in ${CTEST_BINARY_DIRECTORY}/Testing")
endif()

if(NOT test_rc EQUAL 0)
  message(FATAL_ERROR "dashboard: tests failed")
endif()
