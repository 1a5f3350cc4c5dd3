# nbcguard as another project uses it: `cmake --install` this build into a
# staging prefix, move the prefix (an installed tree must not depend on
# where it was installed), and build a small project of its own against it:
# find_package(nbcguard CONFIG), nbcguard_add_cases() on the project's own
# case and threshold directories, then the project's own ctest runs the
# case. Checked:
#   - nothing installed outside the programs names this source or build tree;
#   - the installed driver finds its installed config with no option;
#   - the project's test is discovered and passes, its results.json is under
#     the project's build, judged by the project's threshold file (layered
#     over the shipped one for the same library) on the project's system:
#     the file also has a rule for another system whose limit any run
#     exceeds, so a system match that is ignored fails the test.
#   cmake -D BUILD=<build dir> -D SOURCE_DIR=<repo> -D WORK=<scratch> -D IMPL=<label> -P check_consumer.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../mpi/run_driver.cmake)
file(REMOVE_RECURSE "${WORK}")
set(staging "${WORK}/staging")
set(prefix "${WORK}/prefix")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${staging}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD} failed (${rc}):\n${out}${err}")
endif()
file(RENAME "${staging}" "${prefix}")

foreach(f bin/nbcguard libexec/nbcguard/nbcguard-harness libexec/nbcguard/nbcguard-compute
          lib/nbcguard/libnbcguard-reference.so share/nbcguard/nbcguard-config.json
          share/nbcguard/thresholds/${IMPL}.yaml lib/cmake/nbcguard/nbcguardConfig.cmake)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()
file(GLOB_RECURSE texts "${prefix}/share/*" "${prefix}/lib/cmake/*")
foreach(f IN LISTS texts)
  file(READ "${f}" text)
  foreach(tree "${SOURCE_DIR}" "${BUILD}" "${staging}")
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "installed ${f} names ${tree}: the installed tree must stand alone")
    endif()
  endforeach()
endforeach()
find_program(READELF readelf)
if(READELF)
  foreach(f libexec/nbcguard/nbcguard-harness libexec/nbcguard/nbcguard-compute bin/nbcguard)
    execute_process(COMMAND "${READELF}" -d "${prefix}/${f}" OUTPUT_VARIABLE dyn)
    string(FIND "${dyn}" "${BUILD}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "installed ${f} has an RPATH into the build tree:\n${dyn}")
    endif()
  endforeach()
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=NBCGUARD_CONFIG "${prefix}/bin/nbcguard" --version
                RESULT_VARIABLE rc OUTPUT_VARIABLE version ERROR_VARIABLE err)
string(FIND "${version}" "config: ${prefix}/share/nbcguard/nbcguard-config.json" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "the installed driver does not find its installed config (exit ${rc}):\n${version}${err}")
endif()

# The consumer project.
set(project "${WORK}/consumer")
file(MAKE_DIRECTORY "${project}/cases" "${project}/thresholds")
file(WRITE "${project}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)
project(consumer NONE)
enable_testing()
find_package(nbcguard 0.1 CONFIG REQUIRED)
nbcguard_add_cases(CASES cases THRESHOLDS thresholds SYSTEM consumer-ci LABELS consumer)
")
file(WRITE "${project}/cases/mine.yaml" "# the consumer's own case
name: mine
collective: iallreduce
nodes: [2]
deployment: [basic]
grid:
  comm: [1ms]
  comp: [1ms]
repetitions: 9
labels: [quick]
timeout: 240s
")
file(WRITE "${project}/thresholds/site.yaml" "# the consumer's limits for ${IMPL}, over the shipped ones
implementation: ${IMPL}
versions: \"*\"
rules:
  - name: consumer-basic
    source: the install test's plumbing, not a measurement; limits no run reaches
    match: {system: consumer-ci, deployment: basic}
    limits:
      r_overhead: {max: 50}
  - name: another-system
    source: the install test, a limit every run exceeds, for a system this run is not on
    match: {system: elsewhere}
    limits:
      r_overhead: {max: 0.001}
")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${project}" -B "${project}/build" "-DCMAKE_PREFIX_PATH=${prefix}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer project failed (${rc}):\n${out}${err}")
endif()
# The project's settings, not the caller's environment, name its system and config.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=NBCGUARD_SYSTEM --unset=NBCGUARD_CONFIG
                        "${CMAKE_CTEST_COMMAND}" --test-dir "${project}/build" -L consumer --no-tests=error
                        --output-on-failure
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer project's ctest failed (${rc}):\n${err}")
endif()
foreach(expected "${IMPL}.mine.n2.basic" "100% tests passed, 0 tests failed out of 1")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the consumer project's ctest does not say '${expected}'")
  endif()
endforeach()
set(results "${project}/build/nbcguard-results/mine/n2/basic/results.json")
if(NOT EXISTS "${results}")
  message(FATAL_ERROR "no ${results}: results go to the consumer's build")
endif()
file(READ "${results}" json)
string(JSON system GET "${json}" system)
string(JSON file GET "${json}" verdict threshold_file)
string(JSON pass GET "${json}" verdict pass)
if(NOT pass)  # ctest also says "passed" for a skipped or inconclusive test
  message(FATAL_ERROR "results.json's verdict is not a pass")
endif()
if(NOT system STREQUAL "consumer-ci")
  message(FATAL_ERROR "results.json records system '${system}', the project set consumer-ci")
endif()
if(NOT file STREQUAL "${project}/thresholds/site.yaml")
  message(FATAL_ERROR "judged by ${file}, not by the project's own thresholds/site.yaml")
endif()
message("consumer project: ${IMPL}.mine.n2.basic passed, judged by ${file} on system ${system}")
