# A regression against the baseline fails a test only when a second,
# independent job of its points regresses at the same place too
# (docs/nightly.md, "nbcguard run --baseline"); --no-confirm judges on one job.
# The baseline is a run of the reference behaviour background whose
# collective-alone times are replaced by 10us (the reference models 50MB/s,
# so about 2ms at this size): the new run's collective is far slower at both
# points in every job, a regression no phase of the machine can hide or make.
# Removing the second job fails the first part (no second comparison, no
# "confirmed:" lines, no confirm-baseline/); judging on the second job
# alone or not at all fails the checks of results.json's "baseline".
# The third part is a run whose first point is refused (--inject-fault
# refuse-first, no second job): its thresholds leave it INCONCLUSIVE, and
# the regression at its other point must still fail it; skipping the
# comparison of an undecided test fails that part (exit 5).
# The fourth part is a ratio regression, which the results history must
# know the between-run spread of before it can fail a test: without a
# history it is undecided (INCONCLUSIVE), never FAIL and never a pass;
# treating it like a speed regression fails that part.
# A point a validity gate refused beside a busy neighbour is not compared
# (the comparison is of valid points only): its regression line is then
# not asked for, and a part with no point left to compare ends the test as
# INCONCLUSIVE, never as a pass.
# -DDRIVER -DCONFIG -DCASE -DTHRESHOLDS -DOUT
include(${CMAKE_CURRENT_LIST_DIR}/second_job.cmake)
file(REMOVE_RECURSE "${OUT}")
set(cmd "${DRIVER}" run "${CASE}" --thresholds "${THRESHOLDS}" --config "${CONFIG}")
# The case's two points, in results.json's order: 2ms x 3ms, 2ms x 4ms.
set(point_names "2ms x 3ms" "2ms x 4ms")

# out_var: the names of the points valid in both results.json texts (two
# arguments, not a list: the texts may hold semicolons).
function(valid_in_all out_var first second)
  set(names "")
  foreach(p RANGE 1)
    string(JSON v1 GET "${first}" points ${p} valid)
    string(JSON v2 GET "${second}" points ${p} valid)
    if(v1 AND v2)
      list(GET point_names ${p} name)
      list(APPEND names "${name}")
    endif()
  endforeach()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# Fails, naming `what`, on a point of the results.json text that is
# invalid without a validity gate's evidence (refused_by_gate): only a
# refusal the evidence explains leaves a part undecided.
function(require_gate_evidence what text)
  foreach(p RANGE 1)
    string(JSON v GET "${text}" points ${p} valid)
    refused_by_gate("${text}" ${p} refused)
    if(NOT v AND NOT refused)
      string(JSON why GET "${text}" points ${p} invalid_reason)
      message(FATAL_ERROR "${what}: point ${p} invalid without a gate's evidence: ${why}")
    endif()
  endforeach()
endfunction()

