# bcast-check's confirmation by later jobs: a disagreement beyond noise in
# the first job only (--inject-fault disagree-once: its synchronized-clock
# times x4) is measured again and not confirmed, so the check passes
# and says so (a second job within noise leaves it to a third); one in both
# jobs (disagree) fails it; one that later jobs see on the other side
# (disagree-flip) is INCONCLUSIVE. 4 MiB with a 30 % allowance, so that an
# uninjected later job agrees in all but the noisiest phases.
# Last, a bcast-check.json that cannot be written.
# Arguments: DRIVER, CONFIG, OUT.
include(${CMAKE_CURRENT_LIST_DIR}/run_driver.cmake)
function(bcast_check fault expect_rc)
  file(REMOVE_RECURSE "${OUT}/${fault}")
  nbcguard_run("bcast-check --inject-fault ${fault}" "${DRIVER}" bcast-check --nodes 2 --sizes 4MiB
               --relative-tolerance 0.3 --inject-fault ${fault} --config "${CONFIG}" --out "${OUT}/${fault}")
  if(NOT rc EQUAL ${expect_rc})
    message(FATAL_ERROR "--inject-fault ${fault}: exit ${rc}, expected ${expect_rc}")
  endif()
  set(dir "${OUT}/${fault}/bcast-check/n2")
  if(NOT EXISTS "${dir}/confirm/raw.jsonl")
    message(FATAL_ERROR "--inject-fault ${fault}: no second job (${dir}/confirm/raw.jsonl)")
  endif()
  file(READ "${dir}/bcast-check.json" json)
  string(JSON confirmed ERROR_VARIABLE e GET "${json}" sizes 0 confirmation confirmed)
  if(e)
    message(FATAL_ERROR "--inject-fault ${fault}: bcast-check.json has no confirmation of 4MiB: ${e}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(json "${json}" PARENT_SCOPE)
  set(confirmed "${confirmed}" PARENT_SCOPE)
endfunction()

bcast_check(disagree-once 0)
if(confirmed OR NOT out MATCHES "4MiB: not confirmed: the (second|third) job agrees"
   OR NOT out MATCHES "PASS: the two methods agree: the first job's disagreement was not confirmed")
  message(FATAL_ERROR "a disagreement of the first job only was not reported as not confirmed (confirmed: ${confirmed})")
endif()

bcast_check(disagree 1)
if(NOT confirmed OR NOT out MATCHES "4MiB: disagreement confirmed by the second job"
   OR NOT out MATCHES "FAIL: the two methods disagree beyond noise in two independent jobs")
  message(FATAL_ERROR "a disagreement of both jobs was not confirmed (confirmed: ${confirmed})")
endif()
message(STATUS "bcast-check: a disagreement of one job not confirmed (pass), of two jobs confirmed (fail)")

# Later jobs that see the difference beyond noise on the other side neither
# confirm nor refute it (disagree-flip: the first job's times x4, every
# later job's / 4): measured again up to the third job, then
# INCONCLUSIVE, exit 5, never a pass.
bcast_check(disagree-flip 5)
string(JSON outcome ERROR_VARIABLE e GET "${json}" sizes 0 confirmation outcome)
string(JSON jobs ERROR_VARIABLE e2 GET "${json}" jobs)
if(confirmed OR NOT outcome STREQUAL "inconclusive" OR NOT jobs EQUAL 3
   OR NOT EXISTS "${OUT}/disagree-flip/bcast-check/n2/confirm-job3/raw.jsonl"
   OR NOT out MATCHES "4MiB: undecided in the second job \\("
   OR NOT out MATCHES "bcast-check INCONCLUSIVE: 1 size\\(s\\) undecided after 3 jobs")
  message(FATAL_ERROR "a disagreement never decided was not INCONCLUSIVE after 3 jobs (outcome ${outcome}, jobs ${jobs})")
endif()
message(STATUS "bcast-check: a disagreement undecided in every later job is INCONCLUSIVE after 3 jobs")

# Results that cannot be stored are never announced: a directory where
# bcast-check.json goes makes the write fail (even for root); exit 3 with
# the reason, no "results:" line.
file(REMOVE_RECURSE "${OUT}/blocked")
file(MAKE_DIRECTORY "${OUT}/blocked/bcast-check/n2/bcast-check.json")
execute_process(COMMAND "${DRIVER}" bcast-check --nodes 2 --sizes 4MiB --relative-tolerance 0.3
                        --config "${CONFIG}" --out "${OUT}/blocked"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 200)
if(NOT rc EQUAL 3 OR NOT out MATCHES "error: cannot write [^\n]*bcast-check.json" OR out MATCHES "results: ")
  message(FATAL_ERROR "an unwritable bcast-check.json: exit ${rc}, expected 3 with the reason and no results line\n${out}${err}")
endif()
message(STATUS "bcast-check: an unwritable bcast-check.json is exit 3, named, not announced")
