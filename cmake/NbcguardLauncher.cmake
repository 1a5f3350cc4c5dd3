# Which launcher starts the MPI ranks, and the config files the driver reads.
#
# NBCGUARD_LAUNCHER = mpiexec | srun selects the launcher of
# nbcguard-config.json (what `nbcguard run` and every CTest test use):
#   mpiexec  FindMPI's MPIEXEC_EXECUTABLE, MPIEXEC_NUMPROC_FLAG,
#            MPIEXEC_PREFLAGS, MPIEXEC_POSTFLAGS (the presets openmpi, mpich)
#   srun     Slurm: srun -n N --mpi=NBCGUARD_SRUN_MPI NBCGUARD_SRUN_PREFLAGS
#            (the presets openmpi-srun, mpich-srun)
# Beside it the build writes one file per launcher it can use,
# nbcguard-config-mpiexec.json and, when srun is found,
# nbcguard-config-srun.json: one build measures through either
# (`nbcguard run CASE --config build/<preset>/nbcguard-config-srun.json`),
# which is what the slurm-labelled tests do without a second build.
#
# srun's --mpi default is the first of the library's plugins that
# `srun --mpi=list` names (below). Its placement per library keeps the ranks
# placed as the library's own launcher places them here, so figures through
# srun and mpiexec compare:
#   MPICH     --mpi=pmi2, --cpu-bind=none: Hydra leaves ranks unbound
#   Open MPI  --mpi=pmix, --cpu-bind=cores: mpirun binds each rank to a core
#             (its default for 2 ranks; for more it binds to the package, and
#             to nothing when oversubscribed, where srun still binds cores)
#   both      --exclusive: a timing test owns its node(s), as it owns the
#             machine under mpiexec; every core of the node is the job's
# srun does not overcommit: a test with more ranks than the allocation's
# CPUs waits for resources until its timeout.
#
# netns: the library's own launcher, reaching the hosts of
# tools/netns-cluster.sh (network namespaces on this machine) through
# tools/netns-agent.sh instead of ssh, one rank per host, TCP only:
#   Open MPI  mpirun --host H1,H2 --bind-to none --mca plm_rsh_agent <agent>
#             --mca pml ob1 --mca btl tcp,self, TCP BTL and OOB on the
#             cluster's subnet. --bind-to none: every "host" sees the same
#             cores, and mpirun binds the one rank of each host to its core
#             0: both ranks took turns on one core (4 ms round trips).
#   MPICH     mpiexec -launcher ssh -launcher-exec <agent> -hosts H1,H2
#             -localhost <bridge address> (where the hosts' proxies call
#             back), UCX_TLS=tcp,self on the hosts' interface (ch4:ucx over
#             TCP; its shared-memory transports would reach across the
#             namespaces, which share /dev/shm)
# nbcguard-config-netns.json is always written: the netns-labelled tests
# skip where no cluster is started.

# mpiexec's options: NBCGUARD_MPIEXEC_PREFLAGS, which is MPIEXEC_PREFLAGS
# plus what the library needs here (cmake/NbcguardMpi.cmake).
set(_nbcguard_launchers mpiexec srun netns)
set(NBCGUARD_LAUNCHER "mpiexec" CACHE STRING "How the driver starts MPI ranks: mpiexec, srun or netns")
set_property(CACHE NBCGUARD_LAUNCHER PROPERTY STRINGS ${_nbcguard_launchers})
if(NOT NBCGUARD_LAUNCHER IN_LIST _nbcguard_launchers)
  list(JOIN _nbcguard_launchers ", " _allowed)
  message(FATAL_ERROR "NBCGUARD_LAUNCHER is '${NBCGUARD_LAUNCHER}'; allowed: ${_allowed} "
                      "(e.g. cmake --preset mpich-srun, or -DNBCGUARD_LAUNCHER=srun)")
endif()

