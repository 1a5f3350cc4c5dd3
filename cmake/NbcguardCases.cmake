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

# The driver lists the tests as JSON (`nbcguard list --format json`) and
# CMake writes them when ctest runs (nbcguard_discover_cases,
# cmake/NbcguardDiscover.cmake): a site sets test properties from its own
# CMake with PROPERTIES.
include(${CMAKE_CURRENT_LIST_DIR}/NbcguardDiscover.cmake)
nbcguard_discover_cases(DRIVER nbcguard CONFIG "${_cfg}" CASES "${PROJECT_SOURCE_DIR}/cases")
