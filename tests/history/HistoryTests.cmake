# The results history (labels history and quick: every merge request runs
# them): the store's tests on an SQLite file and on PostgreSQL, and the
# command line on both. The fixture `postgres` starts the server of
# tools/postgres-server.sh (its own directory per build, a Unix socket, no
# TCP port) before them and stops it after; without a server the PostgreSQL
# tests fail, they never skip.
add_executable(nbcguard_history_tests ${CMAKE_CURRENT_LIST_DIR}/../unit/history_store_test.cc)
target_link_libraries(nbcguard_history_tests PRIVATE nbcguard_history GTest::gtest_main Threads::Threads nbcguard_warnings)
nbcguard_test_code(nbcguard_history_tests)

set(_tools ${PROJECT_SOURCE_DIR}/tools)
set(_pg_env "NBCGUARD_PG_DIR=/var/tmp/nbcguard-pg-${NBCGUARD_MPI_IMPL_DETECTED}")
add_test(NAME history.postgres-start COMMAND bash ${_tools}/postgres-server.sh start)
add_test(NAME history.postgres-stop COMMAND bash ${_tools}/postgres-server.sh stop)
set_tests_properties(history.postgres-start PROPERTIES FIXTURES_SETUP postgres)
set_tests_properties(history.postgres-stop PROPERTIES FIXTURES_CLEANUP postgres)

add_test(NAME history.store COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/with_postgres.sh ${_tools}
                                    $<TARGET_FILE:nbcguard_history_tests>)
add_test(NAME history.cli-sqlite
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_history_cli.sh $<TARGET_FILE:nbcguard>
                 ${CMAKE_CURRENT_BINARY_DIR}/history-cli.db ${PROJECT_SOURCE_DIR}/tests/data
                 ${CMAKE_CURRENT_BINARY_DIR}/history-cli-sqlite $<TARGET_FILE:nbcguard-png-check>)
add_test(NAME history.cli-postgres
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/with_postgres.sh ${_tools}
                 bash ${CMAKE_CURRENT_LIST_DIR}/check_history_cli.sh $<TARGET_FILE:nbcguard> @PG_URL@
                 ${PROJECT_SOURCE_DIR}/tests/data ${CMAKE_CURRENT_BINARY_DIR}/history-cli-postgres
                 $<TARGET_FILE:nbcguard-png-check>)
set_tests_properties(history.store history.cli-postgres PROPERTIES FIXTURES_REQUIRED postgres RESOURCE_LOCK postgres)
set_tests_properties(history.postgres-start history.postgres-stop history.store history.cli-sqlite
                     history.cli-postgres PROPERTIES LABELS "history${_shared_labels}" ENVIRONMENT "${_pg_env}" TIMEOUT 120)

# Figures for docs/history.md (not a test): how often the check reports
# something in series without a change, and how soon it reports a step.
add_executable(nbcguard-changepoint-bench ${CMAKE_CURRENT_LIST_DIR}/../bench/changepoint_bench.cc)
target_link_libraries(nbcguard-changepoint-bench PRIVATE nbcguard_core nbcguard_warnings)
