# The driver's command line and `nbcguard check` on what is not a case
# file: each outcome's exit code and the words that say what is wrong. Every
# command runs with a time limit, so a read that blocks fails the test.
#   cmake -D DRIVER=<nbcguard> -D WORK=<scratch dir> -P check_cli.cmake

set(failures 0)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# Runs the driver with ARGN; the exit code must be `rc` and the output
# (stdout and stderr) must contain `text`.
function(expect rc text)
  execute_process(COMMAND "${DRIVER}" ${ARGN} RESULT_VARIABLE got OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 30)
  string(JOIN " " shown ${ARGN})
  if(NOT got STREQUAL "${rc}")
    message(SEND_ERROR "nbcguard ${shown}: exit ${got}, expected ${rc}:\n${out}${err}")
    set(failures 1 PARENT_SCOPE)
  endif()
  string(FIND "${out}${err}" "${text}" at)
  if(at EQUAL -1)
    message(SEND_ERROR "nbcguard ${shown}: the output does not say '${text}':\n${out}${err}")
    set(failures 1 PARENT_SCOPE)
  endif()
endfunction()

set(grid "nodes: 2\ngrid: {comm: [1ms], comp: [1ms]}\n")
file(WRITE "${WORK}/commented.yaml" "# the limits are in the threshold files' rules: section\nname: commented\ncollective: ibcast\n${grid}")
file(WRITE "${WORK}/neither.yaml" "title: x\n")
file(WRITE "${WORK}/one.yaml" "name: same\ncollective: ibcast\n${grid}")
file(WRITE "${WORK}/two.yaml" "name: same\ncollective: ibcast\n${grid}")
file(WRITE "${WORK}/huge.yaml"
     "name: huge\ncollective: ibcast\nnodes: 2\ngrid:\n  comm: [1ms]\n  comp: {from: 1e-200s, to: 1e200s, factor: 1.000000001}\n")
file(MAKE_DIRECTORY "${WORK}/dir.yaml")
execute_process(COMMAND mkfifo "${WORK}/fifo.yaml" RESULT_VARIABLE fifo_rc)

# Usage errors exit 2 and name what was not understood; --help exits 0.
expect(2 "frobnicate" frobnicate)
expect(2 "--bogus" run --bogus "${WORK}/one.yaml")
expect(2 "a command is required")
expect(0 "Usage" --help)
# --version: the version (the build's MPI library when its config is found).
expect(0 "nbcguard ${VERSION}" --version)
expect(0 "config: none found" --config "${WORK}/no-such-config.json" --version)
# run's output levels exclude each other.
expect(2 "excludes" run --quiet --verbose "${WORK}/one.yaml")
expect(2 "excludes" run --quiet --ctest "${WORK}/one.yaml")
# Nothing to read is a usage error, the same for every reading command.
file(MAKE_DIRECTORY "${WORK}/empty-run")
expect(2 "no readable results.json" envelope "${WORK}/empty-run")
expect(2 "no results.json" cost "${WORK}/empty-run")
expect(2 "no results.json" summary "${WORK}/empty-run")
expect(2 "nan" run --timeout nan "${WORK}/one.yaml")
expect(2 "at most 604800" run --timeout 1e300 "${WORK}/one.yaml")

# envelope --write-thresholds: a starting threshold file from three runs
# (the same fixture run three times) that `check` accepts; two runs are
# too few by default and nothing is written; a bad system name is refused.
foreach(i 1 2 3)
  file(COPY "${DATA}/results/openmpi/ibcast" DESTINATION "${WORK}/runs/r${i}")
endforeach()
expect(0 "wrote ${WORK}/t.yaml: implementation openmpi 4.1.4" envelope "${WORK}/runs/r1" "${WORK}/runs/r2"
       "${WORK}/runs/r3" --write-thresholds "${WORK}/t.yaml" --system lab-a)
expect(0 "t.yaml: ok (threshold file)" check "${WORK}/t.yaml")
file(READ "${WORK}/t.yaml" written)
# The fixture's r_overhead: largest CI lower bound 1.230, x 1.25 = 1.5375.
foreach(text "versions: \"==4.1.4\"" "match: {collective: ibcast, deployment: basic, nodes: 2, system: lab-a}"
        "3 runs, margin 0.25" "largest CI lower bound 1.230" "r_overhead: {max: 1.54}")
  string(FIND "${written}" "${text}" at)
  if(at EQUAL -1)
    message(SEND_ERROR "envelope --write-thresholds: the file does not say '${text}':\n${written}")
    set(failures 1)
  endif()
endforeach()
expect(2 "too few runs of ibcast basic n2 (2)" envelope "${WORK}/runs/r1" "${WORK}/runs/r2"
       --write-thresholds "${WORK}/t2.yaml")
expect(2 "too few runs of ibcast basic n2 (1)" envelope "${WORK}/runs" --write-thresholds "${WORK}/t2.yaml")
if(EXISTS "${WORK}/t2.yaml")
  message(SEND_ERROR "envelope --write-thresholds wrote a file from too few runs")
  set(failures 1)
endif()
expect(2 "a system name is 1-64 letters, digits" envelope "${WORK}/runs/r1" --write-thresholds "${WORK}/t3.yaml"
       --system "Lab A")

# check: the kind of file from its keys, not from its text.
expect(0 "commented.yaml: ok (case file)" check "${WORK}/commented.yaml")
expect(1 "neither a case file nor a threshold file" check "${WORK}/neither.yaml")
expect(1 "is a directory" check "${WORK}/dir.yaml")
if(fifo_rc EQUAL 0)
  expect(1 "is not a regular file" check "${WORK}/fifo.yaml")
endif()
expect(1 "is not a regular file" check /dev/zero)
expect(1 "at most 64 per axis" check "${WORK}/huge.yaml")
expect(1 "name: \"same\" is also the name of ${WORK}/one.yaml" check "${WORK}/one.yaml" "${WORK}/two.yaml")

# A malformed NBCGUARD_IMPACT_REUSE is a usage error naming what is allowed, before anything runs.
execute_process(COMMAND ${CMAKE_COMMAND} -E env NBCGUARD_IMPACT_REUSE=ten "${DRIVER}" run "${WORK}/one.yaml"
                RESULT_VARIABLE got OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
if(NOT got EQUAL 2 OR NOT "${out}${err}" MATCHES "NBCGUARD_IMPACT_REUSE is 'ten'; allowed: seconds from 0")
  message(SEND_ERROR "NBCGUARD_IMPACT_REUSE=ten: exit ${got}, expected 2 and what is allowed:\n${out}${err}")
  set(failures 1)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env NBCGUARD_EXIT_GRACE=0 "${DRIVER}" run "${WORK}/one.yaml"
                RESULT_VARIABLE got OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
if(NOT got EQUAL 2 OR NOT "${out}${err}" MATCHES "NBCGUARD_EXIT_GRACE is '0'; allowed: seconds from 1 to 3600")
  message(SEND_ERROR "NBCGUARD_EXIT_GRACE=0: exit ${got}, expected 2 and what is allowed:\n${out}${err}")
  set(failures 1)
endif()

if(failures)
  message(FATAL_ERROR "the command line or check misbehaved (above)")
endif()
