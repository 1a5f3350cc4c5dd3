# The ctest-time half of nbcguard_discover_cases() (NbcguardDiscover.cmake),
# like GoogleTestAddTests.cmake for gtest_discover_tests: runs
# `<driver> list --config <cfg> --format json` and writes one add_test and
# set_tests_properties per listed test into a CTest script.
#
# Every text that reaches the generated script (test names, arguments, case
# file paths, labels) comes from case files anybody may add, so each one is
# written as a bracket argument whose bracket is longer than any "]=...=]"
# inside it: a case named `x]==]message(FATAL_ERROR)` stays a name.
#
# Script mode, for tests and by hand:
#   cmake -D DRIVER=... -D CONFIG=... -D CTEST_FILE=... [-D TEST_PREFIX=...]
#         [-D TEST_SUFFIX=...] [-D LABELS=a;b] [-D DISCOVERY_TIMEOUT=60]
#         -P NbcguardDiscoverAddTests.cmake

# CTest reads this file with no cmake_minimum_required(), that is with
# CMake 2.x policies (while(TRUE) would test a variable named TRUE); a
# function keeps the policies of its definition.
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)

# out = text as a bracket argument that closes only where it should:
# the shortest "=" run n such that "]" n*"=" "]" neither occurs in the
# text nor starts inside it when the closing bracket is appended (a text
# ending in "]=" would otherwise close early on "]=]"). A text starting with
# a newline gets one more, because CMake drops a newline right after the
# opening bracket.
function(nbcguard_bracket out text)
  string(LENGTH "${text}" len)
  set(eq "")
  while(TRUE)
    string(FIND "${text}]${eq}]" "]${eq}]" pos)
    if(pos EQUAL len)
      break()
    endif()
    string(APPEND eq "=")
  endwhile()
  set(lead "")
  if(text MATCHES "^\n")
    set(lead "\n")
  endif()
  set(${out} "[${eq}[${lead}${text}]${eq}]" PARENT_SCOPE)
endfunction()

# out = value of `key` in the JSON object `json`, or `default` when absent.
function(_nbcguard_json_get out json key default)
  string(JSON value ERROR_VARIABLE err GET "${json}" "${key}")
  if(err)
    set(value "${default}")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# out = the elements of the JSON array `key` of `json`, each as a bracket
# argument, separated by `sep` (string array -> CMake words, never a list:
# an element may hold ";" or "[").
function(_nbcguard_json_words out json key sep)
  set(words "")
  string(JSON n ERROR_VARIABLE err LENGTH "${json}" "${key}")
  if(err)
    set(n 0)
  endif()
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON element GET "${json}" "${key}" ${i})
      if(sep STREQUAL ";")
        if(NOT words STREQUAL "")
          string(APPEND words ";")
        endif()
        string(APPEND words "${element}")
      else()
        nbcguard_bracket(q "${element}")
        string(APPEND words "${sep}${q}")
      endif()
    endforeach()
  endif()
  set(${out} "${words}" PARENT_SCOPE)
endfunction()

# The add_test / set_tests_properties lines of one test object of the list.
function(_nbcguard_test_code out test driver prefix suffix extra_labels properties_code)
  string(JSON name GET "${test}" name)
  _nbcguard_json_get(kind "${test}" kind "")
  if(NOT kind MATCHES "^(overlap|partitioned|invalid-case)$")
    message(FATAL_ERROR "nbcguard list: test '${name}' has kind '${kind}'; "
                        "version 1 knows overlap, partitioned and invalid-case")
  endif()
  _nbcguard_json_words(args "${test}" args " ")
  _nbcguard_json_words(labels "${test}" labels ";")
  if(NOT extra_labels STREQUAL "")
    if(NOT labels STREQUAL "")
      string(APPEND labels ";")
    endif()
    string(APPEND labels "${extra_labels}")
  endif()
  nbcguard_bracket(qname "${prefix}${name}${suffix}")
  nbcguard_bracket(qdriver "${driver}")
  nbcguard_bracket(qlabels "${labels}")
  set(props " LABELS ${qlabels}")
  # A measurement runs alone (timing) and may skip (77: the machine cannot
  # run it) or end INCONCLUSIVE (exit 5 and its own line: points refused in
  # both jobs, or a limit exceeded by one job only; no limit exceeded in two
  # jobs; or regressions against the baseline left undecided), reported as
  # not run, never as passed; a
  # broken case file is a quick check that only reports it.
  if(NOT kind STREQUAL "invalid-case")
    string(APPEND props " RUN_SERIAL TRUE SKIP_RETURN_CODE 77"
                        " SKIP_REGULAR_EXPRESSION [==[INCONCLUSIVE [^:]+: (points refused|undecided)]==]")
  endif()
  foreach(key timeout processors)
    _nbcguard_json_get(value "${test}" ${key} "")
    if(NOT value STREQUAL "")
      if(NOT value MATCHES "^[0-9]+(\\.[0-9]+)?$")
        message(FATAL_ERROR "nbcguard list: test '${name}' has ${key} '${value}', not a number")
      endif()
      string(TOUPPER ${key} property)
      string(APPEND props " ${property} ${value}")
    endif()
  endforeach()
  set(code "add_test(${qname} ${qdriver}${args})\nset_tests_properties(${qname} PROPERTIES${props})\n")
  # The caller's PROPERTIES come last: they override the defaults above.
  if(NOT properties_code STREQUAL "")
    string(APPEND code "set_tests_properties(${qname} PROPERTIES ${properties_code})\n")
  endif()
  set(${out} "${code}" PARENT_SCOPE)
