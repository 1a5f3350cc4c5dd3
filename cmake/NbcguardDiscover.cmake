# nbcguard_discover_cases(): CTest tests from case files, discovered when
# ctest runs, in the manner of GoogleTest's gtest_discover_tests
# (DISCOVERY_MODE PRE_TEST). The driver lists the tests as JSON
# (`nbcguard list --format json`, format "nbcguard-tests" version 1);
# NbcguardDiscoverAddTests.cmake turns that list into add_test lines.
#
#   nbcguard_discover_cases(
#     DRIVER <target or path>      the nbcguard driver
#     CONFIG <file>                its nbcguard-config.json
#     [CASES <dir>]                case files: discovery reruns when one changes
#     [TEST_PREFIX <p>] [TEST_SUFFIX <s>]   around every listed name
#     [LABELS <label>...]          added to every test's labels
#     [PROPERTIES <key> <value>...]   override the defaults below
#     [DISCOVERY_TIMEOUT <s>])     for the driver's list (default 60)
#
# Defaults per test, from the list: LABELS, TIMEOUT, PROCESSORS; a
# measurement (kind overlap or partitioned) also RUN_SERIAL TRUE and
# SKIP_RETURN_CODE 77 (the driver's "cannot run here").
#
# The list is read again when the driver, the config, this build's
# discovery files or a case file (added, removed or edited under CASES)
# is newer than the generated script; without CASES, at every ctest run.

include("${CMAKE_CURRENT_LIST_DIR}/NbcguardDiscoverAddTests.cmake")
set(_NBCGUARD_DISCOVER_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/NbcguardDiscoverAddTests.cmake")

# out = PROPERTIES as CTest code: each key, then each value as one bracket
# argument, so a value holding ";" (LABELS "a;b") stays one value.
function(_nbcguard_properties_code out properties)
  list(LENGTH properties n)
  math(EXPR odd "${n} % 2")
  if(odd)
    message(FATAL_ERROR "nbcguard_discover_cases: PROPERTIES needs key value pairs")
  endif()
  set(code "")
  set(is_key TRUE)
  foreach(word IN LISTS properties)
    if(is_key)
      string(APPEND code " ${word}")
      set(is_key FALSE)
    else()
      nbcguard_bracket(q "${word}")
      string(APPEND code " ${q}")
      set(is_key TRUE)
    endif()
  endforeach()
  string(STRIP "${code}" code)
  set(${out} "${code}" PARENT_SCOPE)
endfunction()

function(nbcguard_discover_cases)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "DRIVER;CASES;CONFIG;TEST_PREFIX;TEST_SUFFIX;DISCOVERY_TIMEOUT"
                        "PROPERTIES;LABELS")
  if(NOT arg_DRIVER OR NOT arg_CONFIG)
    message(FATAL_ERROR "nbcguard_discover_cases: DRIVER and CONFIG are required")
  endif()
  if(NOT arg_DISCOVERY_TIMEOUT)
    set(arg_DISCOVERY_TIMEOUT 60)
  endif()
  if(TARGET ${arg_DRIVER})
    set(driver "$<TARGET_FILE:${arg_DRIVER}>")
  else()
    set(driver "${arg_DRIVER}")
  endif()

  _nbcguard_properties_code(properties_code "${arg_PROPERTIES}")
  string(JOIN ";" labels ${arg_LABELS})

  # One script per call, named after the call's position in the directory.
  get_property(counter DIRECTORY PROPERTY NBCGUARD_DISCOVER_COUNTER)
  math(EXPR counter "${counter} + 1")
  set_property(DIRECTORY PROPERTY NBCGUARD_DISCOVER_COUNTER ${counter})
  set(base "${CMAKE_CURRENT_BINARY_DIR}/nbcguard_cases_${counter}")

  set(args "")
  foreach(kv "DRIVER;${driver}" "CONFIG;${arg_CONFIG}" "CTEST_FILE;${base}_tests.cmake"
          "TEST_PREFIX;${arg_TEST_PREFIX}" "TEST_SUFFIX;${arg_TEST_SUFFIX}" "LABELS;${labels}"
          "DISCOVERY_TIMEOUT;${arg_DISCOVERY_TIMEOUT}" "PROPERTIES_CODE;${properties_code}")
    list(POP_FRONT kv key)
    string(JOIN ";" value ${kv})
    nbcguard_bracket(q "${value}")
    string(APPEND args "\n    ${key} ${q}")
  endforeach()
  nbcguard_bracket(qscript "${_NBCGUARD_DISCOVER_SCRIPT}")
  nbcguard_bracket(qtests "${base}_tests.cmake")
  nbcguard_bracket(qdriver "${driver}")
  nbcguard_bracket(qconfig "${arg_CONFIG}")
  set(inputs "${qdriver} ${qconfig} ${qscript} \"\${CMAKE_CURRENT_LIST_FILE}\"")
  set(glob "")
  set(stale TRUE)
  if(arg_CASES)
    set(stale FALSE)
    nbcguard_bracket(qcases "${arg_CASES}")
    nbcguard_bracket(qyaml "${arg_CASES}/*.yaml")
    nbcguard_bracket(qyml "${arg_CASES}/*.yml")
    string(APPEND inputs " ${qcases}")
    set(glob "file(GLOB _cases LIST_DIRECTORIES false ${qyaml} ${qyml})\n")
  endif()
  # The generator expression of DRIVER is evaluated by file(GENERATE); the
  # caller's texts are bracket arguments, left as they are.
  file(GENERATE OUTPUT "${base}_include.cmake" CONTENT "\
if(NOT EXISTS ${qdriver})
  add_test(nbcguard_cases_NOT_BUILT nbcguard_cases_NOT_BUILT)
  return()
endif()
set(_stale ${stale})
if(NOT EXISTS ${qtests})
  set(_stale TRUE)
endif()
${glob}foreach(_input IN ITEMS ${inputs} \${_cases})
  if(_stale OR \"\${_input}\" IS_NEWER_THAN ${qtests})
    set(_stale TRUE)
    break()
  endif()
endforeach()
if(_stale)
  include(${qscript})
  nbcguard_discover_cases_impl(${args})
endif()
include(${qtests})
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${base}_include.cmake")
endfunction()
