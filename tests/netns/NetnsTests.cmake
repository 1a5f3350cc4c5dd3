# Tests across network namespaces (label netns, never quick: they need the
# cluster of tools/netns-cluster.sh, which needs root). One small overlap
# case and the clock check per build, one rank per namespace, through this
# build's nbcguard-config-netns.json. Without a cluster they SKIP with the
# reason; the CI job (.gitlab-ci.yml: netns) starts one and sets
# NBCGUARD_REQUIRE_NETNS=1, under which a missing cluster fails.
set(_name ${NBCGUARD_MPI_IMPL_DETECTED}.netns.overlap-and-clock)
add_test(NAME ${_name}
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_netns.sh $<TARGET_FILE:nbcguard>
                 ${CMAKE_BINARY_DIR}/nbcguard-config-netns.json ${CMAKE_BINARY_DIR}/netns-tests
                 ${CMAKE_CURRENT_LIST_DIR}/data/netns-ibcast.yaml 100)
set_tests_properties(${_name} PROPERTIES
  LABELS "netns;integration;${NBCGUARD_MPI_IMPL_DETECTED};n2" RUN_SERIAL TRUE PROCESSORS 2 TIMEOUT 400
  SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "INCONCLUSIVE (netns|slurm): points refused")
