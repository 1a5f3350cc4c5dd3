# Checks nbcguard_discover_cases() end to end on fixture test lists
# (tests/data/discovery/*.json, printed by a stand-in driver): a small
# project calls it, ctest reads the generated scripts, and what ctest then
# knows (--show-only=json-v1) must be exactly the fixture's names and
# arguments, with the defaults and the caller's PROPERTIES applied. A
# hostile fixture's names and arguments must come through as text, none of
# its CMake code run; a list of another version must be refused; the driver
# runs again only when a case file is added, removed or changed.
#   cmake -D SOURCE_DIR=<repo> -D WORK=<scratch dir> -P check_discovery.cmake

set(data "${SOURCE_DIR}/tests/data/discovery")
set(driver "${data}/fake-driver.sh")
set(failures 0)
macro(fail)
  string(JOIN "" _msg ${ARGN})
  message(SEND_ERROR "${_msg}")
  math(EXPR failures "${failures} + 1")
endmacro()

# A project of one nbcguard_discover_cases() call on `fixture`; out = ctest's
# json-v1 view of it, rc = ctest's exit code, err = what cmake and ctest said.
function(discover fixture out rc err)
  set(dir "${WORK}/${fixture}")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}/src" "${dir}/cases")
  file(WRITE "${dir}/cases/a.yaml" "")
  file(WRITE "${dir}/src/CMakeLists.txt" "
cmake_minimum_required(VERSION 3.25)
project(discovery_check NONE)
include(\"${SOURCE_DIR}/cmake/NbcguardDiscover.cmake\")
enable_testing()
nbcguard_discover_cases(DRIVER \"${driver}\" CONFIG \"${data}/${fixture}.json\"
  CASES \"${dir}/cases\" TEST_PREFIX pre. TEST_SUFFIX .post LABELS extra1 extra2
  PROPERTIES TIMEOUT 7 ENVIRONMENT \"A=1;B=2\")
")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${dir}/src" -B "${dir}/build"
                  RESULT_VARIABLE crc OUTPUT_VARIABLE cout ERROR_VARIABLE cerr)
  if(NOT crc EQUAL 0)
    message(FATAL_ERROR "configuring the ${fixture} project failed:\n${cout}${cerr}")
  endif()
  show(${fixture} tout trc terr)
  set(${out} "${tout}" PARENT_SCOPE)
  set(${rc} "${trc}" PARENT_SCOPE)
  set(${err} "${terr}" PARENT_SCOPE)
endfunction()

# ctest's json-v1 view of the `fixture` project's build, as it is now; the
# driver's runs counted in <build>/driver.log.
function(show fixture out rc err)
  set(build "${WORK}/${fixture}/build")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "FAKE_DRIVER_LOG=${build}/driver.log"
                          "${CMAKE_CTEST_COMMAND}" --show-only=json-v1
                  WORKING_DIRECTORY "${build}" RESULT_VARIABLE trc OUTPUT_VARIABLE tout ERROR_VARIABLE terr)
  set(${out} "${tout}" PARENT_SCOPE)
  set(${rc} "${trc}" PARENT_SCOPE)
  set(${err} "${terr}" PARENT_SCOPE)
endfunction()

# Fails unless the `fixture` project's driver has run `runs` times.
function(expect_driver_runs fixture runs why)
  file(STRINGS "${WORK}/${fixture}/build/driver.log" lines)
  list(LENGTH lines n)
  if(NOT n EQUAL runs)
    fail("${fixture}: ${why}: the driver ran ${n} time(s), expected ${runs}")
  endif()
endfunction()

# "KEY=value" per property of ctest's json-v1 test object (lists joined by
# ",", as ctest sorts them), but WORKING_DIRECTORY (the build directory).
function(properties_of out test)
  set(result "")
  string(JSON n LENGTH "${test}" properties)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON key GET "${test}" properties ${i} name)
    string(JSON type TYPE "${test}" properties ${i} value)
    set(value "")
    if(type STREQUAL "ARRAY")
      string(JSON m LENGTH "${test}" properties ${i} value)
      math(EXPR mlast "${m} - 1")
      foreach(j RANGE ${mlast})
        string(JSON v GET "${test}" properties ${i} value ${j})
        string(APPEND value ",${v}")
      endforeach()
      string(SUBSTRING "${value}" 1 -1 value)
    else()
      string(JSON value GET "${test}" properties ${i} value)
    endif()
    if(NOT key STREQUAL "WORKING_DIRECTORY")
      string(APPEND result "|${key}=${value}")
    endif()
  endforeach()
  set(${out} "${result}|" PARENT_SCOPE)