find_program(NBCGUARD_SRUN_EXECUTABLE srun DOC "Slurm's srun (NBCGUARD_LAUNCHER=srun and the slurm-labelled tests)")
set(_srun_ok FALSE)
if(NBCGUARD_SRUN_EXECUTABLE AND EXISTS "${NBCGUARD_SRUN_EXECUTABLE}" AND NOT IS_DIRECTORY "${NBCGUARD_SRUN_EXECUTABLE}")
  set(_srun_ok TRUE)
endif()
if(NBCGUARD_LAUNCHER STREQUAL "srun" AND NOT _srun_ok)
  message(FATAL_ERROR "NBCGUARD_LAUNCHER=srun but srun was not found (NBCGUARD_SRUN_EXECUTABLE: "
                      "'${NBCGUARD_SRUN_EXECUTABLE}'): install Slurm's client "
                      "(Debian: slurm-client; tools/install-deps.sh does) or set NBCGUARD_SRUN_EXECUTABLE "
                      "to its path; or configure with NBCGUARD_LAUNCHER=mpiexec")
endif()

# The MPI plugins this srun has. `srun --mpi=list` answers only where a
# Slurm configuration is readable; without one, _srun_plugins stays empty.
set(_srun_plugins "")
set(_srun_listed FALSE)
if(_srun_ok)
  execute_process(COMMAND "${NBCGUARD_SRUN_EXECUTABLE}" --mpi=list RESULT_VARIABLE _rc
                  OUTPUT_VARIABLE _list ERROR_VARIABLE _list_err TIMEOUT 20)
  string(APPEND _list "${_list_err}")
  if(_rc EQUAL 0)
    set(_srun_listed TRUE)
    string(REGEX MATCHALL "\n[ \t]+[a-z0-9_]+" _srun_plugins "${_list}")
    string(REGEX REPLACE "[\n\t ]+" "" _srun_plugins "${_srun_plugins}")
    # "specific pmix plugin versions available: pmix_v4,..." names more
    if(_list MATCHES "versions available: ([a-z0-9_, ]+)")
      string(REGEX REPLACE "[ ]*,[ ]*" ";" _versions "${CMAKE_MATCH_1}")
      list(APPEND _srun_plugins ${_versions})
    endif()
  endif()
endif()

# Per library: the plugins it starts with, best first, and srun's placement.
# The default plugin is the first of them this srun has (the first of the
# list where srun cannot list its plugins); a library nbcguard does not know
# tries PMIx, then PMI-2; none of them listed: the cluster's MpiDefault.
if(NBCGUARD_MPI_IMPL_DETECTED MATCHES "^(mpich|mvapich|intelmpi)$")
  set(_prefer pmi2 pmix)
  set(_pre "--exclusive;--cpu-bind=none")
elseif(NBCGUARD_MPI_IMPL_DETECTED STREQUAL "openmpi")
  set(_prefer pmix pmix_v5 pmix_v4 pmix_v3 pmix_v2 pmi2)
  set(_pre "--exclusive;--cpu-bind=cores")
else()
  set(_prefer pmix pmi2)
  set(_pre "--exclusive")
endif()
set(_mpi "")
if(NOT _srun_listed AND NOT NBCGUARD_MPI_IMPL_DETECTED STREQUAL "mpi")
  list(GET _prefer 0 _mpi)
else()
  foreach(_p IN LISTS _prefer)
    if(_p IN_LIST _srun_plugins)
      set(_mpi ${_p})
      break()
    endif()
  endforeach()
endif()
set(NBCGUARD_SRUN_MPI "${_mpi}" CACHE STRING
    "srun --mpi plugin (default: the first of the library's preferred plugins that srun --mpi=list names: pmi2 for MPICH, pmix for Open MPI; empty = the cluster's MpiDefault)")
set(NBCGUARD_SRUN_PREFLAGS "${_pre}" CACHE STRING
    "srun options after -n N and --mpi, before the program (;-separated)")

