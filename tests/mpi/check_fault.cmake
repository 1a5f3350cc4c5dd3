# A rank that exits or hangs at the second grid point: the driver must end
# the run with a clear failure (exit 3) within the timeout, say what
# happened, and keep the first point's results.
include(${CMAKE_CURRENT_LIST_DIR}/second_job.cmake)
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
# The first point was measured to its end and is kept: valid, or refused
# by a validity gate with its evidence kept (a busy neighbour on a shared
# runner: the machine-noise sentinel's "the machine was disturbed during
# the point", a late rank, unequal computing speeds; second_job.cmake's
# refused_by_gate), never "not measured"; the second, where the fault
# struck, was not measured.
file(READ "${OUT}/fault/n2/basic/results.json" json)
string(JSON first GET "${json}" points 0 valid)
string(JSON second GET "${json}" points 1 valid)
string(JSON second_why ERROR_VARIABLE none GET "${json}" points 1 invalid_reason)
if(second OR NOT second_why MATCHES "^not measured")
  message(FATAL_ERROR "expected point 1 not measured (the fault struck there); got valid ${second}, '${second_why}'")
endif()
if(first)
  string(JSON r GET "${json}" points 0 r_overhead median)
  message(STATUS "fault ${FAULT}: exit ${rc} after ${elapsed} s; completed point kept (r_overhead ${r})")
else()
  string(JSON first_why ERROR_VARIABLE none GET "${json}" points 0 invalid_reason)
  refused_by_gate("${json}" 0 kept)
  if(NOT kept)
    message(FATAL_ERROR "expected point 0 kept (valid, or refused by a validity gate with its evidence); got "
                        "invalid: '${first_why}'")
  endif()
  message(STATUS "fault ${FAULT}: exit ${rc} after ${elapsed} s; completed point kept, refused by a "
                 "validity gate: ${first_why}")
endif()
