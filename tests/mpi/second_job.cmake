# Included by check scripts: whether the second job (the confirmation of a
# first job's failures and invalid points, docs/method.md "Validity gates")
# measured point `i` of the first job's results `json` validly.
# Sets `out` to TRUE or FALSE, or fails when there was no second job or it
# did not measure the point.
function(second_job_valid json i out)
  string(JSON again_file ERROR_VARIABLE e GET "${json}" confirmation results)
  if(NOT again_file OR NOT EXISTS "${again_file}")
    message(FATAL_ERROR "point ${i} was not measured again: no second job's results (${e})")
  endif()
  file(READ "${again_file}" again)
  string(JSON comm GET "${json}" points ${i} comm_target)
  string(JSON comp GET "${json}" points ${i} comp_target)
  string(JSON n LENGTH "${again}" points)
  math(EXPR last "${n} - 1")
  foreach(k RANGE ${last})
    string(JSON c GET "${again}" points ${k} comm_target)
    string(JSON d GET "${again}" points ${k} comp_target)
    if(c EQUAL comm AND d EQUAL comp)
      string(JSON v GET "${again}" points ${k} valid)
      if(v)
        set(${out} TRUE PARENT_SCOPE)
      else()
        set(${out} FALSE PARENT_SCOPE)
      endif()
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "point ${i} (${comm} x ${comp}): the second job (${again_file}) did not measure it")
endfunction()

# Whether point `i` of `json` was refused by a validity gate: invalid, with
# its figures kept as evidence (other invalid points have none).
function(refused_by_gate json i out)
  string(JSON valid GET "${json}" points ${i} valid)
  string(JSON t ERROR_VARIABLE e TYPE "${json}" points ${i} r_overhead)
  # The machine-noise sentinel refuses a point it kept disturbing even when
  # too few samples were kept for figures; its tally is the evidence.
  string(JSON why ERROR_VARIABLE e GET "${json}" points ${i} invalid_reason)
  string(JSON tally ERROR_VARIABLE e TYPE "${json}" points ${i} sentinel)
  if(NOT valid AND why MATCHES "^the machine was disturbed during the point" AND tally STREQUAL "OBJECT")
    set(${out} TRUE PARENT_SCOPE)
  elseif(NOT valid AND t STREQUAL "OBJECT")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# An invalid point `i` of `json` must have been refused by a validity gate
# (refused_by_gate); any other invalid point fails, named by `what`. Sets
# `out` to the point's invalid_reason.
function(require_gate_refusal json i what out)
  string(JSON why GET "${json}" points ${i} invalid_reason)
  refused_by_gate("${json}" ${i} refused)
  if(NOT refused)
    message(FATAL_ERROR "${what} invalid: ${why}")
  endif()
  set(${out} "${why}" PARENT_SCOPE)
endfunction()

# Whether a job's r_mpi_impact came from rounds kept by an earlier job
# (results.json mpi_impact_source, docs/method.md "r_mpi_impact shared
# between tests"): `out` is TRUE (every target reused), FALSE (measured by
# the job, at least one target) or "none" (no r_mpi_impact jobs at all).
function(impact_rounds_reused json out)
  string(JSON reused ERROR_VARIABLE e GET "${json}" mpi_impact_source reused)
  string(JSON n ERROR_VARIABLE e2 LENGTH "${json}" mpi_impact_source targets)
  if(e OR e2 OR NOT n GREATER 0)
    set(${out} "none" PARENT_SCOPE)
  elseif(reused MATCHES "^(ON|true)$")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# Every failure of the final verdict in `json` carries the figure of the job
# that confirmed it (measured_again), past `min` when given ("" = any).
function(failures_measured_again json tag min)
  string(JSON n LENGTH "${json}" verdict failures)
  if(n EQUAL 0)  # every finding left to one job
    return()
  endif()
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON comm GET "${json}" verdict failures ${i} comm_target)
    string(JSON again ERROR_VARIABLE missing GET "${json}" verdict failures ${i} measured_again median)
    if(missing)
      message(FATAL_ERROR "${tag}: the failure at comm=${comm} was seen by one job only (no measured_again)")
    endif()
    if(NOT min STREQUAL "" AND NOT again GREATER min)
      message(FATAL_ERROR "${tag}: the failure at comm=${comm}: measured again ${again}, expected past ${min}")
    endif()
  endforeach()
endfunction()

# A finding left to one job (verdict.one_job_only) after a third job is
# right only when that job's point was flagged for rank imbalance: past the
# limit only by its own slack (docs/thresholds.md; the arithmetic is
# unit-tested), so no second job saw the library past it. Sets <count_var>
# to the number of such findings; fails on one whose third job was balanced.
function(check_one_job json dir out tag count_var)
  string(JSON none LENGTH "${json}" verdict one_job_only)
  set(${count_var} ${none} PARENT_SCOPE)
  if(none EQUAL 0)
    return()
  endif()
  # Where this run's third job wrote its results (only when one ran).
  string(JSON third_file ERROR_VARIABLE no_third GET "${json}" confirmation third results)
  if(no_third OR NOT EXISTS "${third_file}")
    message(FATAL_ERROR "${tag}: ${none} finding(s) left to one job, and no third job measured them")
  endif()
  file(READ "${third_file}" third_json)
  string(JSON np LENGTH "${third_json}" points)
  if(np EQUAL 0)
    message(FATAL_ERROR "${tag}: the third job (${third_file}) has no points")
  endif()
  math(EXPR lastp "${np} - 1")
  math(EXPR last "${none} - 1")
  foreach(k RANGE ${last})
    string(JSON comm GET "${json}" verdict one_job_only ${k} comm_target)
    string(JSON comp GET "${json}" verdict one_job_only ${k} comp_target)
    set(flagged "not measured")
    foreach(i RANGE ${lastp})
      string(JSON c GET "${third_json}" points ${i} comm_target)
      string(JSON d GET "${third_json}" points ${i} comp_target)
      if(c STREQUAL comm AND d STREQUAL comp)
        string(JSON flagged ERROR_VARIABLE e GET "${third_json}" points ${i} imbalance flagged)
      endif()
    endforeach()
    if(NOT flagged MATCHES "^(ON|true)$")
      message(FATAL_ERROR "${tag}: the finding at comm=${comm} comp=${comp} was left to one job although the "
                          "third job's point there was not flagged for rank imbalance (${flagged})")
    endif()
  endforeach()
  if(NOT out MATCHES "undecided \\(exceeded in one job only\\): rule ")
    message(FATAL_ERROR "${tag}: the finding(s) left to one job are not printed as undecided")
  endif()
endfunction()
