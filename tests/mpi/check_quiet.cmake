# run --quiet: per test only the lines that give its outcome. The same case
# as end-to-end, one job: the output has the verdict and where the results
# are, every line is an outcome line, and results.json is written in full.
#   cmake -DDRIVER= -DCONFIG= -DCASE= -DOUT= -P check_quiet.cmake
file(REMOVE_RECURSE "${OUT}")
include(${CMAKE_CURRENT_LIST_DIR}/run_driver.cmake)
nbcguard_run("nbcguard run --quiet" "${DRIVER}" run "${CASE}" --quiet --no-confirm --config "${CONFIG}"
             --out "${OUT}")
foreach(line "verdict: " "results: ${OUT}/e2e/n2/basic/results.json")
  string(FIND "${out}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "run --quiet does not print '${line}'")
  endif()
endforeach()
# A CMake list of the lines: the ';' of a verdict line ("FAIL: 1 invalid
# point; 1 rule(s) ...") and brackets would otherwise split or join them.
string(REGEX REPLACE "[][;]" "_" safe "${out}")
string(REPLACE "\n" ";" lines "${safe}")
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  if(NOT line MATCHES "^(verdict:|FAIL|SKIP|INCONCLUSIVE|CONFORMANCE FAILURE|error:|nbcguard: warning|warning:|hint:|results:)")
    message(FATAL_ERROR "run --quiet printed a line that is not an outcome: '${line}'")
  endif()
endforeach()
file(READ "${OUT}/e2e/n2/basic/results.json" json)
string(JSON npoints LENGTH "${json}" points)
if(NOT npoints EQUAL 2)
  message(FATAL_ERROR "run --quiet: results.json has ${npoints} points, the case 2")
endif()
