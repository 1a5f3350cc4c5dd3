# `cmake --install <build> --prefix P`: nbcguard as another project uses it.
#
#   P/bin/nbcguard                          the driver
#   P/libexec/nbcguard/                     nbcguard-harness (the MPI program), nbcguard-compute,
#                                           nbcguard-conformance (the conformance tier's MPI program)
#   P/lib/nbcguard/                         libnbcguard_compute.so, libnbcguard-reference.so,
#                                           libnbcguard-bugs.so
#   P/share/nbcguard/nbcguard-config*.json  the launcher(s) this build was configured with
#   P/share/nbcguard/cases/, thresholds/    the shipped cases and threshold files
#   P/lib/cmake/nbcguard/                   find_package(nbcguard CONFIG): nbcguard::nbcguard,
#                                           nbcguard_add_cases(), nbcguard_discover_cases()
#
# Nothing installed names the source or the build tree: the installed config
# files name the programs relative to their own directory, and the driver
# looks for its config at <bindir>/../share/nbcguard before anything else
# (docs/use-in-your-project.md). The programs find their private libraries
# through an RPATH relative to themselves ($ORIGIN), and the MPI library
# through the directories it was linked from, so an MPI under a prefix of
# its own is found without LD_LIBRARY_PATH.

# A path from one install directory to another, as the config file and the
# RPATHs need it; an absolute destination stays absolute.
function(_nbcguard_rel_path out from to)
  if(IS_ABSOLUTE "${to}")
    set(${out} "${to}" PARENT_SCOPE)
    return()
  endif()
  if(IS_ABSOLUTE "${from}")
    file(RELATIVE_PATH rel "${from}" "${CMAKE_INSTALL_PREFIX}/${to}")
  else()
    file(RELATIVE_PATH rel "/nbcguard-prefix/${from}" "/nbcguard-prefix/${to}")
  endif()
  set(${out} "${rel}" PARENT_SCOPE)
endfunction()

_nbcguard_rel_path(NBCGUARD_REL_LIBEXEC "${NBCGUARD_INSTALL_DATADIR}" "${NBCGUARD_INSTALL_LIBEXECDIR}")
_nbcguard_rel_path(NBCGUARD_REL_PRIVLIB "${NBCGUARD_INSTALL_DATADIR}" "${NBCGUARD_INSTALL_PRIVLIBDIR}")
_nbcguard_rel_path(_bin_to_data "${CMAKE_INSTALL_BINDIR}" "${NBCGUARD_INSTALL_DATADIR}")
_nbcguard_rel_path(_libexec_to_privlib "${NBCGUARD_INSTALL_LIBEXECDIR}" "${NBCGUARD_INSTALL_PRIVLIBDIR}")

# Where the installed driver looks for its config, relative to itself.
target_compile_definitions(nbcguard PRIVATE NBCGUARD_INSTALLED_CONFIG="${_bin_to_data}/nbcguard-config.json")

set_target_properties(nbcguard-harness nbcguard-compute nbcguard-conformance PROPERTIES
  INSTALL_RPATH "$ORIGIN/${_libexec_to_privlib}" INSTALL_RPATH_USE_LINK_PATH TRUE)
set_target_properties(nbcguard-reference nbcguard-bugs nbcguard_compute PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS nbcguard RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(TARGETS nbcguard-harness nbcguard-compute nbcguard-conformance RUNTIME DESTINATION "${NBCGUARD_INSTALL_LIBEXECDIR}")
install(TARGETS nbcguard_compute nbcguard-reference nbcguard-bugs LIBRARY DESTINATION "${NBCGUARD_INSTALL_PRIVLIBDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/cases/" DESTINATION "${NBCGUARD_INSTALL_DATADIR}/cases"
        FILES_MATCHING PATTERN "*.yaml")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/thresholds/" DESTINATION "${NBCGUARD_INSTALL_DATADIR}/thresholds"
        FILES_MATCHING PATTERN "*.yaml")

# The installed configs: the build's launcher (mpiexec where the build
# uses the network-namespace cluster of this source tree), and srun's when
# this build found srun.
set(_inst "${CMAKE_BINARY_DIR}/install-config")
set(_main_launcher "${NBCGUARD_LAUNCHER}")
if(_main_launcher STREQUAL "netns")
  set(_main_launcher mpiexec)
endif()
nbcguard_write_config("${_inst}/nbcguard-config.json" "${_main_launcher}" INSTALLED)
nbcguard_write_config("${_inst}/nbcguard-config-mpiexec.json" mpiexec INSTALLED)
set(_inst_files "${_inst}/nbcguard-config.json" "${_inst}/nbcguard-config-mpiexec.json")
if(_srun_ok)
  nbcguard_write_config("${_inst}/nbcguard-config-srun.json" srun INSTALLED)
  list(APPEND _inst_files "${_inst}/nbcguard-config-srun.json")
endif()
install(FILES ${_inst_files} DESTINATION "${NBCGUARD_INSTALL_DATADIR}")

# The CMake package.
include(CMakePackageConfigHelpers)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/nbcguardConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/package/nbcguardConfig.cmake"
  INSTALL_DESTINATION "${NBCGUARD_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_BINDIR NBCGUARD_INSTALL_DATADIR)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/package/nbcguardConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/package/nbcguardConfig.cmake"
              "${CMAKE_BINARY_DIR}/package/nbcguardConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/NbcguardDiscover.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/NbcguardDiscoverAddTests.cmake"
        DESTINATION "${NBCGUARD_INSTALL_CMAKEDIR}")
