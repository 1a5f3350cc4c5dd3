# Runs one reference-behaviour case through the driver, then checks the
# measured ratios against the behaviour's known answer
# (nbcguard-reference-check; the expectations are written down there).
# The threshold verdict does not matter here (exit 0 or 1 from the driver;
# reference cases match no threshold rule).
include(${CMAKE_CURRENT_LIST_DIR}/run_case.cmake)
file(GLOB results "${OUT}/*/n2/basic/results.json")
if(NOT results)
  message(FATAL_ERROR "no results.json under ${OUT}")
endif()
execute_process(COMMAND "${CHECKER}" ${results} RESULT_VARIABLE crc)
if(NOT crc EQUAL 0)
  message(FATAL_ERROR "the measured ratios do not match the reference behaviour's known answer (see above)")
endif()
