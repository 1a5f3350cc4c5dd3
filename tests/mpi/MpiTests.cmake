# MPI integration tests: real launcher, 2 ranks, this build's implementation.
set(_driver $<TARGET_FILE:nbcguard>)
set(_cfg "${CMAKE_BINARY_DIR}/nbcguard-config.json")
set(_impl "${NBCGUARD_MPI_IMPL_DETECTED}")
set(_out "${CMAKE_BINARY_DIR}/mpi-tests")

# One helper for every MPI test: serial (timing), 2 ranks unless RANKS
# says otherwise (label nN), labelled. SHARED: a test of the driver's own
# logic, whose outcome does not depend on the library: in the CI tier of
# the build NBCGUARD_CI_SHARED_TESTS names, else in the nightly tier
# (tests/CMakeLists.txt).
function(nbcguard_mpi_test name)
  cmake_parse_arguments(T "SHARED" "TIMEOUT;RANKS" "COMMAND" ${ARGN})
  if(NOT T_RANKS)
    set(T_RANKS 2)
  endif()
  set(_tier quick)
  if(T_SHARED)
    set(_tier ${_shared_mpi_tier})
  endif()
  add_test(NAME ${_impl}.mpi.${name} COMMAND ${T_COMMAND})
  set_tests_properties(${_impl}.mpi.${name} PROPERTIES
    LABELS "mpi;integration;${_impl};n${T_RANKS};${_tier}" RUN_SERIAL TRUE PROCESSORS ${T_RANKS} TIMEOUT ${T_TIMEOUT})
endfunction()

# Every registered collective returns the right data.
nbcguard_mpi_test(verify-collectives TIMEOUT 300
  COMMAND ${_driver} verify --nodes 2 --config ${_cfg} --out ${_out})

# Clock sync recovers a 50 ms offset and 100 ppm drift injected into rank 1.
# Without drift correction the error would reach 200 us within the 2 s probe
# window; without offset correction 50 ms. The bound leaves room for a noisy
# 2-core machine while catching either regression.
nbcguard_mpi_test(clock-sync-injected TIMEOUT 300
  COMMAND ${_driver} clock-check --nodes 2 --inject-offset 0.05 --inject-drift 1e-4 --wait 2
          --max-error-us 5 --config ${_cfg} --out ${_out})

# Tree synchronization on 4 ranks (2 stages; rank 3 is 2 hops from rank 0,
# through rank 1), every rank but 0 perturbed: offsets of +-50-87.5 ms with
# opposite signs between a rank and its server, drifts of +-100-175 ppm.
# The bound, 300 us on every probe of the 2 s window (extrapolated and
# interpolated), comes from the error budget on this 2-vCPU host: the two
# stage-1 pairs share the cores (with Open MPI's yielding waits and the
# machine's other load), their best round trips reach 20-30 us, each hop
# can be off by half of that and rank 3 has two hops (~30 us); its drift is
# fitted over the 1 s between the start calibrations, so at the end of the
# window that error is amplified about 3x (~100 us), and twice that is
# allowed for noise. Largest error seen in 20 runs (2026-11-23, load 2-6):
# 82 us (Open MPI, extrapolated), MPICH 40 us. A wrong composition is far
# beyond it: a server answering with its local clock instead of its
# estimate of rank 0's puts its client off by the server's own offset
# (rank 3 by rank 1's 50 ms: "clock error exceeds" when tried).
nbcguard_mpi_test(clock-sync-tree TIMEOUT 60 RANKS 4
  COMMAND ${_driver} clock-check --nodes 4 --clock-sync tree --inject-ranks all --inject-offset 0.05
          --inject-drift 1e-4 --wait 2 --max-error-us 300 --config ${_cfg} --out ${_out})

