# Included by the check scripts: runs ${CASE} through the driver into ${OUT}
# and prints its report. The verdict may be PASS, FAIL or INCONCLUSIVE (exit 0, 1
# or 5): the scripts check results.json themselves; any other exit is a failure here.
# RUN_ARGS: more options of `nbcguard run` (a list; may be unset).
execute_process(COMMAND "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${OUT}" ${RUN_ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0 AND NOT rc EQUAL 1 AND NOT rc EQUAL 5)
  message(FATAL_ERROR "nbcguard run failed with exit ${rc}:\n${err}")
endif()
