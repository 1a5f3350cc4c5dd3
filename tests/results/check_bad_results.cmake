# Every command that reads results.json keeps going past a bad file, lists it
# with the field that is wrong, and finishes (no exception, no endless loop:
# the test's TIMEOUT catches one). A run directory holds two good results
# (fixtures) and two bad ones: a wrong type and a file that is not JSON.
file(REMOVE_RECURSE "${OUT}")
foreach(t ibcast ialltoall)
  file(MAKE_DIRECTORY "${OUT}/good/${t}/n2/basic")
  file(COPY_FILE "${FIXTURES}/results/openmpi/${t}/n2/basic/results.json"
                 "${OUT}/good/${t}/n2/basic/results.json")
endforeach()
file(MAKE_DIRECTORY "${OUT}/bad/typed/n2/basic" "${OUT}/bad/broken/n2/basic")
file(COPY_FILE "${FIXTURES}/results-invalid/valid-is-string.json" "${OUT}/bad/typed/n2/basic/results.json")
file(COPY_FILE "${FIXTURES}/results-invalid/not-json.json" "${OUT}/bad/broken/n2/basic/results.json")
set(typed "${OUT}/bad/typed/n2/basic/results.json: points[0].valid: expected boolean, got string")
set(broken "${OUT}/bad/broken/n2/basic/results.json: not valid JSON")

function(run_driver)
  execute_process(COMMAND "${DRIVER}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("nbcguard ${ARGN}: exit ${rc}\n${out}${err}")
  set(rc "${rc}" PARENT_SCOPE)
  set(all "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_listed what)
  foreach(line "${typed}" "${broken}")
    string(FIND "${all}" "${line}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "nbcguard ${what} does not list '${line}'")
    endif()
  endforeach()
endfunction()

# summary, every format: the two good tests and the two unreadable files.
foreach(format text markdown html)
  run_driver(summary "${OUT}" --format ${format})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nbcguard summary --format ${format} failed with exit ${rc}")
  endif()
  if(format STREQUAL "html")
    string(REPLACE "&quot;" "\"" all "${all}")
  endif()
  expect_listed("summary --format ${format}")
  if(NOT all MATCHES "4 test\\(s\\): [0-9]+ passed, [0-9]+ failed")
    message(FATAL_ERROR "nbcguard summary --format ${format} does not count the four files")
  endif()
endforeach()

# summary as OpenMetrics: the good tests' metrics, each unreadable file
# listed on standard error (the exposition has no place for it).
run_driver(summary "${OUT}" --format openmetrics)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nbcguard summary --format openmetrics failed with exit ${rc}")
endif()
expect_listed("summary --format openmetrics")
if(NOT all MATCHES "case=\"ibcast\"")
  message(FATAL_ERROR "nbcguard summary --format openmetrics left out the good tests")
endif()

# cost: the bad files listed as unreadable.
run_driver(cost "${OUT}")
expect_listed(cost)

# compare: the good results are compared with themselves, the bad ones listed.
run_driver(compare "${OUT}/good" "${OUT}")
if(NOT all MATCHES "summary: no regression")
  message(FATAL_ERROR "nbcguard compare did not compare the good results")
endif()
expect_listed(compare)

# plot: an error naming the file and the field, exit 1, the good files drawn.
run_driver(plot "${OUT}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "nbcguard plot on a bad file: exit ${rc}, expected 1")
endif()
expect_listed(plot)
