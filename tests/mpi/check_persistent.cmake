# A case with persistent: true measures MPI_<Coll>_init + MPI_Start instead
# of the nonblocking call (docs/cases.md, "Persistent collectives"):
#  - the harness is told so (--persistent in the launch line), the init's
#    cost is reported apart (a line, and init_s > 0 on every valid point of
#    results.json), and the measurement is judged as any other;
#  - with libnbcguard-bugs.so's persistent-data-at-init (MPI_Bcast_init
#    keeps a copy of the root's data from the init), the run must end in a
#    conformance failure of "ibcast (persistent)": a harness that still
#    called MPI_Ibcast would never see the bug and exit 0.
set(cmd "${DRIVER}" run "${CASE}" --verbose --no-confirm --config "${CONFIG}")
execute_process(COMMAND ${cmd} --out "${OUT}/plain" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc MATCHES "^(0|1|5)$")
  message(FATAL_ERROR "expected a verdict (exit 0, 1 or 5), got ${rc}")
endif()
if(NOT err MATCHES "nbcguard-harness --mode overlap --collective ibcast [^\n]* --persistent")
  message(FATAL_ERROR "the launch line has no --persistent")
endif()
if(NOT out MATCHES "persistent: MPI_<Coll>_init at each point's size \\(slowest rank, median of 5 calls; not in t_comm or any ratio\\): 1ms x 2ms: [0-9.]+[num]?s;")
  message(FATAL_ERROR "no line with the init cost of the point")
endif()
file(READ "${OUT}/plain/persistent/n2/basic/results.json" json)
string(JSON valid GET "${json}" points 0 valid)
if(valid)
  string(JSON init GET "${json}" points 0 init_s)
  if(NOT init GREATER 0 OR NOT init LESS 1)
    message(FATAL_ERROR "points[0].init_s = ${init}, expected a time in (0, 1) s")
  endif()
endif()

execute_process(COMMAND ${cmd} --out "${OUT}/bug" --inject-bug persistent-data-at-init RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 4)
  message(FATAL_ERROR "--inject-bug persistent-data-at-init: expected exit 4 (conformance failure), got ${rc}")
endif()
if(NOT out MATCHES "CONFORMANCE FAILURE: ibcast \\(persistent\\) with count [0-9]+ \\([0-9]+ bytes per rank\\): rank 1: broadcast buffer element [0-9]+: expected")
  message(FATAL_ERROR "no conformance failure of the persistent ibcast on rank 1")
endif()