# de Supinski and Karonis's (HPDC 1999) independent check of the collective's time: the
# acknowledgement method (no global clock) must agree with the
# synchronized-clock time of the same MPI_Ibcast + MPI_Wait, with rank 1's
# clock 50 ms off and 100 ppm fast, so a broken offset or drift correction
# shows up as a disagreement. Sizes: where the broadcast takes 20 us to
# 0.4 ms here (below ~16 KiB both methods see MPICH's bimodal small-message
# latency, docs/validation.md).
# A disagreement beyond noise is measured again by later jobs while
# undecided (at most 3); still undecided, the check is INCONCLUSIVE
# ("bcast-check INCONCLUSIVE: ..."), reported as not run, never passed.
nbcguard_mpi_test(bcast-ack-agreement TIMEOUT 300
  COMMAND ${_driver} bcast-check --nodes 2 --sizes 256KiB,4MiB --inject-offset 0.05 --inject-drift 1e-4
          --config ${_cfg} --out ${_out})
set_property(TEST ${_impl}.mpi.bcast-ack-agreement PROPERTY SKIP_REGULAR_EXPRESSION "bcast-check INCONCLUSIVE")

# A disagreement beyond noise is measured again by a second job, which must
# see it too before the check fails (check_bcast_confirm.cmake).
nbcguard_mpi_test(bcast-ack-confirmation TIMEOUT 300
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/bcast-confirm
          -P ${CMAKE_CURRENT_LIST_DIR}/check_bcast_confirm.cmake)

# One small case end to end through the driver: all four ratios at every point.
nbcguard_mpi_test(end-to-end TIMEOUT 300
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/e2e
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/e2e.yaml -DIMPL=${_impl}
          -DPYTHON3=${NBCGUARD_PYTHON3} -DVALIDATE_RESULTS=${NBCGUARD_VALIDATE_RESULTS}
          -P ${CMAKE_CURRENT_LIST_DIR}/check_end_to_end.cmake)
# Refused in both jobs, a point is INCONCLUSIVE (the machine was disturbed
# twice): reported as skipped, not as passed.
set_property(TEST ${_impl}.mpi.end-to-end PROPERTY SKIP_REGULAR_EXPRESSION "end-to-end INCONCLUSIVE")

# The same case with --quiet: only outcome lines, results.json in full.
nbcguard_mpi_test(quiet-output SHARED TIMEOUT 120
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/quiet
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/e2e.yaml -P ${CMAKE_CURRENT_LIST_DIR}/check_quiet.cmake)

# A load started during the run (three busy processes on the two cores):
# every point the gates refuse is measured again; none is read as overlap
# (check_disturbed.cmake).
nbcguard_mpi_test(disturbed-run SHARED TIMEOUT 300
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/disturbed
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/e2e.yaml
          -P ${CMAKE_CURRENT_LIST_DIR}/check_disturbed.cmake)
set_property(TEST ${_impl}.mpi.disturbed-run PROPERTY SKIP_REGULAR_EXPRESSION "disturbed-run INCONCLUSIVE")

# MPI-4 partitioned communication (kind: partitioned) end to end: on MPICH
# 4.0 every point has four bandwidths and a finite r_partitioned, the data
# of every sample is verified and a flipped byte is caught; on Open MPI 4.1
# (no MPI-4 partitioned calls) the test must SKIP with the reason.
nbcguard_mpi_test(partitioned-end-to-end TIMEOUT 300
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/partitioned
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/partitioned.yaml -DIMPL=${_impl}
          -P ${CMAKE_CURRENT_LIST_DIR}/check_partitioned.cmake)
set_property(TEST ${_impl}.mpi.partitioned-end-to-end APPEND PROPERTY LABELS partitioned)

# Binding by nbcguard (docs/cases.md, "Binding"): each rank's computation
# on a cpu of its own, printed and recorded, and the r_mpi_impact jobs on
# the same cpus (check_binding.cmake).
nbcguard_mpi_test(binding-recorded TIMEOUT 120
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/binding
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/binding.yaml
          -DPYTHON3=${NBCGUARD_PYTHON3} -DVALIDATE_RESULTS=${NBCGUARD_VALIDATE_RESULTS}
          -P ${CMAKE_CURRENT_LIST_DIR}/check_binding.cmake)

# The stopping rule on the interval of the median (docs/method.md,
# "Repetitions: a stopping rule"): stops at min when the precision is met,
# runs to max when it is not (check_stopping.cmake).
nbcguard_mpi_test(stopping-rule SHARED TIMEOUT 180
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/stopping
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/stopping.yaml -P ${CMAKE_CURRENT_LIST_DIR}/check_stopping.cmake)

