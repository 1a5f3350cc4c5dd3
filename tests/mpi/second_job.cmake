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
