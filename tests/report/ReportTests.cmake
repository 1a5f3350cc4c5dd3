# Pictures and the run summary, from the results.json fixtures in
# tests/data/results (real runs with the samples trimmed, plus two synthetic
# ones: a 4x3 grid with every kind of cell, and a one-point reference run).
# No MPI and no timing: label report, and quick (the CI tier). The fixtures
# are copied into the build tree first: drawing writes next to results.json.
set(_report_driver $<TARGET_FILE:nbcguard>)
set(_report_fixtures "${CMAKE_CURRENT_SOURCE_DIR}/data/results")
set(_report_out "${CMAKE_CURRENT_BINARY_DIR}/report")

add_executable(nbcguard-png-check report/png_check.cc)
target_link_libraries(nbcguard-png-check PRIVATE nbcguard_core PkgConfig::CAIRO)
target_link_libraries(nbcguard-png-check PRIVATE nbcguard_warnings)

# Found now, at configure time; without it the screenshot test SKIPs with the
# reason (it never passes untested).
find_program(NBCGUARD_CHROMIUM NAMES chromium chromium-browser google-chrome
             DOC "headless browser for the HTML summary's screenshot test")
if(NOT NBCGUARD_CHROMIUM)
  set(NBCGUARD_CHROMIUM "")
endif()

# `nbcguard plot` writes the six pictures of every fixture (the all-invalid
# and the one-point grids included), each a real PNG / SVG, and the
# r_overhead heat-map of the 4x3 grid shows green, yellow, red and blue cells.
add_test(NAME report.plot-writes-six-files
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_report_driver} -DFIXTURES=${_report_fixtures}
          -DOUT=${_report_out}/plot -DCHECKER=$<TARGET_FILE:nbcguard-png-check>
          -P ${CMAKE_CURRENT_SOURCE_DIR}/report/check_plot.cmake)

# `nbcguard summary` as text and Markdown: every test, the failures, the
# verdicts as RunOne decides them.
add_test(NAME report.summary-text-markdown
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_report_driver} -DFIXTURES=${_report_fixtures}
          -DOUT=${_report_out}/summary-text -P ${CMAKE_CURRENT_SOURCE_DIR}/report/check_summary_text.cmake)

# The HTML summary in a real browser: the page references existing pictures
# (drawn by the summary, since the fixtures have none), and headless
# Chromium's screenshot shows the heat-map colours.
add_test(NAME report.summary-html-screenshot
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_report_driver} -DFIXTURES=${_report_fixtures}
          -DOUT=${_report_out}/summary-html -DCHROMIUM=${NBCGUARD_CHROMIUM}
          -DCHECKER=$<TARGET_FILE:nbcguard-png-check>
          -P ${CMAKE_CURRENT_SOURCE_DIR}/report/check_summary_html.cmake)
set_tests_properties(report.summary-html-screenshot PROPERTIES
  SKIP_REGULAR_EXPRESSION "SKIP: chromium")

set_tests_properties(report.plot-writes-six-files report.summary-text-markdown report.summary-html-screenshot
  PROPERTIES LABELS "report${_shared_labels}" TIMEOUT 180)

# Partitioned results (kind: partitioned) mixed with the overlap fixtures:
# summary shows their table, plot and compare skip them with a reason,
# envelope and the metrics report read r_partitioned (no MPI).
add_test(NAME report.partitioned-results
  COMMAND ${CMAKE_COMMAND} -DDRIVER=${_report_driver} -DFIXTURES=${_report_fixtures}
          -DPARTITIONED=${CMAKE_CURRENT_SOURCE_DIR}/data/partitioned-results -DOUT=${_report_out}/partitioned
          -P ${CMAKE_CURRENT_SOURCE_DIR}/report/check_partitioned_results.cmake)
set_tests_properties(report.partitioned-results PROPERTIES LABELS "report${_shared_labels};partitioned" TIMEOUT 180)

# The conformance table of `nbcguard summary`: one column per library run,
# one row per check (passed, +known failures, FAIL, skipped), and each
# failure with its message, from two conformance.json fixtures.
add_test(NAME report.summary-conformance
  COMMAND ${_report_driver} summary ${PROJECT_SOURCE_DIR}/tests/data/conformance)
set_tests_properties(report.summary-conformance PROPERTIES LABELS "report${_shared_labels};conformance" TIMEOUT 60
  PASS_REGULAR_EXPRESSION "check +MPICH Version: 4.0.2 quick n4 +Open MPI v4.1.4 quick n4\n +igather +2 \\+1 known +1\n +iscan +0 1 FAIL +-\n +large_count +- +0 1 skip\n.*conformance failures:\n +MPICH Version: 4.0.2 quick n4: iscan op=noncomm comm=world count=7: rank 2: repetition 0: receive buffer element 0 value 1: expected 5, got 7")
