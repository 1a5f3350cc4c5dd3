# nbcguard compare end to end, on reference behaviours whose ratios are
# known: one case (DATA/reference.yaml) run as a baseline with --reference
# background, again with background, once with deferred. Then:
#   background vs background: no regression (exit 0);
#   background vs deferred: not comparable (a different reference behaviour
#     is a different test), exit 0 and said so;
#   the same with --ignore-reference (for testing the comparison only): a
#     regression in r_overhead and r_comm at every grid point, exit 1.
# And the collective's own speed: the case once more as CASE_SLOW, whose
# modelled bandwidth is 10MB/s instead of 50MB/s (the same 2ms target filled
# by 5 times fewer bytes, ratios unchanged):
#   background vs background: 2 speed checks, no collective slower;
#   background vs slow (--ignore-reference: the reference's parameters
#     differ): "collective slower" at every grid point, exit 1.
# Arguments: DRIVER, CONFIG, OUT, CASE, CASE_SLOW, IMPL, CHECKER (nbcguard-reference-check).
set(points "2ms x 3ms" "2ms x 4ms")  # the case's grid, as compare names it
set(test "${IMPL}.ref-compare.n2.basic")

# Each run also exercises the nightly mode (run --baseline): the first has
# no baseline yet, the second compares with the first, the third is refused.
include(${CMAKE_CURRENT_LIST_DIR}/run_driver.cmake)
file(REMOVE_RECURSE "${OUT}")
foreach(run "base:background:none yet:baseline: no baseline for this test"
            "same:background:base:summary: no regression: 0 regression"
            "deferred:deferred:base:not comparable: reference behaviour changed"
            "slow:background:base:not comparable: reference behaviour changed")
  string(REPLACE ":" ";" run "${run}")
  list(GET run 0 name)
  list(GET run 1 behaviour)
  list(GET run 2 baseline)
  list(GET run 3 expected)
  set(case_file "${CASE}")
  if(name STREQUAL "slow")
    set(case_file "${CASE_SLOW}")
  endif()
  # A run that does not deliver its behaviour's known answer (checked by
  # nbcguard-reference-check; a burst of load on a shared 2-core machine
  # does that) would make the comparison below test nothing: measure it
  # once more, and give up if it still does not after 5 runs. (3 were not
  # enough: in a flakiness run on 2026-11-23, MPICH's three background runs
  # all had a computation reference from a slow phase, 9.19 ms for 4 ms,
  # and r_overhead intervals down to -1.24.)
  set(attempts 5)
  set(wrong 0)  # attempts whose checker found the known answer wrong (not noise)
  foreach(attempt RANGE 1 ${attempts})
    message("---- ${name}: nbcguard run --reference ${behaviour} --baseline ${OUT}/${baseline}")
    # Reference cases match no threshold rule: the verdict is FAIL (exit 1).
    nbcguard_run("nbcguard run --reference ${behaviour}" "${DRIVER}" run "${case_file}" --reference ${behaviour}
                 --config "${CONFIG}" --out "${OUT}/${name}" --baseline "${OUT}/${baseline}")
    execute_process(COMMAND "${CHECKER}" "${OUT}/${name}/ref-compare/n2/basic/results.json" RESULT_VARIABLE crc)
    if(crc EQUAL 1)
      math(EXPR wrong "${wrong} + 1")
    endif()
    # The checker judges medians. A run whose r_overhead samples spread past
    # the known answer's tolerance (+-0.3: 0 for background, 1 for deferred)
    # has a right median but samples from a slow phase of the VM (one run
    # here: r_overhead [-0.01, 2.21], r_comp_slowdown up to 2.02), against
    # which no worsening can be significant: measure such a run again too.
    set(clean TRUE)
    if(crc EQUAL 0)
      file(READ "${OUT}/${name}/ref-compare/n2/basic/results.json" rj)
      if(behaviour STREQUAL "deferred")
        set(low 0.7)
        set(high 1.3)
      else()
        set(low -0.3)
        set(high 0.3)
      endif()
      foreach(i 0 1)
        string(JSON lo GET "${rj}" points ${i} r_overhead ci_lo)
        string(JSON hi GET "${rj}" points ${i} r_overhead ci_hi)
        if(lo LESS low OR hi GREATER high)
          set(clean FALSE)
          message("${name}: point ${i} r_overhead interval [${lo}, ${hi}] reaches past [${low}, ${high}]")
        endif()
        # compare does not compare a point flagged for rank imbalance (the
        # two vCPUs at different speeds: 1.26-2.21x here on a quiet machine)
        string(JSON flagged GET "${rj}" points ${i} imbalance flagged)
        if(flagged)
          set(clean FALSE)
          message("${name}: point ${i} flagged for rank imbalance: compare would not compare it")
        endif()
      endforeach()
    endif()
    if(crc EQUAL 0 AND clean)
      break()
    elseif(attempt EQUAL attempts AND wrong EQUAL attempts)
      message(FATAL_ERROR "${name}: the run does not deliver the ${behaviour} behaviour's known answer in ${attempts} attempts")
    elseif(attempt EQUAL attempts)
      # Noise, not a wrong answer: intervals past the known answer's band, or
      # points flagged for rank imbalance (the vCPUs at different speeds;
      # in a clean-clone CI run, 4 of 10 deferred points in 5 attempts).
      # Nothing to compare: INCONCLUSIVE, reported as skipped, never passed.
      message(FATAL_ERROR "compare-reference INCONCLUSIVE: ${name}: no run of ${attempts} clean enough to compare (${wrong} with a wrong answer)")
    endif()
    # A run takes about a second once r_mpi_impact and the sizes are shared,
    # and this machine's vCPUs keep an unequal speed for seconds: five runs
    # back to back fall in one phase (MPICH, clean-clone run of bedbc7b: all
    # five refused for rank imbalance in 3.5 s). Let the phase pass first.
    message("${name}: not the ${behaviour} behaviour's known answer (noise?): measuring once more in 5 s")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 5)
  endforeach()
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}: run --baseline did not print '${expected}'")
  endif()
