# The conformance tier (docs/conformance.md): one test per collective or
# semantics check, on 4 ranks (a non-zero root other than the last, a
# reordered split and the topologies need 3 or more). The quick tier is in
# the CI tier (label quick); the full tier (every variant persistent too,
# more sizes, roots, datatypes and operations, counts past 2^31) runs
# nightly. Known failures of a library come from its threshold file.
set(_driver $<TARGET_FILE:nbcguard>)
set(_cfg "${CMAKE_BINARY_DIR}/nbcguard-config.json")
set(_impl "${NBCGUARD_MPI_IMPL_DETECTED}")
# The checks' results go under the build's results directory, where
# `nbcguard summary` makes the conformance table of them; the injected
# bugs' results stay apart.
set(_out "${CMAKE_BINARY_DIR}/results/conformance-tests")
set(_bugs_out "${CMAKE_BINARY_DIR}/conformance-bugs")

set(_checks
  ibcast ireduce iallreduce iallgather iallgatherv ialltoall ialltoallv ialltoallw
  igather igatherv iscatter iscatterv ireduce_scatter_block ireduce_scatter iscan iexscan ibarrier
  ineighbor_allgather ineighbor_allgatherv ineighbor_alltoall ineighbor_alltoallv ineighbor_alltoallw
  outstanding threads progress large_count)
foreach(_c IN LISTS _checks)
  foreach(_tier quick full)
    if(_tier STREQUAL "quick")
      if(_c STREQUAL "large_count")  # 2 GiB per rank: nightly only
        continue()
      endif()
      set(_name ${_impl}.conformance.${_c})
      set(_labels "conformance;${_impl};${_c};n4;quick")
      set(_timeout 300)
    else()
      set(_name ${_impl}.conformance-full.${_c})
      set(_labels "conformance;${_impl};${_c};n4;nightly")
      set(_timeout 1800)
    endif()
    add_test(NAME ${_name}
             COMMAND ${_driver} conformance --ranks 4 --tier ${_tier} --check ${_c} --config ${_cfg}
                     --out ${_out}/${_c})
    set_tests_properties(${_name} PROPERTIES LABELS "${_labels}" RUN_SERIAL TRUE PROCESSORS 2
                         TIMEOUT ${_timeout} SKIP_RETURN_CODE 77)
  endforeach()
endforeach()

# Each bug of libnbcguard-bugs.so, injected into this library, must be
# caught by the quick tier's check of the collective it breaks: the test
# passes only on the FAIL line naming that check (and the variant or the
# symptom that shows the bug), whatever the exit code.
#   bug | check | what the FAIL line must show after the check's name
set(_bugs
  "bcast-root-zero|ibcast|root=3 .*: receive buffer element 0 value 0: expected"
  "gather-root-world|igather|root=1 .*comm=reversed"
  "allreduce-in-place-ignored|iallreduce|in_place .*receive buffer element 0 value 0: expected"
  "gatherv-displ-off-by-one|igatherv|receive buffer element [0-9]+ value 0: expected"
  "alltoallv-contiguous-displs|ialltoallv|receive buffer element"
  "reduce-scatter-uniform|ireduce_scatter|receive buffer"
  "noncomm-reversed|iallreduce|op=noncomm .*expected"
  "scan-exclusive|iscan|receive buffer element 0 value 0: expected"
  "neighbor-swap|ineighbor_alltoall|topology=.*receive buffer element 0 value 0: expected"
  "test-no-progress|progress|polled with MPI_Test only: not complete after"
  "send-buffer-scratch|iallreduce|send buffer element 0 byte 0"
  "struct-holes-written|ibcast|datatype=struct .*a hole of the datatype"
  "wait-early|iallgather|receive buffer element [0-9]+ value 0: expected"
  "persistent-data-at-init|ibcast|persistent: rank [0-9]+: repetition 1: receive buffer")
if(_impl STREQUAL "mpich")  # MPI-4 large counts (MPI_Ibcast_c); 2 x 2 GiB: nightly
  list(APPEND _bugs "count-truncated|large_count|MPI_Ibcast_c of 2147483712 bytes: byte 64: expected")
endif()
foreach(_b IN LISTS _bugs)
  string(REPLACE "|" ";" _parts "${_b}")
  list(GET _parts 0 _bug)
  list(GET _parts 1 _check)
  list(GET _parts 2 _shows)
  set(_tier quick)
  set(_labels "conformance;conformance-bug;${_impl};${_check};n4;quick")
  if(_check STREQUAL "large_count")
    set(_tier full)
    set(_labels "conformance;conformance-bug;${_impl};${_check};n4;nightly")
  endif()
  add_test(NAME ${_impl}.conformance-bug.${_bug}
           COMMAND ${_driver} conformance --ranks 4 --tier ${_tier} --check ${_check} --bug ${_bug}
                   --config ${_cfg} --out ${_bugs_out})
  set_tests_properties(${_impl}.conformance-bug.${_bug} PROPERTIES
    LABELS "${_labels}" RUN_SERIAL TRUE PROCESSORS 2 TIMEOUT 300
    PASS_REGULAR_EXPRESSION "FAIL +${_check} [^\n]*${_shows}")
endforeach()
