# `nbcguard run --out DIR` where DIR cannot be created (here: under a
# regular file, which fails for root too; a read-only or full file system
# fails the same way): an error naming the directory and the reason, exit 2,
# before any measurement; no results announced, no internal error.
# Arguments: DRIVER, CONFIG, CASE, OUT.
file(REMOVE_RECURSE "${OUT}")
file(WRITE "${OUT}/plain" "a file, not a directory\n")
execute_process(COMMAND "${DRIVER}" run "${CASE}" --config "${CONFIG}" --out "${OUT}/plain/results"
                        --calibration-cache off --no-confirm
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
message("nbcguard run --out ${OUT}/plain/results: exit ${rc}\n${out}${err}")
string(FIND "${out}${err}" "error: cannot create the output directory ${OUT}/plain/results/" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the run does not name the output directory it cannot create")
endif()
if(NOT "${out}${err}" MATCHES "Not a directory")
  message(FATAL_ERROR "the run does not say why the output directory cannot be created")
endif()
if("${out}${err}" MATCHES "internal error|results: ")
  message(FATAL_ERROR "an internal error, or results announced that were never written")
endif()
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "expected exit 2 (the output cannot be written), got ${rc}")
endif()
