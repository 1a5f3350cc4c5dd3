# The conformance tier (docs/conformance.md): one test per collective or
# semantics check, on 4 ranks (a non-zero root other than the last, a
# reordered split and the topologies need 3 or more). The quick tier is in
# the CI tier (label quick); the full tier (every variant persistent too,
# more sizes, roots, datatypes and operations, counts past 2^31) runs
# nightly. Known failures of a library come from its threshold file.
set(_driver $<TARGET_FILE:nbcguard>)
set(_cfg "${CMAKE_BINARY_DIR}/nbcguard-config.json")
set(_impl "${NBCGUARD_MPI_IMPL_DETECTED}")
set(_out "${CMAKE_BINARY_DIR}/conformance-tests")

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