endfunction()

# Names and command lines ctest knows must be the fixture's, one for one.
function(check_round_trip fixture shown)
  file(READ "${data}/${fixture}.json" listed)
  string(JSON n LENGTH "${listed}" tests)
  string(JSON m LENGTH "${shown}" tests)
  if(NOT n EQUAL m)
    fail("${fixture}: ctest knows ${m} tests, the list has ${n}")
    return()
  endif()
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${listed}" tests ${i} name)
    string(JSON shown_name GET "${shown}" tests ${i} name)
    if(NOT shown_name STREQUAL "pre.${name}.post")
      fail("${fixture}: test ${i} is named '${shown_name}', expected 'pre.${name}.post'")
    endif()
    string(JSON shown_driver GET "${shown}" tests ${i} command 0)
    if(NOT shown_driver STREQUAL driver)
      fail("${fixture}: test ${i} runs '${shown_driver}', expected '${driver}'")
    endif()
    string(JSON nargs LENGTH "${listed}" tests ${i} args)
    string(JSON ncmd LENGTH "${shown}" tests ${i} command)
    math(EXPR expected "${nargs} + 1")
    if(NOT ncmd EQUAL expected)
      fail("${fixture}: test ${i} has ${ncmd} command words, expected ${expected}")
      continue()
    endif()
    foreach(j RANGE 1 ${nargs})
      math(EXPR k "${j} - 1")
      string(JSON want GET "${listed}" tests ${i} args ${k})
      string(JSON got GET "${shown}" tests ${i} command ${j})
      if(NOT got STREQUAL want)
        fail("${fixture}: test ${i} argument ${j} is '${got}', expected '${want}'")
      endif()
    endforeach()
  endforeach()
endfunction()

function(expect_properties shown index expected)
  string(JSON test GET "${shown}" tests ${index})
  properties_of(got "${test}")
  if(NOT got STREQUAL expected)
    fail("list: test ${index} has properties\n  ${got}\nexpected\n  ${expected}")
  endif()
endfunction()

# 1. The agreed list: names, arguments, defaults, the caller's override.
discover(list shown rc err)
if(NOT rc EQUAL 0)
  fail("list: ctest failed (${rc}):\n${err}")
else()
  check_round_trip(list "${shown}")
  set(env "ENVIRONMENT=A=1,B=2")
  set(skip "SKIP_REGULAR_EXPRESSION=INCONCLUSIVE [^:]+: (points refused|undecided)")
  expect_properties("${shown}" 0 "|${env}|${skip}|LABELS=basic,cases,extra1,extra2,ibcast,mpich,n2|PROCESSORS=2|\
RUN_SERIAL=ON|SKIP_RETURN_CODE=77|TIMEOUT=7.0|")
  expect_properties("${shown}" 1 "|${env}|${skip}|LABELS=cases,extra1,extra2,mpich,n2,partitioned,psend|PROCESSORS=2|\
RUN_SERIAL=ON|SKIP_RETURN_CODE=77|TIMEOUT=7.0|")
  expect_properties("${shown}" 2 "|${env}|LABELS=cases,extra1,extra2,invalid-case|TIMEOUT=7.0|")
endif()

# The list is read again only when a case file changes (CASES).
expect_driver_runs(list 1 "first ctest")
show(list shown rc err)
expect_driver_runs(list 1 "ctest again, no case file changed")
file(WRITE "${WORK}/list/cases/b.yaml" "")
show(list shown rc err)
expect_driver_runs(list 2 "ctest after a case file was added")
file(REMOVE "${WORK}/list/cases/a.yaml")
show(list shown rc err)
expect_driver_runs(list 3 "ctest after a case file was removed")

# 2. Hostile names, arguments and labels: text only.
discover(hostile shown rc err)
if(NOT rc EQUAL 0)
  fail("hostile: ctest failed (${rc}):\n${err}")
else()
  check_round_trip(hostile "${shown}")
endif()
file(GLOB_RECURSE injected "${WORK}/hostile/*injected*")
if(injected OR err MATCHES "injected")
  fail("hostile: the list's CMake code ran: ${injected}${err}")
endif()

# 3. Another version of the list is refused, saying why.
discover(version2 shown rc err)
if(rc EQUAL 0 OR NOT err MATCHES "test list of version '2'.*reads version 1 only")
  fail("version2: expected a refusal of version 2, got exit ${rc}:\n${err}")
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} discovery check(s) failed")
endif()
message(STATUS "discovery: list, hostile and version2 fixtures as expected")
