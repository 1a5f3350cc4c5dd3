# A rank that exits or hangs at the second grid point: the driver must end
# the run with a clear failure (exit 3) within the timeout, say what
# happened, and keep the first point's results.
string(TIMESTAMP t0 "%s")
execute_process(COMMAND "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${OUT}"
                        --inject-fault ${FAULT} --timeout ${TIMEOUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP t1 "%s")
math(EXPR elapsed "${t1} - ${t0}")
message("${out}")
if(NOT rc EQUAL 3)
  message(FATAL_ERROR "expected exit 3 (harness failed), got ${rc}:\n${err}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not say '${EXPECT}'")
endif()
if(elapsed GREATER ${TIMEOUT})
  message(FATAL_ERROR "took ${elapsed} s, more than the ${TIMEOUT} s timeout")
endif()
file(READ "${OUT}/fault/n2/basic/results.json" json)
string(JSON first GET "${json}" points 0 valid)
string(JSON second GET "${json}" points 1 valid)
if(NOT first OR second)
  message(FATAL_ERROR "expected point 0 kept (valid) and point 1 invalid; got ${first} and ${second}")
endif()
string(JSON r GET "${json}" points 0 r_overhead median)
message(STATUS "fault ${FAULT}: exit ${rc} after ${elapsed} s; completed point kept (r_overhead ${r})")
