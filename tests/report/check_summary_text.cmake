# nbcguard summary --format text and markdown on a copy of the fixtures.
file(REMOVE_RECURSE "${OUT}")
file(COPY "${FIXTURES}/" DESTINATION "${OUT}/results")

function(expect text what)
  string(FIND "${text}" "${what}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${what}' in:\n${text}")
  endif()
endfunction()

# A seventh test, INCONCLUSIVE: the passing ibcast fixture as a run whose
# only reason not to pass is a point refused in both jobs (rank imbalance),
# and one point the first job refused that a second job measured. Neither a
# pass nor a failure: counted, shown and coloured on its own.
file(READ "${FIXTURES}/openmpi/ibcast/n2/basic/results.json" undecided)
string(JSON undecided SET "${undecided}" case name "\"ibcast-undecided\"")
string(JSON undecided SET "${undecided}" verdict pass "false")
string(JSON undecided SET "${undecided}" verdict inconclusive "true")
string(JSON undecided SET "${undecided}" verdict summary
       "\"INCONCLUSIVE: 1 point(s) refused (a disturbed machine or ranks computing unequally), no limit exceeded\"")
string(JSON undecided SET "${undecided}" verdict invalid
       "[\"comm=500us comp=2ms: INVALID (rank imbalance: compute 1.31x apart) -> the second job's measurement was refused too\"]")
string(JSON undecided SET "${undecided}" verdict measured_again_points "[[0.002, 0.002]]")
string(JSON undecided SET "${undecided}" points 1 valid "false")
string(JSON undecided SET "${undecided}" points 1 invalid_reason "\"rank imbalance: compute 1.31x apart\"")
file(WRITE "${OUT}/results/openmpi/ibcast-undecided/n2/basic/results.json" "${undecided}")
# An eighth, failed on a regression against the baseline that a second job
# confirmed, though its thresholds passed: FAIL, the regression its reason.
file(READ "${FIXTURES}/openmpi/ibcast/n2/basic/results.json" regressed)
string(JSON regressed SET "${regressed}" case name "\"ibcast-regressed\"")
string(JSON regressed SET "${regressed}" baseline
       "{\"dir\": \"/nightly/base\", \"regressions\": [\"REGRESSION openmpi.ibcast.n2.basic 2ms x 2ms r_overhead: baseline 0.10 [0.05, 0.12] -> new 0.95 [0.90, 1.00]\"], \"not_confirmed\": [], \"undecided\": [], \"confirmed_by_second_job\": true}")
file(WRITE "${OUT}/results/openmpi/ibcast-regressed/n2/basic/results.json" "${regressed}")

execute_process(COMMAND "${DRIVER}" summary "${OUT}/results" RESULT_VARIABLE rc OUTPUT_VARIABLE text)
message("${text}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nbcguard summary exited ${rc}")
endif()
expect("${text}" "8 test(s): 3 passed, 4 failed, 1 inconclusive")
if(NOT text MATCHES "\n *ibcast-regressed +2 +basic +[^\n]* FAIL +against the baseline: REGRESSION openmpi.ibcast.n2.basic")
  message(FATAL_ERROR "no FAIL overview row for ibcast-regressed, whose thresholds passed, naming its regression")
endif()
if(NOT text MATCHES "\n *ibcast-undecided +2 +basic +[^\n]* 3/4 \\(1 again in 2nd job\\) [^\n]* INCONCLUSIVE +comm=500us comp=2ms: INVALID \\(rank imbalance")
  message(FATAL_ERROR "no INCONCLUSIVE overview row for ibcast-undecided with its second job's point and refused point")
endif()
expect("${text}" "INCONCLUSIVE (refused points, a limit exceeded in one job only, or a regression left undecided; not a pass):\n  ibcast-undecided n2 basic: comm=500us comp=2ms")
expect("${text}" "reference-cpu-thief (REFERENCE cpu-thief)")
# First line of the multi-line MPICH version only.
expect("${text}" "MPICH Version: 4.0.2  ")
expect("${text}" "11/12")
expect("${text}" "0/2")
expect("${text}" "2.76")
expect("${text}" "r_mpi_impact: a rank started its computation with MPI idle late")
# The largest CPU-busy fractions (synthetic fixture); "-" for results
# written before they were measured.
expect("${text}" "1.95 / 1.94")
# The collective alone at the largest communication target (synthetic
# fixture: 32ms); "-" for results written before it was measured.
expect("${text}" "1.95 / 1.94                  102MB in 32ms: 3.20GB/s          FAIL")

