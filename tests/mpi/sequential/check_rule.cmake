# The sequential rule of check_reference.cmake on scripted job outcomes (no
# MPI): a fake driver, and a fake checker that answers each job with the
# next exit code of a sequence (0 pass, 1 a check failed, 5 inconclusive,
# 2 not a reference run). For each sequence: how many jobs ran, and whether
# the test passed, failed, or said INCONCLUSIVE.
# Arguments: SOURCE_DIR (tests/mpi), WORK.
cmake_minimum_required(VERSION 3.25)
set(cases
  "0|1|pass"
  "1 0|2|pass"
  "5 0|2|pass"
  "1 1|2|fail"
  "1 5 1|3|fail"
  "5 1 1|3|fail"
  "5 5 5|3|inconclusive"
  "1 5 5|3|inconclusive"
  "5 1 5|3|inconclusive"
  "2|1|fail")
set(bad 0)
foreach(c IN LISTS cases)
  string(REPLACE "|" ";" parts "${c}")
  list(GET parts 0 sequence)
  list(GET parts 1 jobs_expected)
  list(GET parts 2 expected)
  file(REMOVE_RECURSE "${WORK}")
  file(MAKE_DIRECTORY "${WORK}")
  file(WRITE "${WORK}/sequence" "${sequence}\n")
  set(ENV{NBCGUARD_FAKE_SEQUENCE} "${WORK}/sequence")
  execute_process(COMMAND ${CMAKE_COMMAND} -DDRIVER=${SOURCE_DIR}/sequential/fake-driver.sh -DCONFIG=none
                          -DOUT=${WORK}/out -DCASE=${SOURCE_DIR}/data/reference/background.yaml
                          -DCHECKER=${SOURCE_DIR}/sequential/fake-checker.sh -DCHECKER_SELF_TEST=OFF
                          -P ${SOURCE_DIR}/check_reference.cmake
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX MATCHALL "fake check: exit" calls "${out}${err}")
  list(LENGTH calls jobs)
  if(rc EQUAL 0)
    set(got pass)
  elseif("${out}${err}" MATCHES "reference-background INCONCLUSIVE: undecided after 3 jobs")
    set(got inconclusive)
  else()
    set(got fail)
  endif()
  if(NOT got STREQUAL expected OR NOT jobs EQUAL jobs_expected)
    math(EXPR bad "${bad} + 1")
    message("WRONG: checker exits ${sequence}: ${got} after ${jobs} job(s), expected ${expected} after ${jobs_expected}\n${out}${err}")
  else()
    message("ok: checker exits ${sequence}: ${got} after ${jobs} job(s)")
  endif()
endforeach()
if(bad GREATER 0)
  message(FATAL_ERROR "${bad} sequence(s) decided wrongly")
endif()
