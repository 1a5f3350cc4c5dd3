# Nightly mode (run --baseline) whose baseline holds this test's
# results.json, unreadable: the run names the file and its error and fails
# (a corrupt baseline is not a missing one, which passes with "no baseline
# for this test"). Arguments: DRIVER, CONFIG, OUT, CASE (e2e.yaml),
# THRESHOLDS (no rule for the case).
file(REMOVE_RECURSE "${OUT}")
set(bad "${OUT}/baseline/e2e/n2/basic/results.json")
file(WRITE "${bad}" "{\"schema\": \"nbcguard-results/1\", truncated")
# Thresholds under which no rule applies to the case: the verdict is FAIL
# (exit 1) whatever the machine's noise, never INCONCLUSIVE (which skips the
# baseline), so the baseline is always consulted.
execute_process(COMMAND "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${OUT}/run" --baseline "${OUT}/baseline"
                        --thresholds "${THRESHOLDS}" --no-confirm
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("nbcguard run --baseline: exit ${rc}\n${out}${err}")
if(out MATCHES "INCONCLUSIVE [^ ]*e2e")
  # Points refused (a disturbed machine): the baseline is not consulted.
  message("baseline-unreadable INCONCLUSIVE")
  return()
endif()
string(FIND "${out}" "baseline: ${bad} is unreadable: " at)
if(at EQUAL -1)
  message(FATAL_ERROR "the run does not name the unreadable baseline ${bad}")
endif()
if(NOT out MATCHES "FAIL [^ ]*e2e[^ ]*: no usable baseline for this test")
  message(FATAL_ERROR "the run does not say that it has no usable baseline")
endif()
if(out MATCHES "no baseline for this test")
  message(FATAL_ERROR "an unreadable baseline reported as a missing one")
endif()
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1, got ${rc}")
endif()
# No rule applies: the run says which file and how to add a rule for this test.
if(NOT out MATCHES "hint: no rule of [^\n]*no-rule-thresholds/[a-z]+\\.yaml matches this test \\(collective iallreduce, deployment basic, 2 ranks"
   OR NOT out MATCHES "match: {collective: iallreduce, deployment: basic, nodes: 2}")
  message(FATAL_ERROR "the run does not say how to add a rule for the test that none matches")
endif()
