# Application-side progression through the driver (docs/cases.md, "Progress
# strategies"): the poll deployment's computation and the thread-bind
# deployment's progress thread must really call MPI_Test during the overlap
# runs (progress_tests >= 1 at every valid point), the placement must be the
# policy's (bind: the progress thread on the rank's first computation core),
# and thread-numa must either run with the progress threads off the
# computation's cores or, on a node without a free core, SKIP saying why.
# The verdict may be PASS or FAIL (the case test judges limits).
# A point a validity gate refused (a disturbed machine, unequal ranks) is
# measured again by a second job: the checks read that job's results then.
# Refused in both jobs, nothing shows whether MPI_Test was called:
# INCONCLUSIVE, which the test reports as skipped (SKIP_REGULAR_EXPRESSION),
# never as passed. Any other invalid point fails.
include(${CMAKE_CURRENT_LIST_DIR}/run_case.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/second_job.cmake)

function(check_tests deployment strategy)
  set(file "${OUT}/strategies/n2/${deployment}/results.json")
  file(READ "${file}" json)
  string(JSON valid GET "${json}" points 0 valid)
  if(NOT valid)
    require_gate_refusal("${json}" 0 "${file}: the point" why)
    second_job_valid("${json}" 0 again_valid)
    if(NOT again_valid)
      message(FATAL_ERROR "strategies INCONCLUSIVE: ${deployment}: the point was refused by a validity gate "
                          "in both jobs (first: ${why}); the machine was disturbed")
    endif()
    message(STATUS "${deployment}: refused in the first job (${why}); the second job's results checked")
    string(JSON file GET "${json}" confirmation results)
    file(READ "${file}" json)
  endif()
  string(JSON got GET "${json}" progression strategy)
  if(NOT got STREQUAL strategy)
    message(FATAL_ERROR "${file}: progression.strategy is '${got}', expected '${strategy}'")
  endif()
  string(JSON interval GET "${json}" progression interval)
  if(NOT interval MATCHES "^(5e-05|5\\.0+[0-9]*e-05|4\\.9999+[0-9]*e-05)$")  # 50us, as JSON prints it
    message(FATAL_ERROR "${file}: progression.interval is ${interval}, the case asks 50us")
  endif()
  string(JSON valid GET "${json}" points 0 valid)
  if(NOT valid)
    string(JSON why GET "${json}" points 0 invalid_reason)
    message(FATAL_ERROR "${file}: the point is invalid: ${why}")
  endif()
  string(JSON tests ERROR_VARIABLE e GET "${json}" points 0 progress_tests)
  if(e OR NOT tests GREATER_EQUAL 1)
    message(FATAL_ERROR "${file}: no MPI_Test call recorded during the overlap runs (progress_tests '${tests}' ${e})")
  endif()
  message(STATUS "${deployment}: median ${tests} MPI_Test call(s) per overlap run")
  set(json "${json}" PARENT_SCOPE)
  set(file "${file}" PARENT_SCOPE)
endfunction()

check_tests(poll poll)
string(JSON t ERROR_VARIABLE e GET "${json}" progression placement)
if(NOT e)
  message(FATAL_ERROR "${file}: poll has no progress thread, yet a placement is recorded")
endif()

check_tests(thread-bind thread)
string(JSON policy GET "${json}" progression placement policy)
string(JSON nranks LENGTH "${json}" progression placement ranks)
if(NOT policy STREQUAL "bind" OR NOT nranks EQUAL 2)
  message(FATAL_ERROR "${file}: placement ${policy} with ${nranks} ranks, expected bind with 2")
endif()
foreach(r 0 1)
  string(JSON core GET "${json}" progression placement ranks ${r} progress_core)
  string(JSON first GET "${json}" progression placement ranks ${r} compute_cores 0)
  if(NOT core EQUAL first)
    message(FATAL_ERROR "${file}: bind put rank ${r}'s progress thread on ${core}, not its core ${first}")
  endif()
endforeach()

if(out MATCHES "SKIP strategies n2 thread-numa: [^\n]*placement numa keeps 1 of the ([0-9]+) cores free")
  message(STATUS "thread-numa skipped: no free core for progress threads on this node")
elseif(EXISTS "${OUT}/strategies/n2/thread-numa/results.json")
  check_tests(thread-numa thread)
  foreach(r 0 1)
    string(JSON core GET "${json}" progression placement ranks ${r} progress_core)
    string(JSON cores GET "${json}" progression placement ranks ${r} compute_cores)
    if(cores MATCHES "(^|[^0-9])${core}([^0-9]|$)")
      message(FATAL_ERROR "${file}: numa put rank ${r}'s progress thread on a computation core (${core} in ${cores})")
    endif()
  endforeach()
else()
  message(FATAL_ERROR "thread-numa neither ran nor skipped with the reason")
endif()
