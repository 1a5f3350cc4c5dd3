# The stopping rule (docs/method.md, "Repetitions: a stopping rule") through
# the driver and the harness. A precision of 60 % is met within a few rounds
# on any machine, so the point and the CPU overhead phase stop early: at
# least min (6) and well below max (40) samples of each kind, the same count
# for every kind of a phase. A precision of 0.001 % is never met, so every
# kind runs to max (7). results.json records the rule each time, and the
# sentinel counts a point that stopped early as complete (kept = wanted).
#   cmake -DDRIVER=... -DCONFIG=... -DOUT=... -DCASE=<stopping.yaml> -P check_stopping.cmake
include(${CMAKE_CURRENT_LIST_DIR}/run_driver.cmake)
file(REMOVE_RECURSE "${OUT}")
file(READ "${CASE}" text)

# Runs the case with `rule`; checks the recorded min/max and that every kind
# took the same number of samples, from `lo` to `hi`.
function(check_counts tag rule want_min want_max lo hi)
  set(case "${OUT}/${tag}.yaml")
  string(REGEX REPLACE "repetitions: [^\n]*" "repetitions: ${rule}" body "${text}")
  file(WRITE "${case}" "${body}")
  nbcguard_run("${tag}: nbcguard run" "${DRIVER}" run "${case}" --config "${CONFIG}" --out "${OUT}/${tag}")
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
  string(JSON count LENGTH "${json}" samples 0 t_comm_ref)
  if(count LESS lo OR count GREATER hi)
    message(FATAL_ERROR "${tag}: ${count} samples of t_comm_ref, expected ${lo} to ${hi}")
  endif()
  foreach(kind t_comp_ref overlap)
    string(JSON got LENGTH "${json}" samples 0 ${kind})
    if(NOT got EQUAL count)
      message(FATAL_ERROR "${tag}: ${got} samples of ${kind} but ${count} of t_comm_ref: the kinds stopped apart")
    endif()
  endforeach()
  # The sentinel counts the samples the rule asked for as wanted: a point
  # that stopped early is not one whose tries ran out.
  string(JSON wanted GET "${json}" points 0 sentinel wanted)
  string(JSON kept GET "${json}" points 0 sentinel kept)
  math(EXPR want_samples "3 * ${count}")
  if(NOT wanted EQUAL want_samples OR NOT kept EQUAL want_samples)
    message(FATAL_ERROR "${tag}: the sentinel records ${kept} of ${wanted} samples kept, expected ${want_samples} of ${want_samples}")
  endif()
  string(JSON cpu GET "${json}" cpu_overhead 0 blocking n)
  string(JSON cpu_nbc GET "${json}" cpu_overhead 0 nonblocking n)
  if(cpu LESS lo OR cpu GREATER hi OR NOT cpu_nbc EQUAL cpu)
    message(FATAL_ERROR "${tag}: the CPU overhead phase took ${cpu} blocking and ${cpu_nbc} nonblocking samples, expected the same count from ${lo} to ${hi}")
  endif()
  message("${tag}: ${count} samples of each kind of the point, ${cpu} of the CPU overhead phase")
endfunction()

check_counts(early "{min: 6, max: 40, precision: 60%}" 6 40 6 39)
check_counts(to-max "{min: 6, max: 7, precision: 0.001%}" 6 7 7 7)
