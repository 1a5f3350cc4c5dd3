# Included by the launcher tests' result checks (slurm, netns): reads
# ${RESULTS} into `json` and `summary`, and stops with the verdict unless the
# run passed, or (with -DINCONCLUSIVE=1: the run exited 5 three times) unless
# its verdict is INCONCLUSIVE with no limit exceeded: the launch is still
# checked, the overlap is undecided. Then `launcher` and `cmd` hold
# results.json's launch record, which must be there.
file(READ "${RESULTS}" json)
string(JSON pass GET "${json}" verdict pass)
string(JSON summary GET "${json}" verdict summary)
string(JSON undecided ERROR_VARIABLE e GET "${json}" verdict inconclusive)
if(INCONCLUSIVE)
  if(pass OR NOT undecided)
    message(FATAL_ERROR "${RESULTS}: the run exited 5 but its verdict is not INCONCLUSIVE: ${summary}")
  endif()
elseif(NOT pass)
  message(FATAL_ERROR "${RESULTS}: verdict is not PASS: ${summary}")
endif()
string(JSON type ERROR_VARIABLE e TYPE "${json}" launch)
if(NOT type STREQUAL "OBJECT")
  message(FATAL_ERROR "${RESULTS}: no launch record (launcher, executable, command)")
endif()
string(JSON launcher GET "${json}" launch launcher)
string(JSON cmd GET "${json}" launch command)
