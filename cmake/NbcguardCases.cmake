# Tests from case files, discovered when ctest runs (like
# gtest_discover_tests with DISCOVERY_MODE PRE_TEST): adding a YAML file
# under cases/ adds tests with no CMake edit and no rebuild.

# Nightly regression mode: results of an earlier run (its results/ or --out
# directory). When set, every generated case test runs with --baseline and
# fails on a regression against the same test there (nbcguard compare).
set(NBCGUARD_BASELINE_DIR "" CACHE PATH
    "Results directory of a baseline run; when set, case tests fail on a regression against it")

# Calibrated sizes kept between runs (calibration_cache.h): every run starts
# its size search where the last run of the same configuration ended. Empty:
# no cache (every run calibrates from scratch).
set(NBCGUARD_CALIBRATION_CACHE "${CMAKE_BINARY_DIR}/calibration-cache" CACHE PATH
    "Directory of cached calibrated sizes (empty: off)")

# What the driver needs to launch the harness, in one file next to it
# (cmake/NbcguardLauncher.cmake): nbcguard-config.json with the launcher
# NBCGUARD_LAUNCHER selects, plus one file per launcher this build can use.
set(_cfg "${CMAKE_BINARY_DIR}/nbcguard-config.json")
nbcguard_write_configs()

# NBCGUARD_DISCOVERY_JSON: the driver lists the tests as JSON and CMake
# writes them (nbcguard_discover_cases, cmake/NbcguardDiscover.cmake);
# off: the driver prints the CTest script itself (list --format ctest).
option(NBCGUARD_DISCOVERY_JSON "Discover case tests from the driver's JSON test list" OFF)
if(NBCGUARD_DISCOVERY_JSON)
  include(${CMAKE_CURRENT_LIST_DIR}/NbcguardDiscover.cmake)
  nbcguard_discover_cases(DRIVER nbcguard CONFIG "${_cfg}" CASES "${PROJECT_SOURCE_DIR}/cases")
  return()
endif()

set(_include "${CMAKE_BINARY_DIR}/nbcguard_cases_include.cmake")
file(GENERATE OUTPUT "${_include}" CONTENT "
set(_driver \"$<TARGET_FILE:nbcguard>\")
if(NOT EXISTS \"\${_driver}\")
  add_test(nbcguard_cases_NOT_BUILT nbcguard_cases_NOT_BUILT)
else()
  execute_process(COMMAND \"\${_driver}\" list --config \"${_cfg}\" --format ctest
                  OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR \"nbcguard list failed (exit \${_rc}):\\n\${_err}\${_out}\")
  endif()
  file(WRITE \"${CMAKE_BINARY_DIR}/nbcguard_cases_tests.cmake\" \"\${_out}\")
  include(\"${CMAKE_BINARY_DIR}/nbcguard_cases_tests.cmake\")
endif()
")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${_include}")