# A node whose ranks need more cores than it has: SKIP with the numbers by
# default; measured with oversubscribe: allow, every point INVALID
# (check_oversubscribe.cmake).
nbcguard_mpi_test(oversubscription TIMEOUT 150
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/oversubscription
          -P ${CMAKE_CURRENT_LIST_DIR}/check_oversubscribe.cmake)

# Application-side progression (poll, thread-bind, thread-numa): MPI_Test is
# really called during the overlap runs and threads sit where the placement
# policy says (check_strategies.cmake; a point refused in both jobs is
# INCONCLUSIVE).
nbcguard_mpi_test(strategies TIMEOUT 400
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/strategies
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/strategies.yaml -P ${CMAKE_CURRENT_LIST_DIR}/check_strategies.cmake)
set_property(TEST ${_impl}.mpi.strategies PROPERTY SKIP_REGULAR_EXPRESSION "strategies INCONCLUSIVE")

# The calibration cache: a second run starts each search at the size the
# first one found; a third, on a poisoned file, drops the sizes no search
# wrote and rewrites the file; a case sharing one computation target reuses
# that target's r_mpi_impact rounds only (check_cache.cmake).
nbcguard_mpi_test(calibration-cache SHARED TIMEOUT 300
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/calibration-cache
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/cache.yaml -DWIDER=${CMAKE_CURRENT_LIST_DIR}/data/cache-wider.yaml
          -P ${CMAKE_CURRENT_LIST_DIR}/check_cache.cmake)

# Nightly mode against a baseline whose results.json for the test is
# unreadable: named with its error, and the test fails
# (check_baseline_unreadable.cmake).
nbcguard_mpi_test(baseline-unreadable SHARED TIMEOUT 300
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/baseline-unreadable
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/e2e.yaml -DTHRESHOLDS=${CMAKE_CURRENT_LIST_DIR}/data/no-rule-thresholds
          -P ${CMAKE_CURRENT_LIST_DIR}/check_baseline_unreadable.cmake)
set_property(TEST ${_impl}.mpi.baseline-unreadable PROPERTY SKIP_REGULAR_EXPRESSION "baseline-unreadable INCONCLUSIVE")
# An output directory that fills up during the run: the write error is the
# reason and exit 2 (check_full_disk.cmake; root only, else skipped).
nbcguard_mpi_test(full-disk SHARED TIMEOUT 240
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/full-disk
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/e2e.yaml -P ${CMAKE_CURRENT_LIST_DIR}/check_full_disk.cmake)
set_property(TEST ${_impl}.mpi.full-disk PROPERTY SKIP_REGULAR_EXPRESSION "full-disk SKIPPED")
# A rank that dies, and a rank that hangs, at the second grid point: a clear
# failure within the timeout, completed points kept in results.json. The
# hang's 25 s timeout leaves the driver 15 s (10 s are kept for the report),
# several times what the first point takes.
nbcguard_mpi_test(failed-rank TIMEOUT 120
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/fault-exit
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/fault.yaml -DFAULT=exit -DTIMEOUT=90
          "-DEXPECT=harness failed" -P ${CMAKE_CURRENT_LIST_DIR}/check_fault.cmake)
nbcguard_mpi_test(hung-rank TIMEOUT 120
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/fault-hang
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/fault.yaml -DFAULT=hang -DTIMEOUT=25
          "-DEXPECT=did not finish within" -P ${CMAKE_CURRENT_LIST_DIR}/check_fault.cmake)
# A launch of the computation without MPI slower than its start margin is
# run again with 2 s, and r_mpi_impact still measured (check_late_launch.cmake).
nbcguard_mpi_test(late-launch TIMEOUT 240
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/late-launch
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/e2e.yaml -P ${CMAKE_CURRENT_LIST_DIR}/check_late_launch.cmake)
# A rank that hangs after the last record (in MPI_Finalize, say): killed
# after NBCGUARD_EXIT_GRACE, the complete run judged (check_exit_hang.cmake).
nbcguard_mpi_test(hang-at-exit TIMEOUT 120
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/hang-at-exit
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/fault.yaml -P ${CMAKE_CURRENT_LIST_DIR}/check_exit_hang.cmake)

