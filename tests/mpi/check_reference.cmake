# Runs one reference-behaviour case through the driver, then checks the
# measured ratios against the behaviour's known answer
# (nbcguard-reference-check; the expectations are written down there).
# The threshold verdict does not matter here (exit 0 or 1 from the driver;
# reference cases match no threshold rule).
execute_process(COMMAND "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0 AND NOT rc EQUAL 1)
  message(FATAL_ERROR "nbcguard run failed with exit ${rc}:\n${err}")
endif()
file(GLOB results "${OUT}/*/n2/basic/results.json")
if(NOT results)
  message(FATAL_ERROR "no results.json under ${OUT}")
endif()
execute_process(COMMAND "${CHECKER}" ${results} RESULT_VARIABLE crc)
if(NOT crc EQUAL 0)
  message(FATAL_ERROR "the measured ratios do not match the reference behaviour's known answer (see above)")
endif()
