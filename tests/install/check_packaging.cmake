# The packaging recipes against this build (tools/check-packaging.py): the
# Spack recipe's cmake_args are cache variables of this build, and the
# container's runtime stage installs what this build's installed programs
# load. Installs the build into WORK/prefix first.
#   cmake -D BUILD=<build dir> -D SOURCE_DIR=<repo> -D WORK=<scratch> -D PYTHON=<python3> -P check_packaging.cmake
if(NOT PYTHON)
  message(FATAL_ERROR "python3 was not found when configuring (bash tools/install-deps.sh installs it)")
endif()
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${WORK}/prefix"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD} failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND "${PYTHON}" "${SOURCE_DIR}/tools/check-packaging.py" "${SOURCE_DIR}" "${BUILD}" "${WORK}/prefix"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tools/check-packaging.py found problems (exit ${rc})")
endif()
