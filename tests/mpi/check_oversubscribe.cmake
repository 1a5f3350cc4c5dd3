# A case that oversubscribes any machine: 2 ranks, each with as many
# threads as the machine has logical cpus. By default (oversubscribe:
# refuse) the test SKIPs (exit 77) with the numbers and writes no results;
# with oversubscribe: allow it runs, warns, records oversubscribed: true
# and every point is INVALID with the reason (exit 1: no verdict counts
# it), and no second job is started to confirm it.
# -DDRIVER -DCONFIG -DOUT
cmake_host_system_information(RESULT ncpu QUERY NUMBER_OF_LOGICAL_CORES)
file(REMOVE_RECURSE "${OUT}")
# Runs the case with oversubscribe: `policy`; fails unless the driver exits with `expect`.
function(run_with policy expect why)
  file(WRITE "${OUT}/oversubscribe-${policy}.yaml"
       "name: oversubscribe-${policy}\ncollective: ibcast\nnodes: [2]\nthreads: ${ncpu}\n"
       "grid: {comm: [1ms], comp: [1ms]}\nrepetitions: 3\nlabels: [quick]\ntimeout: 90s\n"
       "oversubscribe: ${policy}\n")
  execute_process(COMMAND "${DRIVER}" run "${OUT}/oversubscribe-${policy}.yaml" --config "${CONFIG}" --out "${OUT}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL expect)
    message(FATAL_ERROR "oversubscribe: ${policy}: expected ${why} (exit ${expect}), got exit ${rc}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run_with(refuse 77 "SKIP")
set(numbers "oversubscribed: 2 ranks x ${ncpu} thread\\(s\\) on this node's [0-9]+ cores \\([^\n]*\\)")
if(NOT out MATCHES "SKIP oversubscribe-refuse n2 basic: ${numbers}[^\n]*'oversubscribe: allow'")
  message(FATAL_ERROR "the SKIP line does not give the numbers and the way to measure anyway")
endif()
if(EXISTS "${OUT}/oversubscribe-refuse/n2/basic/results.json")
  message(FATAL_ERROR "a skipped test wrote results.json")
endif()

run_with(allow 1 "FAIL, every point INVALID")
if(NOT out MATCHES "\nWARNING: ${numbers}; measured anyway \\(oversubscribe: allow\\): every point INVALID\n")
  message(FATAL_ERROR "no WARNING line naming the numbers")
endif()
if(out MATCHES "\nconfirmation:")
  message(FATAL_ERROR "a second job was started to confirm an oversubscribed run")
endif()
set(file "${OUT}/oversubscribe-allow/n2/basic/results.json")
file(READ "${file}" json)
string(JSON over GET "${json}" binding oversubscribed)
string(JSON why GET "${json}" binding oversubscription)
if(NOT over OR NOT why MATCHES "^${numbers}$")
  message(FATAL_ERROR "${file}: binding.oversubscribed '${over}', oversubscription '${why}'")
endif()
string(JSON n LENGTH "${json}" points)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON valid GET "${json}" points ${i} valid)
  string(JSON reason GET "${json}" points ${i} invalid_reason)
  if(valid OR NOT reason MATCHES "^the ratios compare processes that share cores \\(${numbers}, oversubscribe: allow\\)$")
    message(FATAL_ERROR "${file}: point ${i} valid '${valid}', reason '${reason}'")
  endif()
endforeach()
string(JSON summary GET "${json}" verdict summary)
message(STATUS "oversubscribed: skipped by default; with allow measured, ${n} point(s) INVALID; verdict: ${summary}")
