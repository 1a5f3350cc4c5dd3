# Injected imbalance (reference behaviour slow-rank: rank 0 sleeps 40 % of
# every ms, so it computes about 1.7x as long as rank 1) must be diagnosed
# as imbalance, never as overlap:
# every measured point flagged, rank 0 the slowest, diagnosis
# rank-imbalance, and no point diagnosed overlap or partial-overlap.
# A point the validity gates refused (the machine-noise sentinel, on a busy
# machine) shows nothing either way: with every point refused the case is
# run once more (a second job, in OUT/job2); refused again everywhere, the
# test is INCONCLUSIVE (skipped with the reason, never a pass). A point
# invalid for any other reason fails.
include(${CMAKE_CURRENT_LIST_DIR}/run_driver.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/second_job.cmake)
set(base "${OUT}")
file(REMOVE_RECURSE "${base}")
set(refusals "")
foreach(job 1 2)
  set(dir "${base}/job${job}")
  nbcguard_run("nbcguard run (job ${job})" "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${dir}")
  file(GLOB results "${dir}/*/n2/basic/results.json")
  if(NOT results)
    message(FATAL_ERROR "no results.json under ${dir}")
  endif()
  file(READ "${results}" j)
  string(JSON n LENGTH "${j}" points)
  math(EXPR last "${n} - 1")
  set(flagged 0)
  foreach(i RANGE ${last})
    string(JSON valid GET "${j}" points ${i} valid)
    string(JSON diagnosis GET "${j}" points ${i} diagnosis)
    string(JSON at GET "${j}" points ${i} comp_target)
    if(diagnosis STREQUAL "overlap" OR diagnosis STREQUAL "partial-overlap")
      message(FATAL_ERROR "job ${job}, comp ${at}: an injected imbalance read as ${diagnosis}")
    endif()
    if(NOT valid)
      require_gate_refusal("${j}" ${i} "job ${job}, comp ${at}:" why)
      message("job ${job}, comp ${at}: refused by a validity gate (${why}); not counted")
      string(APPEND refusals "; job ${job}, comp ${at}: ${why}")
      continue()
    endif()
    string(JSON is_flagged GET "${j}" points ${i} imbalance flagged)
    string(JSON slowest GET "${j}" points ${i} imbalance slowest_rank)
    string(JSON ratio GET "${j}" points ${i} imbalance ref_ratio)
    message("job ${job}, comp ${at}: imbalance flagged ${is_flagged}, rank ${slowest} slowest, ratio ${ratio}, diagnosis ${diagnosis}")
    if(NOT is_flagged OR NOT slowest EQUAL 0 OR NOT diagnosis STREQUAL "rank-imbalance")
      message(FATAL_ERROR "job ${job}, comp ${at}: the injected imbalance of rank 0 was not diagnosed")
    endif()
    math(EXPR flagged "${flagged} + 1")
  endforeach()
  if(flagged GREATER 0)
    if(NOT out MATCHES "rank imbalance at [^\n]*: rank 0 computed")
      message(FATAL_ERROR "job ${job}: the run's output does not name the imbalance")
    endif()
    return()
  endif()
endforeach()
string(SUBSTRING "${refusals}" 2 -1 refusals)
message(FATAL_ERROR "imbalance INCONCLUSIVE: every point refused by a validity gate in 2 jobs, "
                    "nothing shows whether the imbalance was diagnosed (${refusals})")
