# nbcguard junit on a CTest JUnit file of every kind of outcome (FIXTURE):
# the reasons go into `message`, CTest's words into `type`, the rest stays.
#   cmake -DDRIVER=nbcguard -DFIXTURE=mixed.xml -DOUT=dir -P check_junit_messages.cmake
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(junit "${OUT}/junit.xml")
file(COPY_FILE "${FIXTURE}" "${junit}")

execute_process(COMMAND "${DRIVER}" junit "${junit}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nbcguard junit exited ${rc}: ${out}${err}")
endif()
file(READ "${junit}" text)

function(expect what)
  string(FIND "${text}" "${what}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "junit.xml lacks\n  ${what}\nit reads:\n${text}")
  endif()
endfunction()

# A skip by exit code 77: its SKIP line.
expect([[<skipped message="SKIP ibcast n2 dedicated: no progress thread" type="SKIP_RETURN_CODE=77" />]])
# Skips by SKIP_REGULAR_EXPRESSION: the SKIP line, or the INCONCLUSIVE line
# (with what XML escapes escaped once, not twice).
expect([[<skipped message="SKIP: chromium not installed" type="SKIP_REGULAR_EXPRESSION_MATCHED" />]])
expect([[<skipped message="INCONCLUSIVE iallreduce n2 basic: points refused in both jobs &amp; no limit exceeded (&quot;disturbed&quot;)" type="SKIP_REGULAR_EXPRESSION_MATCHED" />]])
expect([[<skipped message="reference-background INCONCLUSIVE: undecided after 3 jobs (job 1: inconclusive, job 2: inconclusive, job 3: a check failed)" type="SKIP_REGULAR_EXPRESSION_MATCHED" />]])
# A failure (CTest leaves its message empty): the line that says why, and
# no empty `type`.
expect([[<failure message="reference-deferred INCONCLUSIVE: this test failed all the same" />]])
# The outputs and the passed test are kept.
expect("attempt 1 was INCONCLUSIVE; measuring again\nverdict: PASS\n</system-out>")
expect([[<testcase name="openmpi.ibcast.n2.basic" classname="openmpi.ibcast.n2.basic" time="20" status="run">]])
string(REGEX MATCHALL "<testcase " cases "${text}")
list(LENGTH cases n)
if(NOT n EQUAL 6)
  message(FATAL_ERROR "junit.xml has ${n} test cases after the rewrite, the fixture 6:\n${text}")
endif()

# A second pass changes nothing.
execute_process(COMMAND "${DRIVER}" junit "${junit}" RESULT_VARIABLE rc)
file(READ "${junit}" again)
if(NOT rc EQUAL 0 OR NOT again STREQUAL text)
  message(FATAL_ERROR "a second nbcguard junit (exit ${rc}) changed the file:\n${again}")
endif()

# Files that are not JUnit are refused, named, and left as they were.
file(WRITE "${OUT}/broken.xml" "<testsuite><testcase name=\"x\">")
file(WRITE "${OUT}/other.xml" "<coverage/>\n")
foreach(bad broken other)
  file(READ "${OUT}/${bad}.xml" before)
  execute_process(COMMAND "${DRIVER}" junit "${OUT}/${bad}.xml" RESULT_VARIABLE rc ERROR_VARIABLE err)
  file(READ "${OUT}/${bad}.xml" after)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${bad}.xml: " OR NOT after STREQUAL before)
    message(FATAL_ERROR "nbcguard junit on ${bad}.xml: exit ${rc} (want 2), message '${err}', file changed: "
                        "${before} -> ${after}")
  endif()
endforeach()
message(STATUS "junit-messages: reasons in 5 messages, the rest kept, bad files refused")
