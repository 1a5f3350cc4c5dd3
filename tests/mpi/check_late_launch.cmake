# The r_mpi_impact jobs without MPI start at one instant set a margin ahead
# of their launch, a margin learned from the launches before it (a few
# tenths of a second). A launch slower than its margin must be run again
# with 2 s, not fail the test nor be used: nbcguard-compute is replaced by a
# wrapper whose first process sleeps 2.5 s (beyond any first margin, which
# is at most 2 s) before it starts the real program; later launches do not
# sleep. The run must say so, be judged, and have r_mpi_impact per target.
# Arguments: DRIVER, CONFIG, OUT, CASE.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
file(READ "${CONFIG}" cfg)
string(JSON compute GET "${cfg}" compute)
file(WRITE "${OUT}/slow-compute.sh"
     "#!/bin/sh\n# the first process to get here sleeps, once\n"
     "mkdir '${OUT}/slept' 2>/dev/null && sleep 2.5\n"
     "exec '${compute}' \"$@\"\n")
file(CHMOD "${OUT}/slow-compute.sh" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
string(JSON cfg SET "${cfg}" compute "\"${OUT}/slow-compute.sh\"")
file(WRITE "${OUT}/config.json" "${cfg}")
execute_process(COMMAND "${DRIVER}" run "${CASE}" --config "${OUT}/config.json" --out "${OUT}/run"
                        --calibration-cache off --no-confirm
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 200)
message("${out}${err}")
if(NOT rc MATCHES "^(0|1|5)$")
  message(FATAL_ERROR "expected a judged run (exit 0, 1 or 5), got ${rc}")
endif()
if(NOT IS_DIRECTORY "${OUT}/slept")
  message(FATAL_ERROR "the wrapper never ran: the computation without MPI was not started through it")
endif()
if(NOT "${out}${err}" MATCHES "the launcher took more than [0-9.]+m?s to start the computation without MPI; again with 2s")
  message(FATAL_ERROR "the late launch was not said and run again with 2 s")
endif()
file(GLOB_RECURSE results "${OUT}/run/*/results.json")
file(READ "${results}" json)
string(JSON e ERROR_VARIABLE none GET "${json}" no_mpi_error)
if(NOT none)
  message(FATAL_ERROR "results.json no_mpi_error: ${e}")
endif()
string(JSON n LENGTH "${json}" mpi_impact)
foreach(i RANGE 1)
  string(JSON r ERROR_VARIABLE e GET "${json}" mpi_impact ${i} r_mpi_impact)
  if(e OR n LESS 2)
    message(FATAL_ERROR "mpi_impact row ${i} has no r_mpi_impact (${n} rows): ${e}")
  endif()
  message(STATUS "r_mpi_impact row ${i}: ${r}")
endforeach()