# Runs the case into OUT/<dir> against the baseline, with the options
# after `dir`; sets rc, out, err, files (its results.json), json (its text)
# and compared (the points valid in the baseline and the run). None
# compared: INCONCLUSIVE, and the script ends (a macro: its return()
# leaves the script).
macro(run_against_baseline what dir)
  execute_process(COMMAND ${cmd} --out "${OUT}/${dir}" --baseline "${OUT}/base" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  file(GLOB_RECURSE files "${OUT}/${dir}/*/results.json")
  if(NOT files)
    message(FATAL_ERROR "${what}: the run (exit ${rc}) wrote no results.json:\n${err}")
  endif()
  file(READ "${files}" json)
  valid_in_all(compared "${original}" "${json}")
  if(compared STREQUAL "")
    require_gate_evidence("${what}, the baseline" "${original}")
    require_gate_evidence("${what}" "${json}")
    message("baseline-confirm INCONCLUSIVE: ${what}: no point valid in both the baseline and the run")
    return()
  endif()
endmacro()

execute_process(COMMAND ${cmd} --out "${OUT}/base" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
# Exit 5: a point refused in both jobs, which the comparisons below leave out.
if(NOT rc MATCHES "^(0|5)$")
  message(FATAL_ERROR "the baseline run exited ${rc}, expected 0 (or 5, a point refused in both jobs):\n${err}")
endif()
file(GLOB_RECURSE base_files "${OUT}/base/*/results.json")
list(LENGTH base_files n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one baseline results.json, found ${n}: ${base_files}")
endif()
file(READ "${base_files}" original)

# out_var: the results.json text `json` with every sample's `key` times
# (t_comm_ref or t_comp_ref) set to `seconds`.
function(with_sample_times out_var json key seconds)
  string(JSON nsamples LENGTH "${json}" samples)
  math(EXPR last "${nsamples} - 1")
  foreach(i RANGE ${last})
    string(JSON nref LENGTH "${json}" samples ${i} ${key})
    string(REPEAT "${seconds}," ${nref} times)
    string(REGEX REPLACE ",$" "" times "${times}")
    string(JSON json SET "${json}" samples ${i} ${key} "[${times}]")
  endforeach()
  set(${out_var} "${json}" PARENT_SCOPE)
endfunction()

# A baseline with no valid point (every point refused beside a busy
# neighbour) has nothing to compare: undecided when a gate's evidence
# explains each point, a failure otherwise.
valid_in_all(base_valid "${original}" "${original}")
if(base_valid STREQUAL "")
  require_gate_evidence("the baseline run" "${original}")
  message("baseline-confirm INCONCLUSIVE: the baseline run has no valid point")
  return()
endif()
with_sample_times(base "${original}" t_comm_ref 1e-05)
file(WRITE "${base_files}" "${base}")

# 1. Two jobs: both regress at every point valid in the baseline and the
#    first job; the test fails with the regressions confirmed, and says
#    where the second job's results are. A point the second job refused is
#    undecided there, not confirmed; at least one must be confirmed.
run_against_baseline("two jobs" confirmed)
list(LENGTH compared ncompared)
# The second job refused every place it was to compare: nothing confirmed,
# nothing cleared (exit 5).
if(rc EQUAL 5 AND NOT out MATCHES "\n  confirmed: " AND out MATCHES "undecided \\(the second job could not compare it\\)")
  message("baseline-confirm INCONCLUSIVE: two jobs: the second job could not compare the regressions")
  return()
endif()
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1 (regressions confirmed by a second job), got ${rc}:\n${err}")
endif()
foreach(expected
    "baseline: [0-9]+ regression\\(s\\) against the baseline; a regression must be seen by two independent jobs, so the ${ncompared} point\\(s\\) concerned are measured again"
    "baseline: the second job against the baseline:"
    "FAIL [^\n]*: [0-9]+ regression\\(s\\) against the baseline in [^\n]*, seen by two independent jobs")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "no line matching '${expected}' in the output")
  endif()
endforeach()
foreach(name IN LISTS compared)
  if(NOT out MATCHES "(confirmed|undecided \\(the second job could not compare it\\)): REGRESSION collective slower: [^\n]* ${name}: ")
    message(FATAL_ERROR "no confirmed (or, by a refusal of the second job, undecided) speed regression at ${name}")
  endif()
endforeach()
get_filename_component(dir "${files}" DIRECTORY)
string(JSON confirmed_by GET "${json}" baseline confirmed_by_second_job)
string(JSON nreg LENGTH "${json}" baseline regressions)
string(JSON nundecided LENGTH "${json}" baseline undecided)
math(EXPR nseen "${nreg} + ${nundecided}")
string(JSON second GET "${json}" baseline confirmation results)
if(NOT confirmed_by OR nreg LESS 1 OR nseen LESS ncompared OR NOT EXISTS "${second}"
   OR NOT EXISTS "${dir}/confirm-baseline/baseline-comparison.json")
  message(FATAL_ERROR "results.json baseline: confirmed by a second job ${confirmed_by}, ${nreg} regression(s) and "
                      "${nundecided} undecided (want the speed of ${ncompared} point(s)), second job's results '${second}'")
endif()
if(NOT second MATCHES "/confirm-baseline/confirmation.json$")
  message(FATAL_ERROR "the second job's results are not in confirm-baseline/: ${second}")
endif()

# 2. --no-confirm: the first job decides alone, no second job.
run_against_baseline("--no-confirm" one-job --no-confirm)
if(NOT rc EQUAL 1 OR out MATCHES "measured again|second job against" OR NOT out MATCHES "FAIL [^\n]*: [0-9]+ regression\\(s\\) against the baseline in [^\n,]*\n")
  message(FATAL_ERROR "--no-confirm: expected exit 1 from the first job alone, got ${rc}")
endif()
file(GLOB_RECURSE second_jobs "${OUT}/one-job/*/confirm-baseline/*")
if(second_jobs)
  message(FATAL_ERROR "--no-confirm ran a second job: ${second_jobs}")
endif()

# 3. A test its thresholds leave INCONCLUSIVE is still compared: the first
#    point refused (--inject-fault refuse-first), no second job to measure
#    it again, and the other point's regression against the baseline fails
#    the test (exit 1), the refused point named. A driver that skips the
#    comparison of an undecided test exits 5 here and hides the regression.
run_against_baseline("refuse-first" refused --no-confirm --inject-fault refuse-first)
if(NOT out MATCHES "refused by --inject-fault refuse-first")
  message(FATAL_ERROR "refuse-first: no point refused by the injection")
endif()
if(NOT rc EQUAL 1 OR NOT out MATCHES "FAIL [^\n]*: [0-9]+ regression\\(s\\) against the baseline in ")
  message(FATAL_ERROR "refuse-first: expected exit 1, the regression at ${compared} failing the test beside "
                      "the refused point, got ${rc}")
endif()
foreach(name IN LISTS compared)
  if(NOT out MATCHES "REGRESSION collective slower: [^\n]* ${name}: ")
    message(FATAL_ERROR "refuse-first: no speed regression at ${name}, the point not refused")
  endif()
endforeach()

# 4. A ratio regression without a results history: the same baseline run
#    with its computation-alone times set to 16ms (the targets are 3ms and
#    4ms; the collective's times untouched), so r_comp_slowdown is about
#    0.2 in the baseline and the new run's ~1 a regression of several
#    hundred per cent at each point (one the baseline's own validity gates
#    refused is not compared), its speed the same. No history
#    (NBCGUARD_HISTORY unset) knows how far that ratio moves between runs,
#    so the one job's regressions are undecided: exit 5, the INCONCLUSIVE
#    line CTest skips on, nothing in "regressions".
#    A run whose points all show the ranks computing at unequal speeds
#    (two vCPUs at different speeds) cannot serve as that baseline or as
#    the new run ("refused in the baseline/new run: rank imbalance"), nor
#    one too noisy to resolve the tolerance: each of up to 3 attempts takes
#    as baseline the first run so far with a point without imbalance, and
#    an attempt that compared nothing (exit 0, no REGRESSION line) adds its
#    run to those runs. Nothing compared in 3 attempts: INCONCLUSIVE, never
#    a pass.
file(GLOB_RECURSE pool "${OUT}/confirmed/*/results.json" "${OUT}/one-job/*/results.json")
list(PREPEND pool "${OUT}/base-original.json")
file(WRITE "${OUT}/base-original.json" "${original}")
set(decided FALSE)
foreach(attempt RANGE 1 3)
  set(chosen "")
  foreach(candidate IN LISTS pool)
    file(READ "${candidate}" text)
    string(JSON npoints LENGTH "${text}" points)
    math(EXPR lastpoint "${npoints} - 1")
    foreach(p RANGE ${lastpoint})
      string(JSON valid GET "${text}" points ${p} valid)
      string(JSON flagged ERROR_VARIABLE noflag GET "${text}" points ${p} imbalance flagged)
      if(valid AND (noflag OR NOT flagged) AND chosen STREQUAL "")
        set(chosen "${text}")
      endif()
    endforeach()
  endforeach()
  if(chosen STREQUAL "")
    message("attempt ${attempt}: no run so far has a point without rank imbalance to serve as the baseline")
  else()
    with_sample_times(slowcomp "${chosen}" t_comp_ref 0.016)
    file(REMOVE_RECURSE "${OUT}/base-comp")
    file(WRITE "${OUT}/base-comp/ref-compare/n2/basic/results.json" "${slowcomp}")
  endif()
  file(REMOVE_RECURSE "${OUT}/ratio")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=NBCGUARD_HISTORY ${cmd} --out "${OUT}/ratio"
                          --baseline "${OUT}/base-comp" --no-confirm
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  file(GLOB_RECURSE files "${OUT}/ratio/*/results.json")
  if(NOT chosen STREQUAL "" AND NOT (rc EQUAL 0 AND NOT out MATCHES "REGRESSION"))
    set(decided TRUE)
    break()
  endif()
  if(files)
    file(COPY_FILE "${files}" "${OUT}/ratio-${attempt}.json")
    list(APPEND pool "${OUT}/ratio-${attempt}.json")
  endif()
endforeach()
if(NOT decided)
  message("baseline-confirm INCONCLUSIVE: no comparable baseline and new run (rank imbalance, or a baseline too noisy) in 3 attempts")
  return()
endif()
if(NOT rc EQUAL 5)
  message(FATAL_ERROR "a ratio regression without a history: expected exit 5 (INCONCLUSIVE), got ${rc}:\n${err}")
endif()
foreach(expected
    "undecided \\(seen by the one job, but the between-run spread of this ratio is unknown: the history holds 0 of the 6 nights it needs\\): REGRESSION [^\n]* 2ms x [34]ms r_comp_slowdown"
    "INCONCLUSIVE [^:\n]+: undecided regression\\(s\\) against the baseline")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "no line matching '${expected}' in the output")
  endif()
endforeach()
if(out MATCHES "REGRESSION collective slower|FAIL [^\n]*against the baseline")
  message(FATAL_ERROR "a ratio regression without a history failed the test, or the speed changed")
endif()
file(READ "${files}" json)
string(JSON nreg LENGTH "${json}" baseline regressions)
string(JSON nundecided LENGTH "${json}" baseline undecided)
if(NOT nreg EQUAL 0 OR nundecided LESS 1)
  message(FATAL_ERROR "results.json baseline: ${nreg} regression(s) (want 0), ${nundecided} undecided (want some)")
endif()