set(NBCGUARD_NETNS_HOSTLIST "10.213.0.1;10.213.0.2" CACHE STRING
    "netns launcher: the hosts' addresses (tools/netns-cluster.sh's defaults)")
set(NBCGUARD_NETNS_SUBNET "10.213.0.0/24" CACHE STRING
    "netns launcher: the cluster's subnet, the only one MPI traffic may use")
set(NBCGUARD_NETNS_LAUNCHER_HOST "10.213.0.254" CACHE STRING
    "netns launcher: the launching host's address on the cluster's bridge")

# The plugin must be one this srun has; without a list it is taken as given.
if(_srun_ok AND NBCGUARD_SRUN_MPI)
  if(_srun_listed)
    if(NOT NBCGUARD_SRUN_MPI IN_LIST _srun_plugins)
      list(JOIN _srun_plugins ", " _allowed)
      message(FATAL_ERROR "NBCGUARD_SRUN_MPI is '${NBCGUARD_SRUN_MPI}'; this srun "
                          "(${NBCGUARD_SRUN_EXECUTABLE}) has the MPI plugins: ${_allowed}")
    endif()
  else()
    message(STATUS "nbcguard: srun --mpi=list did not answer (no Slurm configuration here?): "
                   "--mpi=${NBCGUARD_SRUN_MPI} not checked")
  endif()
endif()

