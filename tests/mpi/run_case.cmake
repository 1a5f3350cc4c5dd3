# Included by the check scripts: runs ${CASE} through the driver into ${OUT}
# and prints its report. The verdict may be PASS, FAIL or INCONCLUSIVE (exit 0, 1
# or 5): the scripts check results.json themselves; any other exit is a failure here.
# RUN_ARGS: more options of `nbcguard run` (a list; may be unset).
include(${CMAKE_CURRENT_LIST_DIR}/run_driver.cmake)
nbcguard_run("nbcguard run" "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${OUT}" ${RUN_ARGS})