execute_process(COMMAND "${DRIVER}" summary "${OUT}/results" --format markdown --output "${OUT}/summary.md"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nbcguard summary --format markdown exited ${rc}")
endif()
file(READ "${OUT}/summary.md" md)
message("${md}")
expect("${md}" "| case | ranks | deployment | library | points | worst r_overhead | max r_mpi_impact | max cpu_busy nbc / blocking | collective alone (largest comm) | verdict | first failure |")
expect("${md}" "| 1.95 / 1.94 | 102MB in 32ms: 3.20GB/s | **FAIL** |")
expect("${md}" "| 1.95 / 1.94 |")
expect("${md}" "| - | - | **FAIL** |")
expect("${md}" "| --- | ---: |")
expect("${md}" "**FAIL**")
expect("${md}" "### Failures")
expect("${md}" "| **INCONCLUSIVE** |")
expect("${md}" "### INCONCLUSIVE (refused points, a limit exceeded in one job only, or a regression left undecided; not a pass)\n\n- **ibcast-undecided n2 basic**: comm=500us comp=2ms")
if(md MATCHES "### Failures\n[^#]*ibcast-undecided")
  message(FATAL_ERROR "the INCONCLUSIVE test is listed among the failures")
endif()
# A '<' from a message must not open an HTML tag in a merge-request comment.
expect("${md}" "\\<shared cores>")

# The metrics report of the same run: OpenMetrics text, the implementation in
# every metric's name, one family per name, ended by # EOF.
execute_process(COMMAND "${DRIVER}" summary "${OUT}/results" --format openmetrics --output "${OUT}/metrics.txt"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nbcguard summary --format openmetrics exited ${rc}")
endif()
file(READ "${OUT}/metrics.txt" om)
expect("${om}" "# TYPE nbcguard_mpich_verdict_pass gauge\n")
expect("${om}" "# TYPE nbcguard_openmpi_verdict_pass gauge\n")
expect("${om}" "nbcguard_openmpi_verdict_inconclusive{case=\"ibcast-undecided\",collective=\"ibcast\",nodes=\"2\",deployment=\"basic\"} 1\n")
expect("${om}" "nbcguard_openmpi_verdict_inconclusive{case=\"ibcast\",collective=\"ibcast\",nodes=\"2\",deployment=\"basic\"} 0\n")
# 2.35 is the worst median inside the checked diagonal band; 3.1 lies outside it.
expect("${om}" "nbcguard_mpich_r_overhead_worst{case=\"ialltoall\",collective=\"ialltoall\",nodes=\"4\",deployment=\"progress\"} 2.35\n")
# CPU-busy fractions once per communication row (comm label only).
expect("${om}" "nbcguard_mpich_cpu_busy_nbc{case=\"ialltoall\",collective=\"ialltoall\",nodes=\"4\",deployment=\"progress\",comm=\"32ms\"} 1.95\n")
# The collective alone per point, with the point's labels.
expect("${om}" "# TYPE nbcguard_mpich_collective_bandwidth_bytes_per_second gauge\n")
expect("${om}" "nbcguard_mpich_collective_bandwidth_bytes_per_second{case=\"ialltoall\",collective=\"ialltoall\",nodes=\"4\",deployment=\"progress\",comm=\"32ms\",comp=\"500us\"} 3.2e+09\n")
expect("${om}" "nbcguard_mpich_collective_time_seconds{case=\"ialltoall\",collective=\"ialltoall\",nodes=\"4\",deployment=\"progress\",comm=\"32ms\",comp=\"8ms\"} 0.032\n")
if(NOT om MATCHES "# EOF\n$")
  message(FATAL_ERROR "the metrics report does not end with # EOF")
endif()
if(om MATCHES "[Nn]a[Nn]")
  message(FATAL_ERROR "NaN in the metrics report")
endif()

# The same run for scripts: JSON with the counts of the text line and one
# object per test carrying its status, failures and figures.
execute_process(COMMAND "${DRIVER}" summary "${OUT}/results" --format json RESULT_VARIABLE rc OUTPUT_VARIABLE js)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nbcguard summary --format json exited ${rc}")
endif()
string(JSON schema GET "${js}" schema)
string(JSON tests GET "${js}" counts tests)
string(JSON passed GET "${js}" counts passed)
string(JSON failed GET "${js}" counts failed)
string(JSON undecided_count GET "${js}" counts inconclusive)
string(JSON n LENGTH "${js}" tests)
if(NOT schema STREQUAL "nbcguard-summary/1" OR NOT tests EQUAL 8 OR NOT passed EQUAL 3 OR NOT failed EQUAL 4
   OR NOT undecided_count EQUAL 1 OR NOT n EQUAL 8)
  message(FATAL_ERROR "summary --format json: schema ${schema}, counts ${tests}/${passed}/${failed}/${undecided_count}, "
                      "${n} tests:\n${js}")
endif()
set(found_worst FALSE)
set(failures_listed 0)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON status GET "${js}" tests ${i} status)
  string(JSON pass GET "${js}" tests ${i} pass)
  string(JSON nfail LENGTH "${js}" tests ${i} failures)
  if(pass AND NOT status STREQUAL "PASS")
    message(FATAL_ERROR "summary --format json: test ${i} passes with status ${status}")
  endif()
  string(JSON inconclusive GET "${js}" tests ${i} inconclusive)
  if(inconclusive AND (pass OR NOT status STREQUAL "INCONCLUSIVE" OR nfail EQUAL 0))
    message(FATAL_ERROR "summary --format json: test ${i} is inconclusive with status ${status}, pass ${pass}, "
                        "${nfail} reason(s)")
  endif()
  if(NOT pass AND NOT inconclusive AND nfail GREATER 0)
    math(EXPR failures_listed "${failures_listed} + 1")
  endif()
  string(JSON kind GET "${js}" tests ${i} kind)
  if(kind STREQUAL "overlap")
    string(JSON worst GET "${js}" tests ${i} worst_r_overhead)
    if(worst GREATER 3.099 AND worst LESS 3.101)
      set(found_worst TRUE)
    endif()
  endif()
endforeach()
if(NOT found_worst OR NOT failures_listed EQUAL 4)
  message(FATAL_ERROR "summary --format json: worst r_overhead 3.1 (the ialltoall fixture, as the text table) found: ${found_worst}, "
                      "failed tests with their failures: ${failures_listed} (want 4):\n${js}")
endif()