# The driver stopped from outside while a rank hangs: kill -9 leaves no
# launcher or rank behind and the previous results aside, never current;
# SIGINT writes the completed point and why the run stopped
# (check_interrupt.sh).
nbcguard_mpi_test(interrupted-run TIMEOUT 200
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_interrupt.sh ${_driver} ${_cfg}
          ${CMAKE_CURRENT_LIST_DIR}/data/fault.yaml ${_out}/interrupted
          ${PROJECT_SOURCE_DIR}/tests/data/results/openmpi/ibcast/n2/basic/results.json)

# The conformance check itself: with one delivered element flipped on every
# rank, verification must name the collective and the count (the first one
# checked is ibcast with count 1).
nbcguard_mpi_test(verify-detects-corruption TIMEOUT 120
  COMMAND ${_driver} verify --nodes 2 --inject-fault corrupt --config ${_cfg} --out ${_out}/corrupt)
set_tests_properties(${_impl}.mpi.verify-detects-corruption PROPERTIES
  PASS_REGULAR_EXPRESSION "CONFORMANCE FAILURE: ibcast count 1: rank [0-9]+: broadcast buffer element 0: expected")
# A call that completes without delivering: no call after the first
# repetition, on every rank. Fill keeps a buffer that holds the previous
# repetition's checked values instead of resetting it to -1, so rank 1 must
# find repetition 0's value (Pattern(0, 0, 0) = 0) where repetition 1's (17)
# belongs: the kept buffer, and the check that still catches it.
nbcguard_mpi_test(verify-detects-stale-data TIMEOUT 120
  COMMAND ${_driver} verify --nodes 2 --inject-fault stale --config ${_cfg} --out ${_out}/stale)
set_tests_properties(${_impl}.mpi.verify-detects-stale-data PROPERTIES
  PASS_REGULAR_EXPRESSION "CONFORMANCE FAILURE: ibcast count 1: rank 1: broadcast buffer element 0: expected 17, got 0")
# No call at all: a buffer just allocated holds zeros, and repetition 0's
# value at element 0 is 0, so only the reset to -1 that Fill does when it
# knows nothing of the buffer catches it.
nbcguard_mpi_test(verify-detects-unwritten-data TIMEOUT 120
  COMMAND ${_driver} verify --nodes 2 --inject-fault unwritten --config ${_cfg} --out ${_out}/unwritten)
set_tests_properties(${_impl}.mpi.verify-detects-unwritten-data PROPERTIES
  PASS_REGULAR_EXPRESSION "CONFORMANCE FAILURE: ibcast count 1: rank 1: broadcast buffer element 0: expected 0, got -1")

# A limit exceeded beyond noise in one job is measured again by a second,
# independent job before it fails the test; --no-confirm judges on one job.
nbcguard_mpi_test(confirm-failure SHARED TIMEOUT 300
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/confirm -DIMPL=${_impl}
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/confirm.yaml
          -DTHRESHOLDS=${CMAKE_CURRENT_LIST_DIR}/data/confirm-thresholds
          -P ${CMAKE_CURRENT_LIST_DIR}/check_confirm.cmake)

# A rank of the r_mpi_impact job falling behind twice (a busy machine,
# --inject-fault impact-late) refuses the points r_mpi_impact judges; the
# second job measures them; never a harness failure.
nbcguard_mpi_test(impact-disturbed SHARED TIMEOUT 120
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/impact-disturbed
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/impact-disturbed.yaml
          -DTHRESHOLDS=${CMAKE_CURRENT_LIST_DIR}/data/impact-thresholds
          -P ${CMAKE_CURRENT_LIST_DIR}/check_impact_disturbed.cmake)
set_property(TEST ${_impl}.mpi.impact-disturbed PROPERTY SKIP_REGULAR_EXPRESSION "impact-disturbed INCONCLUSIVE")

