# The stopping rule (docs/method.md, "Repetitions: a stopping rule") through
# the driver and the harness: a precision of 60 % is met at once, so every
# kind of sample of the point and of the CPU overhead phase stops at min (5
# of at most 40); a precision of 0.001 % is never met, so every kind runs to
# max (7). results.json records the rule each time.
#   cmake -DDRIVER=... -DCONFIG=... -DOUT=... -DCASE=<stopping.yaml> -P check_stopping.cmake
file(REMOVE_RECURSE "${OUT}")
file(READ "${CASE}" text)

function(check_counts tag rule want_min want_max want_count)
  set(case "${OUT}/${tag}.yaml")
  string(REGEX REPLACE "repetitions: [^\n]*" "repetitions: ${rule}" body "${text}")
  file(WRITE "${case}" "${body}")
  execute_process(COMMAND "${DRIVER}" run "${case}" --config "${CONFIG}" --out "${OUT}/${tag}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0 AND NOT rc EQUAL 1 AND NOT rc EQUAL 5)
    message(FATAL_ERROR "${tag}: nbcguard run failed with exit ${rc}:\n${err}")
  endif()
  file(READ "${OUT}/${tag}/stopping/n2/basic/results.json" json)
  string(JSON min GET "${json}" case repetitions min)
  string(JSON max GET "${json}" case repetitions max)
  if(NOT min EQUAL want_min OR NOT max EQUAL want_max)
    message(FATAL_ERROR "${tag}: results.json records repetitions min ${min} max ${max}, expected ${want_min} and ${want_max}")
  endif()
  string(JSON n LENGTH "${json}" samples)
  if(n EQUAL 0)
    message(FATAL_ERROR "${tag}: no point was measured (the point is invalid: its samples are not kept)")
  endif()
  foreach(kind t_comm_ref t_comp_ref overlap)
    string(JSON got LENGTH "${json}" samples 0 ${kind})
    if(NOT got EQUAL want_count)
      message(FATAL_ERROR "${tag}: ${got} samples of ${kind}, expected ${want_count}")
    endif()
  endforeach()
  # The sentinel counts the samples the rule asked for as wanted: a point
  # that stopped early is not one whose tries ran out.
  string(JSON wanted GET "${json}" points 0 sentinel wanted)
  string(JSON kept GET "${json}" points 0 sentinel kept)
  math(EXPR want_samples "3 * ${want_count}")
  if(NOT wanted EQUAL want_samples OR NOT kept EQUAL want_samples)
    message(FATAL_ERROR "${tag}: the sentinel records ${kept} of ${wanted} samples kept, expected ${want_samples} of ${want_samples}")
  endif()
  foreach(kind blocking nonblocking)
    string(JSON got GET "${json}" cpu_overhead 0 ${kind} n)
    if(NOT got EQUAL want_count)
      message(FATAL_ERROR "${tag}: the CPU overhead phase took ${got} ${kind} samples, expected ${want_count}")
    endif()
  endforeach()
  message("${tag}: ${want_count} samples of each kind")
endfunction()

check_counts(early "{min: 5, max: 40, precision: 60%}" 5 40 5)
check_counts(to-max "{min: 5, max: 7, precision: 0.001%}" 5 7 7)
