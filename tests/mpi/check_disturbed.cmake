# A run disturbed by a load started during it (three busy processes beside
# the two ranks on two cores, from the end of the communication calibration
# until the second job starts: tests/mpi/disturb.sh) must not be read as a
# valid result. Checked on the first job's results.json:
# - the load ran (the script says so);
# - the machine-noise sentinel saw it: samples were measured again as
#   disturbed (results.json machine_noise);
# - a point refused by a validity gate keeps its figures and its reason,
#   and every refused point was measured again by the second job; refused
#   there too (the machine still disturbed, or the ranks computing
#   unequally: "refused (undecided)"): INCONCLUSIVE, reported as skipped.
#   No point refused is a pass only with the two checks around it: samples
#   were redone, and no kept point reads overlap;
# - no point the first job kept as valid reads overlap (r_overhead median
#   below 0.5): the e2e case's Iallreduce does not progress in the
#   background on either library (no-progression, r_overhead about 1, when
#   quiet), and a disturbed reference made such points read -0.70 to 0.60
#   before the gates.
# The verdict may be PASS or FAIL (exit 0 or 1); the run itself must end.
include(${CMAKE_CURRENT_LIST_DIR}/second_job.cmake)
find_program(BASH bash REQUIRED)
set(dir "${OUT}/e2e/n2/basic")
file(REMOVE_RECURSE "${OUT}")
include(${CMAKE_CURRENT_LIST_DIR}/run_driver.cmake)
nbcguard_run("nbcguard run under load" "${BASH}" "${CMAKE_CURRENT_LIST_DIR}/disturb.sh" "${dir}" 3
             "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${OUT}")
if(NOT out MATCHES "disturb: 3 busy processes started")
  message(FATAL_ERROR "the load was never started: the run ended before its communication calibration")
endif()
file(READ "${dir}/results.json" json)
string(JSON slow ERROR_VARIABLE e GET "${json}" machine_noise redone_slow_probe)
string(JSON wait ERROR_VARIABLE e GET "${json}" machine_noise redone_foreign_wait)
if(NOT slow MATCHES "^[0-9]+$" OR NOT wait MATCHES "^[0-9]+$")
  message(FATAL_ERROR "results.json has no machine_noise counts (${e})")
endif()
math(EXPR redone "${slow} + ${wait}")
message("machine sentinel under load: ${redone} samples redone (${slow} slow probe, ${wait} waited for a CPU)")
if(redone EQUAL 0)
  message(FATAL_ERROR "three busy processes shared the two cores and the machine-noise sentinel redid no sample")
endif()
string(JSON n LENGTH "${json}" points)
math(EXPR last "${n} - 1")
set(refused_points 0)
set(both 0)
foreach(i RANGE ${last})
  string(JSON valid GET "${json}" points ${i} valid)
  string(JSON at_comp GET "${json}" points ${i} comp_target)
  if(valid)
    string(JSON r GET "${json}" points ${i} r_overhead median)
    string(JSON d GET "${json}" points ${i} diagnosis)
    message("comp ${at_comp}: kept as valid under load: r_overhead ${r}, ${d}")
    if(r LESS 0.5)
      message(FATAL_ERROR "comp ${at_comp}: the disturbed run read as overlap (r_overhead ${r}, ${d}) and was kept as valid")
    endif()
    continue()
  endif()
  string(JSON why GET "${json}" points ${i} invalid_reason)
  refused_by_gate("${json}" ${i} refused)
  if(NOT refused)
    message(FATAL_ERROR "comp ${at_comp}: invalid without its figures (${why}): not a validity gate's refusal")
  endif()
  math(EXPR refused_points "${refused_points} + 1")
  second_job_valid("${json}" ${i} again_valid)
  message("comp ${at_comp}: refused under load (${why}); measured again: valid ${again_valid}")
  if(NOT again_valid)
    math(EXPR both "${both} + 1")
  endif()
endforeach()
# Every point kept: the sentinel replaced each disturbed sample within its
# tries (samples cost little since the buffers are checked a period at a
# time), and every kept point reads no overlap (checked above). That is a
# correct measurement under load, not a miss: the refusals are exercised
# whenever the load outlasts the tries.
if(refused_points EQUAL 0)
  message(STATUS "disturbed run: no point refused; the sentinel redid ${redone} disturbed samples and every point was kept with a correct reading")
  return()
endif()
# A point the second job measured but refused (here most often: the ranks
# computed unequally on this machine's vCPUs) is undecided, as one it could
# not measure: INCONCLUSIVE too.
string(REGEX MATCHALL "refused \\(undecided\\): " undecided "${out}")
list(LENGTH undecided n_undecided)
if(n_undecided GREATER both)
  set(both ${n_undecided})
endif()
if(both EQUAL 0 AND NOT out MATCHES "invalid in the first job: ")
  message(FATAL_ERROR "the confirmation does not list the points invalid in the first job")
endif()
if(both GREATER 0)
  message(FATAL_ERROR "disturbed-run INCONCLUSIVE: ${both} point(s) refused again by the second job, after the load stopped")
endif()
message(STATUS "disturbed run: ${refused_points} of ${n} point(s) refused under load and measured again")
