# Partitioned results ("kind": "partitioned", their own shape) beside the
# overlap fixtures: every command that reads results.json must handle them
# without crashing or mis-reporting. summary (text, markdown, html,
# openmetrics) shows their table, plot and compare skip them with a reason,
# envelope reports r_partitioned; the overlap tests read as before.
# -DDRIVER -DFIXTURES (overlap) -DPARTITIONED (partitioned fixtures) -DOUT
file(REMOVE_RECURSE "${OUT}")
file(COPY "${FIXTURES}/" DESTINATION "${OUT}/results")
file(COPY "${PARTITIONED}/" DESTINATION "${OUT}/results")

function(expect text what)
  string(FIND "${text}" "${what}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${what}' in:\n${text}")
  endif()
endfunction()

function(run_ok out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
  message("${text}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} exited ${rc}")
  endif()
  set(${out_var} "${text}${err}" PARENT_SCOPE)
endfunction()

run_ok(text "${DRIVER}" summary "${OUT}/results")
expect("${text}" "7 test(s): 3 passed, 4 failed, 0 inconclusive")  # the six overlap fixtures and the partitioned one
if(NOT text MATCHES "\npartitioned +2 +partitioned +MPICH Version: 4.0.2 +3/4 +- +- +- +- +FAIL +partition=1MiB order=left-right threads=1: r_partitioned")
  message(FATAL_ERROR "no overview row for the partitioned test (3 of 4 points valid, its first failure)")
endif()
expect("${text}" "partition  order       threads  send")
expect("${text}" "r_partitioned")
if(NOT text MATCHES "\n1MiB +left-right +1 +[0-9.]+[GMk]?B/s +[0-9.]+[GMk]?B/s +[0-9.]+[GMk]?B/s +[0-9.]+[GMk]?B/s +send +0\\.0182 \\[0\\.0131, 0\\.148\\] +fail")
  message(FATAL_ERROR "no partitioned row with four bandwidths, the best other and r_partitioned")
endif()
expect("${text}" "INVALID: MPI_Pready from 2 threads needs MPI_THREAD_MULTIPLE")
expect("${text}" "partitioned n2 partitioned: rule 'partitioned-large-quick' (thresholds/mpich.yaml:90) at partition=1MiB order=left-right threads=1: r_partitioned")
# The overlap fixtures read as without it.
expect("${text}" "reference-cpu-thief (REFERENCE cpu-thief)")
expect("${text}" "11/12")

run_ok(md "${DRIVER}" summary "${OUT}/results" --format markdown)
expect("${md}" "### partitioned n2 partitioned: partitioned communication")
expect("${md}" "| partition | order | threads | send | isend | persistent | partitioned | best other | r_partitioned | verdict |")

run_ok(om "${DRIVER}" summary "${OUT}/results" --format openmetrics)
expect("${om}" "nbcguard_mpich_verdict_pass{case=\"partitioned\",collective=\"\",nodes=\"2\",deployment=\"partitioned\"} 0\n")
expect("${om}" "nbcguard_mpich_r_partitioned{case=\"partitioned\",collective=\"\",nodes=\"2\",deployment=\"partitioned\",partition=\"1MiB\",order=\"left-right\",threads=\"1\"} ")
expect("${om}" "nbcguard_mpich_r_partitioned_lowest{case=\"partitioned\"")
expect("${om}" "nbcguard_mpich_r_overhead_worst{case=\"ialltoall\",collective=\"ialltoall\",nodes=\"4\",deployment=\"progress\"} 2.35\n")
if(om MATCHES "[Nn]a[Nn]")
  message(FATAL_ERROR "NaN in the metrics report")
endif()

run_ok(html "${DRIVER}" summary "${OUT}/results" --format html --output "${OUT}/index.html")
file(READ "${OUT}/index.html" page)
expect("${page}" "<th>r_partitioned</th>")
expect("${page}" "have no heat-maps")

# plot: the overlap fixtures are drawn, the partitioned one skipped with a reason, exit 0.
run_ok(plot "${DRIVER}" plot "${OUT}/results")
expect("${plot}" "partitioned/n2/partitioned/results.json: skipped: partitioned results (kind: partitioned) have no heat-maps")
if(EXISTS "${OUT}/results/mpich/partitioned/n2/partitioned/heatmap-r_overhead.png")
  message(FATAL_ERROR "plot drew a heat-map for partitioned results")
endif()

# compare: skipped with a reason, not "unreadable", and no regression.
run_ok(cmp "${DRIVER}" compare "${OUT}/results" "${OUT}/results")
expect("${cmp}" "skipped: ${OUT}/results/mpich/partitioned/n2/partitioned/results.json: partitioned results (kind: partitioned) are not compared")
if(cmp MATCHES "unreadable")
  message(FATAL_ERROR "compare calls the partitioned results unreadable")
endif()

# envelope: r_partitioned per partition size, with the smallest CI upper bound (for min limits).
run_ok(env "${DRIVER}" envelope "${OUT}/results")
expect("${env}" "mpich partitioned")
expect("${env}" "1MiB r_partitioned n=  1")
expect("${env}" "smallest CI upper bound")
expect("${env}" "invalid points: mpich partitioned 1MiB: 1")
