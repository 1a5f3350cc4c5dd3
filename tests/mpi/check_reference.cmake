# Runs one reference-behaviour case through the driver, then checks the
# measured ratios against the behaviour's known answer
# (nbcguard-reference-check; the expectations are written down there).
# The threshold verdict does not matter here (exit 0 or 1 from the driver;
# reference cases match no threshold rule).
#
# When a check fails, or none fails but some are inconclusive (a ratio's
# median outside its tolerance while its confidence interval still reaches
# it: the machine was too noisy to tell), the case is measured once more by
# a second, independent job, and that job must pass outright: failed or
# inconclusive twice is a failure. A failure is measured again as a
# threshold limit's is (docs/thresholds.md, "Confirmation by a second job"): one job's
# intervals do not cover the spread between jobs on this VM. Once,
# sleeping-wait at 1ms x 4ms read r_overhead 0.35 [0.32, 0.36] against
# 0 +- 0.3 (MPICH, clean-clone CI of db66961): the computation ran 8 % slower
# with the collective than in its reference, 1.08 [1.07, 1.09], and
# r_overhead divides that 0.3 ms by the shorter, 1 ms communication. A
# broken method is wrong in every job, so it still fails.
include(${CMAKE_CURRENT_LIST_DIR}/run_case.cmake)
function(check_results dir result_var)
  file(GLOB results "${dir}/*/n2/basic/results.json")
  if(NOT results)
    message(FATAL_ERROR "no results.json under ${dir}")
  endif()
  execute_process(COMMAND "${CHECKER}" ${results} RESULT_VARIABLE crc)
  set(${result_var} ${crc} PARENT_SCOPE)
endfunction()
check_results("${OUT}" crc)
if(crc EQUAL 1 OR crc EQUAL 5)
  if(crc EQUAL 5)
    message("inconclusive (noise): measuring the case once more")
  else()
    message("a check failed in this job: a failure must be seen by two independent jobs, measuring the case once more")
  endif()
  set(OUT "${OUT}/again")
  include(${CMAKE_CURRENT_LIST_DIR}/run_case.cmake)
  check_results("${OUT}" crc)
endif()
if(NOT crc EQUAL 0)
  message(FATAL_ERROR "the measured ratios do not match the reference behaviour's known answer (see above)")
endif()