# A persistent collective measured by the overlap method: MPI_Bcast_init
# once per size (cost reported apart), MPI_Start per sample; an injected
# bug of MPI_Bcast_init is caught (check_persistent.cmake).
nbcguard_mpi_test(persistent-end-to-end TIMEOUT 300
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/persistent
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/persistent.yaml
          -P ${CMAKE_CURRENT_LIST_DIR}/check_persistent.cmake)
set_property(TEST ${_impl}.mpi.persistent-end-to-end APPEND PROPERTY LABELS persistent)

# The root of the rooted collectives (case field root; verify --root):
# every collective verified with the last rank as root; and a measured
# broadcast from root: last, with an injected bug that takes the root's
# data from rank 0 whatever the root, ends in a conformance failure (a
# harness that ignored the root would measure from rank 0 and never see it).
nbcguard_mpi_test(verify-root-last TIMEOUT 300
  COMMAND ${_driver} verify --nodes 2 --root last --config ${_cfg} --out ${_out}/root-last)
nbcguard_mpi_test(root-injected-bug TIMEOUT 200
  COMMAND ${_driver} run ${CMAKE_CURRENT_LIST_DIR}/data/root-last.yaml --no-confirm --inject-bug bcast-root-zero
          --config ${_cfg} --out ${_out}/root-bug)
set_tests_properties(${_impl}.mpi.root-injected-bug PROPERTIES
  PASS_REGULAR_EXPRESSION "CONFORMANCE FAILURE: ibcast with count [0-9]+ \\([0-9]+ bytes per rank\\): rank 0: broadcast buffer element [0-9]+: expected")

# The communicator a case names (case field communicator): every
# collective verified on the communicator with the ranks reversed; and a
# gather to root 1 of it measured with an injected bug that reads the root
# as a rank of MPI_COMM_WORLD (world rank 1 is rank 0 there): a conformance
# failure at the root (world rank 0, as failures name ranks), which a
# harness that ran on the world communicator never sees.
nbcguard_mpi_test(verify-reversed-communicator TIMEOUT 300
  COMMAND ${_driver} verify --nodes 2 --communicator reversed --config ${_cfg} --out ${_out}/reversed)
nbcguard_mpi_test(communicator-injected-bug TIMEOUT 200
  COMMAND ${_driver} run ${CMAKE_CURRENT_LIST_DIR}/data/reversed-gather.yaml --no-confirm
          --inject-bug gather-root-world --config ${_cfg} --out ${_out}/reversed-bug)
set_tests_properties(${_impl}.mpi.communicator-injected-bug PROPERTIES
  PASS_REGULAR_EXPRESSION "CONFORMANCE FAILURE: igather \\(communicator reversed\\) with count [0-9]+ \\([0-9]+ bytes per rank\\): rank 0: receive buffer element [0-9]+: expected")

# A regression against the baseline is measured again by a second job
# before it fails the test; --no-confirm judges on one job.
nbcguard_mpi_test(baseline-confirm SHARED TIMEOUT 400
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/baseline-confirm
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/compare/reference.yaml
          -DTHRESHOLDS=${CMAKE_CURRENT_LIST_DIR}/data/baseline-confirm-thresholds
          -P ${CMAKE_CURRENT_LIST_DIR}/check_baseline_confirm.cmake)
set_property(TEST ${_impl}.mpi.baseline-confirm APPEND PROPERTY LABELS compare)
set_property(TEST ${_impl}.mpi.baseline-confirm PROPERTY SKIP_REGULAR_EXPRESSION "baseline-confirm INCONCLUSIVE")

# No threshold file for the running library is an error that says so,
# never a pass. Run with pipes and without --ctest, as a script would: no
# progress line (not a terminal), no CTest measurements and no launch
# command lines.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/no-thresholds)
nbcguard_mpi_test(missing-thresholds TIMEOUT 120
  COMMAND ${_driver} run ${CMAKE_CURRENT_LIST_DIR}/data/e2e.yaml --thresholds ${CMAKE_CURRENT_BINARY_DIR}/no-thresholds
          --config ${_cfg} --out ${_out}/no-thresholds)
set_tests_properties(${_impl}.mpi.missing-thresholds PROPERTIES
  PASS_REGULAR_EXPRESSION "FAIL e2e n2 basic: no threshold file in .* matches the running library"
  FAIL_REGULAR_EXPRESSION "verdict: PASS;grid point [0-9]+/[0-9]+|calibrating computation;<DartMeasurement;e2e n2 basic: launcher ")

