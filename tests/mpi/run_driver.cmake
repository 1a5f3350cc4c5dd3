# Included by the check scripts: nbcguard_run(<what> <command>...) runs the
# command (the driver, or a wrapper around it), prints its output and sets
# `out` and `rc` in the caller. A verdict of PASS, FAIL or INCONCLUSIVE
# (exit 0, 1 or 5) is for the caller to judge from results.json; any other
# exit fails the test, naming <what> and showing standard error.
function(nbcguard_run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0 AND NOT rc EQUAL 1 AND NOT rc EQUAL 5)
    message(FATAL_ERROR "${what} failed with exit ${rc}:\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()
