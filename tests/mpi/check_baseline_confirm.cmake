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
# -DDRIVER -DCONFIG -DCASE -DTHRESHOLDS -DOUT
file(REMOVE_RECURSE "${OUT}")
set(cmd "${DRIVER}" run "${CASE}" --thresholds "${THRESHOLDS}" --config "${CONFIG}")

execute_process(COMMAND ${cmd} --out "${OUT}/base" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the baseline run exited ${rc}, expected 0:\n${err}")
endif()
file(GLOB_RECURSE base_files "${OUT}/base/*/results.json")
list(LENGTH base_files n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one baseline results.json, found ${n}: ${base_files}")
endif()
file(READ "${base_files}" base)
string(JSON nsamples LENGTH "${base}" samples)
math(EXPR last "${nsamples} - 1")
foreach(i RANGE ${last})
  string(JSON nref LENGTH "${base}" samples ${i} t_comm_ref)
  set(fast "")
  foreach(k RANGE 1 ${nref})
    list(APPEND fast "1e-05")
  endforeach()
  string(REPLACE ";" "," fast "${fast}")
  string(JSON base SET "${base}" samples ${i} t_comm_ref "[${fast}]")
endforeach()
file(WRITE "${base_files}" "${base}")

# 1. Two jobs: both regress at both points; the test fails with the
#    regressions confirmed, and says where the second job's results are.
execute_process(COMMAND ${cmd} --out "${OUT}/confirmed" --baseline "${OUT}/base"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1 (regressions confirmed by a second job), got ${rc}:\n${err}")
endif()
foreach(expected
    "baseline: [0-9]+ regression\\(s\\) against the baseline; a regression must be seen by two independent jobs, so the 2 point\\(s\\) concerned are measured again"
    "baseline: the second job against the baseline:"
    "confirmed: REGRESSION collective slower: [^\n]* 2ms x 3ms: "
    "confirmed: REGRESSION collective slower: [^\n]* 2ms x 4ms: "
    "FAIL [^\n]*: [0-9]+ regression\\(s\\) against the baseline in [^\n]*, seen by two independent jobs")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "no line matching '${expected}' in the output")
  endif()
endforeach()
file(GLOB_RECURSE files "${OUT}/confirmed/*/results.json")
file(READ "${files}" json)
get_filename_component(dir "${files}" DIRECTORY)
string(JSON confirmed_by GET "${json}" baseline confirmed_by_second_job)
string(JSON nreg LENGTH "${json}" baseline regressions)
string(JSON second GET "${json}" baseline confirmation results)
if(NOT confirmed_by OR nreg LESS 2 OR NOT EXISTS "${second}" OR NOT EXISTS "${dir}/confirm-baseline/baseline-comparison.json")
  message(FATAL_ERROR "results.json baseline: confirmed by a second job ${confirmed_by}, ${nreg} regression(s) "
                      "(want both points' speed), second job's results '${second}'")
endif()
if(NOT second MATCHES "/confirm-baseline/confirmation.json$")
  message(FATAL_ERROR "the second job's results are not in confirm-baseline/: ${second}")
endif()

# 2. --no-confirm: the first job decides alone, no second job.
execute_process(COMMAND ${cmd} --out "${OUT}/one-job" --baseline "${OUT}/base" --no-confirm
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 1 OR out MATCHES "measured again|second job against" OR NOT out MATCHES "FAIL [^\n]*: [0-9]+ regression\\(s\\) against the baseline in [^\n,]*\n")
  message(FATAL_ERROR "--no-confirm: expected exit 1 from the first job alone, got ${rc}")
endif()
file(GLOB_RECURSE second_jobs "${OUT}/one-job/*/confirm-baseline/*")
if(second_jobs)
  message(FATAL_ERROR "--no-confirm ran a second job: ${second_jobs}")
endif()