endforeach()

# background and deferred act inside the collective's calls only, so MPI's
# idle state is the same under both: the second background run and the
# deferred run take the base run's r_mpi_impact rounds instead of measuring
# them again (docs/method.md, "r_mpi_impact shared between tests").
if(NOT "$ENV{NBCGUARD_IMPACT_REUSE}" STREQUAL "0")
  foreach(name same deferred)
    file(READ "${OUT}/${name}/ref-compare/n2/basic/results.json" rj)
    string(JSON reused ERROR_VARIABLE e GET "${rj}" mpi_impact_source reused)
    if(NOT reused STREQUAL "ON" AND NOT reused STREQUAL "true")
      message(FATAL_ERROR "${name}: r_mpi_impact measured again (mpi_impact_source.reused '${reused}' ${e}); "
                          "the base run's rounds were not shared")
    endif()
  endforeach()
endif()

function(compare expected_rc label)
  execute_process(COMMAND "${DRIVER}" compare ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JOIN " " args ${ARGN})
  message("---- ${label}: nbcguard compare ${args} (exit ${rc})\n${out}${err}")
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "${label}: expected exit ${expected_rc}, got ${rc}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

compare(0 "background vs background" "${OUT}/base" "${OUT}/same")
if(out MATCHES "REGRESSION ")
  message(FATAL_ERROR "background vs background: a regression was reported")
endif()
if(NOT out MATCHES "compared 1 test\\(s\\), 2 grid point\\(s\\), [0-9]+ ratio check\\(s\\), 2 speed check\\(s\\)")
  message(FATAL_ERROR "background vs background: not every grid point was compared (ratios and speed)")
endif()
if(out MATCHES "collective slower")
  message(FATAL_ERROR "background vs background: the collective was reported slower")
endif()

compare(0 "background vs deferred" "${OUT}/base" "${OUT}/deferred")
if(NOT out MATCHES "not compared: ${test}: not comparable: reference behaviour changed \\(background -> deferred\\)")
  message(FATAL_ERROR "background vs deferred: a changed reference behaviour was not refused")
endif()

compare(1 "background vs deferred, --ignore-reference" "${OUT}/base" "${OUT}/deferred" --ignore-reference)
foreach(point IN LISTS points)
  foreach(ratio r_overhead r_comm)
    if(NOT out MATCHES "REGRESSION ${test} ${point} ${ratio}: ")
      message(FATAL_ERROR "background vs deferred: no ${ratio} regression at ${point}")
    endif()
  endforeach()
endforeach()
# The modelled bandwidth 50MB/s -> 10MB/s: the ratios are background's in
# both runs; the collective's speed is 5 times lower at every point,
# beyond the default tolerance (a factor 3).
compare(1 "background vs slow, --ignore-reference" "${OUT}/base" "${OUT}/slow" --ignore-reference
        --json "${OUT}/slow.json")
foreach(point IN LISTS points)
  if(NOT out MATCHES "REGRESSION collective slower: ${test} ${point}: [0-9.]+kB in [0-9.]+[mu]s \\([0-9.]+MB/s\\) -> [0-9.]+kB in [0-9.]+[mu]s \\([0-9.]+MB/s\\), -[0-9]+ %")
    message(FATAL_ERROR "background vs slow: no collective-slower regression at ${point}")
  endif()
endforeach()
# compare's JSON lists them too, with the change in speed (5 times slower: -80 %).
file(READ "${OUT}/slow.json" slow_json)
string(JSON count LENGTH "${slow_json}" regressions)
set(speed_regressions 0)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON ratio GET "${slow_json}" regressions ${i} ratio)
  string(JSON speed_change GET "${slow_json}" regressions ${i} difference)
  if(ratio STREQUAL "collective_speed" AND speed_change LESS -0.5)
    math(EXPR speed_regressions "${speed_regressions} + 1")
  endif()
endforeach()
if(NOT speed_regressions EQUAL 2)
  message(FATAL_ERROR "background vs slow: compare's JSON lists ${speed_regressions} speed regression(s), not 2")
endif()
message("compare end to end: OK")
