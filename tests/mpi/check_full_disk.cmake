# A run whose output directory fills up (a tmpfs of 8 KiB: the raw log
# does not fit): the write error is the reason, said once, exit 2; no
# results announced that were not written, no empty file left behind.
# Needs root to mount the tmpfs (CI runs as root); otherwise prints
# "full-disk SKIPPED" (the test's SKIP_REGULAR_EXPRESSION).
# Arguments: DRIVER, CONFIG, OUT, CASE.
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT uid STREQUAL "0")
  message("full-disk SKIPPED: mounting a small tmpfs needs root")
  return()
endif()
set(fs "${OUT}/fs")
execute_process(COMMAND umount "${fs}" OUTPUT_QUIET ERROR_QUIET)  # left by an interrupted run
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${fs}")
execute_process(COMMAND mount -t tmpfs -o size=8k tmpfs "${fs}" RESULT_VARIABLE mrc ERROR_VARIABLE merr)
if(NOT mrc EQUAL 0)
  message("full-disk SKIPPED: cannot mount a tmpfs: ${merr}")
  return()
endif()
execute_process(COMMAND "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${fs}/results" --no-confirm
                        --calibration-cache off
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 200)
file(GLOB_RECURSE files "${fs}/*")
set(empty "")
foreach(f IN LISTS files)
  file(SIZE "${f}" size)
  if(size EQUAL 0)
    list(APPEND empty "${f}")
  endif()
endforeach()
execute_process(COMMAND umount "${fs}")
message("nbcguard run --out ${fs}/results: exit ${rc}\n${out}${err}")
if(NOT "${out}" MATCHES "FAIL [^\n]*: cannot write [^\n]*: No space left on device")
  message(FATAL_ERROR "the run's failure is not blamed on the full file system")
endif()
if("${out}" MATCHES "results: ")
  message(FATAL_ERROR "results announced that were not written")
endif()
if(empty)
  message(FATAL_ERROR "empty files left behind: ${empty}")
endif()
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "expected exit 2 (the output cannot be written), got ${rc}")
endif()