# Ground truth: reference behaviours with known answers, loaded into the
# ranks by the driver (libnbcguard-reference, PMPI), checked point by point
# against the expectations written in reference_check.cc. Breaking the
# method makes them fail: r_comm as the largest per-rank MPI time fails
# background and deferred; the collective's time as an average over ranks
# instead of first start to last end fails late-exit; a CPU overhead
# measurement that cannot see a CPU left free fails sleeping-wait (the
# collective's MPI_Wait sleeps: cpu_busy_nbc ~0 where polling reads 1).
# Label reference
# selects them alone. All but passive-impact are part of the CI tier (label
# quick, like every MPI test here but the SHARED ones outside their one
# build). passive-impact is nightly: its answer is a comparison of jobs
# with and without MPI, seconds apart, and on these VMs a vCPU's speed
# changes 1.7-2x for seconds at a time, so 9 rounds'
# ratios for an expected 2 spread 1.16-2.12 (MPICH, 2026-11-22) and the
# check stayed inconclusive twice in a row; a clean-clone CI run failed on
# it as well. A CI verdict must not hang on that; the nightly run keeps it
# (ctest -L reference runs all seven) and shows when the machine allows it.
foreach(_behaviour background deferred cpu-thief late-rank late-exit passive-impact sleeping-wait)
  nbcguard_mpi_test(reference-${_behaviour} TIMEOUT 600
    COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/reference-${_behaviour}
            -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/reference/${_behaviour}.yaml
            -DCHECKER=$<TARGET_FILE:nbcguard-reference-check>
            -P ${CMAKE_CURRENT_LIST_DIR}/check_reference.cmake)
  set_property(TEST ${_impl}.mpi.reference-${_behaviour} APPEND PROPERTY LABELS reference)
  set_property(TEST ${_impl}.mpi.reference-${_behaviour} PROPERTY SKIP_REGULAR_EXPRESSION
               "reference-${_behaviour} INCONCLUSIVE")
endforeach()
set_property(TEST ${_impl}.mpi.reference-passive-impact PROPERTY LABELS
  "mpi;integration;${_impl};n2;nightly;reference")

# Injected imbalance: one rank computes 1.7x as long (reference behaviour
# slow-rank, the library's own progression); diagnosed rank-imbalance, never
# overlap (docs/method.md, "Rank imbalance").
nbcguard_mpi_test(imbalance TIMEOUT 300
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/imbalance
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/imbalance/slow-rank.yaml
          -P ${CMAKE_CURRENT_LIST_DIR}/check_imbalance.cmake)
set_property(TEST ${_impl}.mpi.imbalance PROPERTY SKIP_REGULAR_EXPRESSION "imbalance INCONCLUSIVE")

# nbcguard compare end to end on reference behaviours: background against
# background is no regression; background against deferred regresses
# r_overhead and r_comm at every point (and is refused without
# --ignore-reference); background at a modelled 50MB/s against 10MB/s is a
# collective-slower regression at every point. Four short runs of a 2-point case.
# SHARED: it tests the comparison, whose outcome on known answers does not
# depend on the library (each library's reference-<behaviour> tests above
# check that its runs deliver those answers).
nbcguard_mpi_test(compare-reference SHARED TIMEOUT 600
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_driver} -DCONFIG=${_cfg} -DOUT=${_out}/compare -DIMPL=${_impl}
          -DCASE=${CMAKE_CURRENT_LIST_DIR}/data/compare/reference.yaml
          -DCASE_SLOW=${CMAKE_CURRENT_LIST_DIR}/data/compare/reference-slow.yaml
          -DCHECKER=$<TARGET_FILE:nbcguard-reference-check>
          -P ${CMAKE_CURRENT_LIST_DIR}/check_compare.cmake)
set_property(TEST ${_impl}.mpi.compare-reference APPEND PROPERTY LABELS compare)
set_property(TEST ${_impl}.mpi.compare-reference PROPERTY SKIP_REGULAR_EXPRESSION "compare-reference INCONCLUSIVE")
