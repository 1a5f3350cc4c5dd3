# nbcguard summary --format html, then the page in headless Chromium.
file(REMOVE_RECURSE "${OUT}")
file(COPY "${FIXTURES}/" DESTINATION "${OUT}/results")
set(html "${OUT}/summary/index.html")

execute_process(COMMAND "${DRIVER}" summary "${OUT}/results" --format html --output "${html}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT EXISTS "${html}")
  message(FATAL_ERROR "nbcguard summary --format html exited ${rc}")
endif()
file(READ "${html}" page)

# Every picture the page shows exists, relative to the page; three per test.
string(REGEX MATCHALL "<img src=\"[^\"]+\"" imgs "${page}")
list(LENGTH imgs n_imgs)
file(GLOB_RECURSE results "${OUT}/results/*/results.json")
list(LENGTH results n_results)
math(EXPR expected "3 * ${n_results}")
if(NOT n_imgs EQUAL expected)
  message(FATAL_ERROR "${n_imgs} <img> tags for ${n_results} tests, expected ${expected}")
endif()
foreach(tag IN LISTS imgs)
  string(REGEX REPLACE "<img src=\"([^\"]+)\"" "\\1" src "${tag}")
  if(src MATCHES "^(/|[a-z]+:)")
    message(FATAL_ERROR "picture path not relative to the page: ${src}")
  endif()
  if(NOT EXISTS "${OUT}/summary/${src}")
    message(FATAL_ERROR "the page shows ${src}, which does not exist")
  endif()
endforeach()
if(page MATCHES "<script")
  message(FATAL_ERROR "the summary must be a static page")
endif()
if(page MATCHES "<shared cores>" OR NOT page MATCHES "&lt;shared cores&gt;")
  message(FATAL_ERROR "a failure message was not HTML-escaped")
endif()
if(NOT page MATCHES "REFERENCE cpu-thief")
  message(FATAL_ERROR "the reference run is not marked")
endif()
# The points table shows the CPU-busy fractions beside the ratios (the
# synthetic 4x3 grid has them; the older fixtures show "-").
if(NOT page MATCHES "<th>cpu_busy_nbc</th><th>cpu_busy_blocking</th>" OR NOT page MATCHES ">1.95 <span class=\"muted\">\\[1.90, 1.99\\]")
  message(FATAL_ERROR "the CPU-busy fractions are not in the points table")
endif()
# The collective alone per point (the synthetic grid's 32ms row has it) and
# in the overview, at the largest communication target.
if(NOT page MATCHES "<th>collective alone</th><th>diagnosis</th>"
   OR NOT page MATCHES ">102MB in 32ms: 3.20GB/s <span class=\"muted\">\\[3.06GB/s, 3.30GB/s\\]"
   OR NOT page MATCHES "<td class=\"num\">102MB in 32ms: 3.20GB/s</td>")
  message(FATAL_ERROR "the collective's speed is not in the points table and the overview")
endif()

if(NOT CHROMIUM OR NOT EXISTS "${CHROMIUM}")
  message("SKIP: chromium was not found when CTest was configured ('${CHROMIUM}'; tools/install-deps.sh "
          "installs it, then re-run cmake)")
  return()
endif()
set(shot "${OUT}/summary/screenshot.png")
execute_process(COMMAND "${CHROMIUM}" --headless --no-sandbox --disable-gpu --hide-scrollbars
                        --user-data-dir=${OUT}/chromium-profile --screenshot=${shot} --window-size=1280,2000
                        "file://${html}"
                TIMEOUT 120 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT EXISTS "${shot}")
  message(FATAL_ERROR "chromium wrote no screenshot (exit ${rc}):\n${out}${err}")
endif()
file(SIZE "${shot}" size)
if(size LESS 50000)
  message(FATAL_ERROR "${shot}: only ${size} bytes, not a rendered page")
endif()
# The first test on the page is the 4x3 grid; its heat-maps are within the
# first 2000 pixels and show green, yellow and red cells.
execute_process(COMMAND "${CHECKER}" "${shot}" --size 1280x2000 --min good=3000 --min serial=3000 --min bad=3000
                RESULT_VARIABLE crc)
if(NOT crc EQUAL 0)
  message(FATAL_ERROR "the screenshot does not show the heat-maps")
endif()
message("screenshot: ${shot} (${size} bytes)")
