# What a run through the netns launcher must have recorded: verdict PASS, the
# launcher netns with the agent on its command line, each rank on its own
# host, and (LINK_BYTES: bytes the bridge sent to host 1 during the run) at
# least the largest calibrated broadcast times the repetitions on the link:
# the data went over TCP, not through shared memory.
#   -DRESULTS=file -DLINK_BYTES=n
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../launchers/read_passed_run.cmake)
if(NOT launcher STREQUAL "netns")
  message(FATAL_ERROR "${RESULTS}: launch.launcher is '${launcher}', expected netns")
endif()
if(NOT cmd MATCHES "netns-agent.sh")
  message(FATAL_ERROR "${RESULTS}: launch.command does not go through tools/netns-agent.sh: ${cmd}")
endif()
string(JSON h0 GET "${json}" environment hosts 0)
string(JSON h1 GET "${json}" environment hosts 1)
if(h0 STREQUAL h1 OR NOT h0 MATCHES "^nbcg-h[0-9]+$" OR NOT h1 MATCHES "^nbcg-h[0-9]+$")
  message(FATAL_ERROR "${RESULTS}: ranks ran on hosts '${h0}' and '${h1}', expected two netns hosts nbcg-h<i>")
endif()
string(JSON reps GET "${json}" environment repetitions)
string(JSON n LENGTH "${json}" calibration comm)
math(EXPR last "${n} - 1")
set(largest 0)
foreach(i RANGE ${last})
  string(JSON b GET "${json}" calibration comm ${i} bytes)
  if(b GREATER largest)
    set(largest ${b})
  endif()
endforeach()
math(EXPR expected "${largest} * ${reps}")
if(LINK_BYTES LESS expected)
  message(FATAL_ERROR "only ${LINK_BYTES} bytes crossed the link to host 1 during the run, fewer than "
                      "${expected} (${largest} bytes x ${reps} repetitions): the broadcast did not go over TCP")
endif()
message(STATUS "ranks on ${h0} and ${h1}; ${LINK_BYTES} bytes to host 1 over its link (at least ${expected} expected)")
message(STATUS "launched: ${cmd}")
message(STATUS "verdict: ${summary}")