endfunction()

# The CTest script of every test `json` (the list's output) describes.
function(nbcguard_discover_cases_code out json driver prefix suffix extra_labels properties_code)
  string(JSON format ERROR_VARIABLE err GET "${json}" format)
  if(err OR NOT format STREQUAL "nbcguard-tests")
    message(FATAL_ERROR "nbcguard list --format json did not print an nbcguard test list "
                        "(no \"format\": \"nbcguard-tests\"):\n${json}")
  endif()
  string(JSON version ERROR_VARIABLE err GET "${json}" version)
  if(NOT version STREQUAL "1")
    message(FATAL_ERROR "nbcguard list printed a test list of version '${version}'; this CMake script "
                        "(cmake/NbcguardDiscoverAddTests.cmake) reads version 1 only: driver and build "
                        "files are from different nbcguard versions, rerun cmake")
  endif()
  string(JSON n LENGTH "${json}" tests)
  set(code "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      # One parse of the whole list per test, then only the test's object.
      string(JSON test GET "${json}" tests ${i})
      _nbcguard_test_code(test_code "${test}" "${driver}" "${prefix}" "${suffix}" "${extra_labels}"
                          "${properties_code}")
      string(APPEND code "${test_code}")
    endforeach()
  endif()
  set(${out} "${code}" PARENT_SCOPE)
endfunction()

# Runs the driver's list and writes the CTest script CTEST_FILE.
function(nbcguard_discover_cases_impl)
  cmake_parse_arguments(PARSE_ARGV 0 arg ""
    "DRIVER;CONFIG;CTEST_FILE;TEST_PREFIX;TEST_SUFFIX;DISCOVERY_TIMEOUT;LABELS;PROPERTIES_CODE" "")
  if(NOT arg_DISCOVERY_TIMEOUT)
    set(arg_DISCOVERY_TIMEOUT 60)
  endif()
  execute_process(COMMAND "${arg_DRIVER}" list --config "${arg_CONFIG}" --format json
                  TIMEOUT ${arg_DISCOVERY_TIMEOUT}
                  OUTPUT_VARIABLE json ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "'${arg_DRIVER} list --config ${arg_CONFIG} --format json' failed "
                        "(${rc}; DISCOVERY_TIMEOUT ${arg_DISCOVERY_TIMEOUT} s):\n${err}${json}")
  endif()
  nbcguard_discover_cases_code(code "${json}" "${arg_DRIVER}" "${arg_TEST_PREFIX}" "${arg_TEST_SUFFIX}"
                               "${arg_LABELS}" "${arg_PROPERTIES_CODE}")
  file(WRITE "${arg_CTEST_FILE}" "${code}")
endfunction()

cmake_policy(POP)

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  nbcguard_discover_cases_impl(DRIVER "${DRIVER}" CONFIG "${CONFIG}" CTEST_FILE "${CTEST_FILE}"
                               TEST_PREFIX "${TEST_PREFIX}" TEST_SUFFIX "${TEST_SUFFIX}"
                               LABELS "${LABELS}" DISCOVERY_TIMEOUT "${DISCOVERY_TIMEOUT}")
endif()
