# A rank that never exits after the harness wrote its last record (a hang in
# MPI_Finalize or in the launcher's teardown, simulated by --inject-fault
# hang-at-exit): the driver kills the job NBCGUARD_EXIT_GRACE seconds (here
# 3) after the end record instead of waiting for the case's timeout, says
# so, records it in results.json exit_hangs, and judges the complete run:
# no harness_error, every point measured, not exit 3.
# Arguments: DRIVER, CONFIG, OUT, CASE.
file(REMOVE_RECURSE "${OUT}")
string(TIMESTAMP t0 "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E env NBCGUARD_EXIT_GRACE=3
                        "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${OUT}" --inject-fault hang-at-exit
                        --no-confirm --calibration-cache off --timeout 90
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 110)
string(TIMESTAMP t1 "%s")
math(EXPR elapsed "${t1} - ${t0}")
message("${out}${err}")
if(rc EQUAL 3 OR NOT rc MATCHES "^(0|1|5)$")
  message(FATAL_ERROR "expected a judged run (exit 0, 1 or 5), got ${rc}")
endif()
if(NOT out MATCHES "warning: the harness job had not exited 3s after its last record")
  message(FATAL_ERROR "the run does not say that the harness job was killed after its last record")
endif()
file(READ "${OUT}/fault/n2/basic/results.json" json)
string(JSON hung ERROR_VARIABLE e GET "${json}" exit_hangs 0)
if(e OR NOT hung STREQUAL "harness job")
  message(FATAL_ERROR "results.json exit_hangs does not name the harness job (${hung}${e})")
endif()
string(JSON herr ERROR_VARIABLE e GET "${json}" harness_error)
if(NOT e)
  message(FATAL_ERROR "results.json has a harness_error although every record was written: ${herr}")
endif()
string(JSON n LENGTH "${json}" points)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "expected both points of the grid, got ${n}")
endif()
# The case's timeout is 90 s: the job must have been killed soon after its end.
if(elapsed GREATER 70)
  message(FATAL_ERROR "took ${elapsed} s: the driver waited for the timeout instead of the grace")
endif()
message(STATUS "hang at exit: exit ${rc} after ${elapsed} s, the job killed after its end record, both points kept")