function(_nbcguard_json_list out)
  set(items "")
  foreach(x IN LISTS ARGN)
    string(REPLACE "\\" "\\\\" x "${x}")
    string(REPLACE "\"" "\\\"" x "${x}")
    list(APPEND items "\"${x}\"")
  endforeach()
  list(JOIN items ", " joined)
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# nbcguard_write_config(FILE LAUNCHER [INSTALLED]): what the driver needs to
# launch the harness with that launcher, in one JSON file. The build's files
# name the build tree; INSTALLED, the file `cmake --install` puts in
# <prefix>/${NBCGUARD_INSTALL_DATADIR}, names the installed programs and
# files relative to its own directory (the driver resolves them there, so
# the installed tree can move) and leaves the results, calibration cache and
# baseline to whoever uses it (nbcguard_add_cases() sets them per project).
function(nbcguard_write_config file launcher)
  set(installed FALSE)
  if(ARGC GREATER 2 AND ARGV2 STREQUAL "INSTALLED")
    set(installed TRUE)
  endif()
  if(installed)
    set(harness "${NBCGUARD_REL_LIBEXEC}/$<TARGET_FILE_NAME:nbcguard-harness>")
    set(compute "${NBCGUARD_REL_LIBEXEC}/$<TARGET_FILE_NAME:nbcguard-compute>")
    set(reference "${NBCGUARD_REL_PRIVLIB}/$<TARGET_FILE_NAME:nbcguard-reference>")
    set(cases "cases")
    set(thresholds "thresholds")
    set(results "")
    set(cache "")
    set(baseline "")
  else()
    set(harness "$<TARGET_FILE:nbcguard-harness>")
    set(compute "$<TARGET_FILE:nbcguard-compute>")
    set(reference "$<TARGET_FILE:nbcguard-reference>")
    set(cases "${PROJECT_SOURCE_DIR}/cases")
    set(thresholds "${PROJECT_SOURCE_DIR}/thresholds")
    set(results "${NBCGUARD_RESULTS_DIR}")
    set(cache "${NBCGUARD_CALIBRATION_CACHE}")
    set(baseline "${NBCGUARD_BASELINE_DIR}")
  endif()
  _nbcguard_json_list(thresholds_json ${NBCGUARD_SITE_THRESHOLDS_DIRS} "${thresholds}")
  if(launcher STREQUAL "srun")
    set(exe "${NBCGUARD_SRUN_EXECUTABLE}")
    set(np "-n")
    set(pre "")
    if(NBCGUARD_SRUN_MPI)
      list(APPEND pre "--mpi=${NBCGUARD_SRUN_MPI}")
    endif()
    list(APPEND pre ${NBCGUARD_SRUN_PREFLAGS})
    set(post "")
  elseif(launcher STREQUAL "netns")
    set(exe "${MPIEXEC_EXECUTABLE}")
    set(np "${MPIEXEC_NUMPROC_FLAG}")
    set(agent "${PROJECT_SOURCE_DIR}/tools/netns-agent.sh")
    list(JOIN NBCGUARD_NETNS_HOSTLIST "," hosts)
    if(NBCGUARD_MPI_IMPL_DETECTED STREQUAL "openmpi")
      set(pre ${NBCGUARD_MPIEXEC_PREFLAGS} --host "${hosts}" --bind-to none --mca plm_rsh_agent "${agent}" --mca pml ob1 --mca btl "tcp,self"
              --mca btl_tcp_if_include "${NBCGUARD_NETNS_SUBNET}" --mca oob_tcp_if_include "${NBCGUARD_NETNS_SUBNET}")
    else()
      set(pre ${NBCGUARD_MPIEXEC_PREFLAGS} -launcher ssh -launcher-exec "${agent}" -hosts "${hosts}"
              -localhost "${NBCGUARD_NETNS_LAUNCHER_HOST}" -genv UCX_TLS "tcp,self" -genv UCX_NET_DEVICES nbcgnet)
    endif()
    set(post ${MPIEXEC_POSTFLAGS})
  else()
    set(exe "${MPIEXEC_EXECUTABLE}")
    set(np "${MPIEXEC_NUMPROC_FLAG}")
    set(pre ${NBCGUARD_MPIEXEC_PREFLAGS})
    set(post ${MPIEXEC_POSTFLAGS})
  endif()
  _nbcguard_json_list(pre_json ${pre})
  _nbcguard_json_list(post_json ${post})
  file(GENERATE OUTPUT "${file}" CONTENT "{
  \"implementation\": \"${NBCGUARD_MPI_IMPL_DETECTED}\",
  \"launcher\": \"${launcher}\",
  \"mpiexec\": \"${exe}\",
  \"numproc_flag\": \"${np}\",
  \"preflags\": ${pre_json},
  \"postflags\": ${post_json},
  \"harness\": \"${harness}\",
  \"compute\": \"${compute}\",
  \"reference_library\": \"${reference}\",
  \"cases_dir\": \"${cases}\",
  \"thresholds_dir\": ${thresholds_json},
  \"system\": \"${NBCGUARD_SYSTEM}\",
  \"results_dir\": \"${results}\",
  \"calibration_cache\": \"${cache}\",
  \"baseline_dir\": \"${baseline}\"
}
")
endfunction()

function(nbcguard_write_configs)
  nbcguard_write_config("${CMAKE_BINARY_DIR}/nbcguard-config.json" "${NBCGUARD_LAUNCHER}")
  nbcguard_write_config("${CMAKE_BINARY_DIR}/nbcguard-config-mpiexec.json" mpiexec)
  if(_srun_ok)
    nbcguard_write_config("${CMAKE_BINARY_DIR}/nbcguard-config-srun.json" srun)
  else()
    file(REMOVE "${CMAKE_BINARY_DIR}/nbcguard-config-srun.json")
  endif()
  nbcguard_write_config("${CMAKE_BINARY_DIR}/nbcguard-config-netns.json" netns)
  if(_srun_ok)
    set(srun_note "also nbcguard-config-srun.json (${NBCGUARD_SRUN_EXECUTABLE})")
  else()
    set(srun_note "srun not found: no nbcguard-config-srun.json, the slurm-labelled tests will skip")
  endif()
  message(STATUS "nbcguard: launcher ${NBCGUARD_LAUNCHER} (nbcguard-config.json); ${srun_note}")
endfunction()
