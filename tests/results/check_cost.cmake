# nbcguard cost on one test with known figures: a results.json whose cost
# record and samples are set here, and a confirmation job beside it. The
# row must give the job's launch (harness job minus its phases), the timed
# samples of both jobs, the confirmation job (its total minus the first's)
# and the duty cycle (timed / the whole test).
#   cmake -DDRIVER=... -DFIXTURE=<results.json> -DOUT=<dir> -P check_cost.cmake
file(REMOVE_RECURSE "${OUT}")
file(READ "${FIXTURE}" doc)
string(JSON doc SET "${doc}" cost
       [=[{"harness_job": 8, "total": 10, "sync": 1, "calibration": 2, "measurement": 4, "mpi_impact_jobs": 1.5}]=])
# One point: 5 + 5 reference samples of 0.1 s, 5 overlap samples of 0.2 s: 2 s timed.
string(JSON doc SET "${doc}" samples 0 t_comm_ref "[0.1, 0.1, 0.1, 0.1, 0.1]")
string(JSON doc SET "${doc}" samples 0 t_comp_ref "[0.1, 0.1, 0.1, 0.1, 0.1]")
foreach(i RANGE 4)
  string(JSON doc SET "${doc}" samples 0 overlap ${i} 0 "0.2")
endforeach()
file(WRITE "${OUT}/t/results.json" "${doc}")

function(run_cost)
  execute_process(COMMAND "${DRIVER}" cost "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 30)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nbcguard cost: exit ${rc}\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# One job: total 10, launch 8-7 = 1, timed 2, impact 1.5, other 10-1-7-1.5 = 0.5, duty 20 %.
run_cost()
if(NOT out MATCHES "ibcast-fault n2 basic +10\\.0 +1\\.0 +1\\.0 +2\\.0 +4\\.0 +2\\.0 +1\\.5 +0\\.0 +0\\.5 +20 ")
  message(FATAL_ERROR "one job: wrong row (expected total 10, launch 1, timed 2, impact 1.5, other 0.5, duty 20 %):\n${out}")
endif()

# A confirmation job that ended 6 s later with the same samples: total 16,
# confirm 6, timed 4, duty 25 %.
string(JSON second SET "${doc}" cost total 16)
file(WRITE "${OUT}/t/confirm/confirmation.json" "${second}")
run_cost()
if(NOT out MATCHES "ibcast-fault n2 basic +16\\.0 +1\\.0 +1\\.0 +2\\.0 +4\\.0 +4\\.0 +1\\.5 +6\\.0 +0\\.5 +25 ")
  message(FATAL_ERROR "with a confirmation job: wrong row (expected total 16, timed 4, confirm 6, duty 25 %):\n${out}")
endif()
