# Tests through Slurm (label slurm, never quick: they need a cluster). One
# small overlap case per build, started by srun with this build's
# nbcguard-config-srun.json, so the same build that runs the mpiexec tests
# runs these (no second build per launcher). Without srun at configure time
# or without a cluster that answers sinfo they SKIP with the reason; the CI
# job (.gitlab-ci.yml: slurm) starts one with tools/slurm-cluster.sh and sets
# NBCGUARD_REQUIRE_SLURM=1, under which a missing cluster fails.
set(_name ${NBCGUARD_MPI_IMPL_DETECTED}.slurm.overlap)
add_test(NAME ${_name}
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_slurm.sh $<TARGET_FILE:nbcguard>
                 ${CMAKE_BINARY_DIR}/nbcguard-config-srun.json ${CMAKE_BINARY_DIR}/slurm-tests
                 ${CMAKE_CURRENT_LIST_DIR}/data/slurm-ibcast.yaml "${NBCGUARD_SRUN_MPI}")
set_tests_properties(${_name} PROPERTIES
  LABELS "slurm;integration;${NBCGUARD_MPI_IMPL_DETECTED};n2" RUN_SERIAL TRUE PROCESSORS 2 TIMEOUT 300
  SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "INCONCLUSIVE (netns|slurm): points refused")

# A config file naming a launcher the driver does not know is an error that
# names the allowed ones (no cluster needed: in the CI tier).
add_test(NAME launcher.config-unknown
         COMMAND nbcguard list --config ${CMAKE_CURRENT_LIST_DIR}/data/unknown-launcher.json)
set_tests_properties(launcher.config-unknown PROPERTIES LABELS "unit${_shared_labels}"
  PASS_REGULAR_EXPRESSION "unknown-launcher.json: launcher 'aprun' is not known; allowed: mpiexec, srun, netns")
