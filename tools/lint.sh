#!/usr/bin/env bash
# Lint of the C++ sources: clang-format (.clang-format) and clang-tidy
# (.clang-tidy, with the compile commands of a configured build).
#   bash tools/lint.sh [--format-only | --tidy-only] [--report] [--preset P] [-p BUILD_DIR] [FILE...]
# FILE...: the files to check (default: every tracked .cc and .h file).
# clang-tidy runs on the .cc files among them that BUILD_DIR compiles
# (default build/lint-P, P default mpich; configured with `cmake --preset P -B
# BUILD_DIR -DNBCGUARD_UNITY_BUILD=OFF` when it has no
# compile_commands.json yet: configuring is enough, nothing is built; a
# unity build's directory is refused);
# headers are checked through the files that include them.
# --report: print what each tool would change or finds (files and lines
# the formatter would change; clang-tidy findings by check, then each
# one) and exit 0 whatever was found.
# Exit code: 0 clean, 1 a finding, 2 a usage or tool error.
# LINT_JOBS: parallel clang-tidy processes (default 2). LINT_BATCH: most
# files in one clang-tidy unit (default 32; 1: each file alone, as the
# compiler sees it; the same findings either way).
set -uo pipefail
cd "$(dirname "$0")/.."

format=1 tidy=1 report=0 preset=mpich build="" files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --format-only) tidy=0 ;;
    --tidy-only) format=0 ;;
    --report) report=1 ;;
    -p) build=${2:?-p needs a build directory}; shift ;;
    --preset) preset=${2:?--preset needs a configure preset}; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "lint: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1") ;;
  esac
  shift
done
build=${build:-build/lint-$preset}
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(git ls-files '*.cc' '*.h')
fi
for tool in clang-format clang-tidy; do
  command -v "$tool" >/dev/null || { echo "lint: $tool not found (apt-get install $tool)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

if [ $format -eq 1 ]; then
  changed_files=0 changed_lines=0
  # One clang-format process formats copies of all the files (a process
  # per file took 34 s for 248 files here); each copy is then compared with
  # its original.
  mkdir -p "$tmp/formatted" && cp --parents "${files[@]}" "$tmp/formatted/" || exit 2
  (cd "$tmp/formatted" && clang-format --style="file:$OLDPWD/.clang-format" -i "${files[@]}") || { echo "lint: clang-format failed" >&2; exit 2; }
  for f in "${files[@]}"; do
    # Lines of the file the formatter would replace (diff's removed lines).
    n=$(diff -U0 "$f" "$tmp/formatted/$f" | grep -c '^-[^-]')
    if [ "$n" -gt 0 ]; then
      changed_files=$((changed_files + 1)) changed_lines=$((changed_lines + n))
      [ $report -eq 1 ] || clang-format --style=file --dry-run "$f" 2>&1 | head -20
    fi
  done
  echo "lint: clang-format would change $changed_lines line(s) in $changed_files of ${#files[@]} file(s)"
  [ $changed_files -eq 0 ] || status=1
fi

if [ $tidy -eq 1 ]; then
  if [ ! -f "$build/compile_commands.json" ]; then
    echo "lint: configuring $build (cmake --preset $preset) for its compile_commands.json"
    cmake --preset "$preset" -B "$build" -DNBCGUARD_UNITY_BUILD=OFF >"$tmp/configure.log" 2>&1 ||
      { cat "$tmp/configure.log"; exit 2; }
  fi
  # A unity build's compile commands name its batches, not the files.
  if grep -q '"file": *"[^"]*/Unity/unity_[^"]*"' "$build/compile_commands.json"; then
    echo "lint: $build is a unity build (its compile commands name batches, not files);" \
         "configure it with -DNBCGUARD_UNITY_BUILD=OFF or give another directory with -p" >&2
    exit 2
  fi
  # The .cc files the build compiles, of those asked for.
  grep -o '"file": *"[^"]*"' "$build/compile_commands.json" | sed 's/.*"\([^"]*\)"$/\1/' | sort -u >"$tmp/compiled"
  units=()
  for f in "${files[@]}"; do
    case "$f" in *.cc) grep -qxF "$PWD/$f" "$tmp/compiled" && units+=("$f") ;; esac
  done
  # Units of up to LINT_BATCH files of one target compiled with the same
  # flags (tools/lint-batches.py): clang-tidy's time goes mostly to what a
  # unit includes, so a batch costs little more than one of its files. A
  # batch that does not compile as one unit (two files defining the same
  # file-local name) is checked again file by file, with a line saying so.
  # --config-file: a batch source lies outside the tree, where clang-tidy
  # would not find .clang-tidy. -Wno-unknown-warning-option: the build's
  # GCC-only warning flags.
  mkdir -p "$tmp/units"
  # Only files under .clang-tidy's HeaderFilterRegex are batched: an
  # included file's findings are reported only there.
  header_filter=$(sed -n "s/^HeaderFilterRegex: *'\(.*\)' *$/\1/p" .clang-tidy)
  python3 tools/lint-batches.py "$build" "$tmp/units" "${LINT_BATCH:-32}" --header-filter "${header_filter:-^$}" \
    "${units[@]/#/$PWD/}" >"$tmp/units.tsv" || exit 2
  tidy_unit() {  # tidy_unit DATABASE_DIR OUTPUT UNIT: one clang-tidy run, its output and errors beside OUTPUT
    clang-tidy -p "$1" --config-file=.clang-tidy --quiet --extra-arg=-Wno-unknown-warning-option "$3" >"$2.out" 2>"$2.err"
  }
  export -f tidy_unit
  run_units() {  # run_units DATABASE_DIR < "OUTPUT UNIT" lines: LINT_JOBS at once, one unit each
    tr '\n' '\0' | xargs -0 -r -n 1 -P "${LINT_JOBS:-2}" bash -c 'tidy_unit "$0" ${1%% *} "${1#* }"' "$1"
  }
  # Largest units first (by files checked): two at a time in file order, a
  # batch of 20 files started last kept one core busy alone at the end.
  awk -F'\t' -v d="$tmp/units" '{ print split($2, m, " ") "\t" d "/u" NR " " $1 }' "$tmp/units.tsv" |
    sort -t$'\t' -k1,1nr -s | cut -f2- | run_units "$tmp/units"
  : >"$tmp/tidy.out"
  : >"$tmp/tidy.err"
  n=0
  while IFS=$'\t' read -r unit members; do
    n=$((n + 1))
    out="$tmp/units/u$n"
    if [ "$unit" != "$members" ] && grep -q '\[clang-diagnostic-error\]$' "$out.out"; then
      echo "lint: ${members//$PWD\//} do not compile as one unit (a file-local name defined twice?): checked one by one"
      i=0
      for m in $members; do i=$((i + 1)); echo "$out.$i $m"; done | run_units "$build"
      i=0
      for m in $members; do i=$((i + 1)); cat "$out.$i.out" >>"$tmp/tidy.out"; cat "$out.$i.err" >>"$tmp/tidy.err"; done
    else
      # Without the batch source's own findings (bugprone-suspicious-include on its #include lines).
      awk -v b="$tmp/units/" '/^\/.*: (warning|error|note): / { skip = index($0, b) == 1 } !skip' "$out.out" >>"$tmp/tidy.out"
      cat "$out.err" >>"$tmp/tidy.err"
    fi
  done <"$tmp/units.tsv"
  # One line per finding (a header's finding comes once per file including it).
  grep -E '^/.*: (warning|error): .*\[[a-z0-9.,-]+\]$' "$tmp/tidy.out" | sed "s|^$PWD/||" | sort -u >"$tmp/findings"
  findings=$(wc -l <"$tmp/findings")
  echo "lint: clang-tidy: $findings finding(s) in ${#units[@]} compiled file(s)"
  if [ "$findings" -gt 0 ]; then
    sed 's/.*\[\([a-z0-9.,-]*\)\]$/\1/' "$tmp/findings" | sort | uniq -c | sort -rn
    if [ $report -eq 1 ]; then cat "$tmp/findings"; else cat "$tmp/tidy.out"; fi
    status=1
  fi
  if grep -q 'error:' "$tmp/tidy.err"; then
    cat "$tmp/tidy.err" >&2
    status=1
  fi
fi

[ $report -eq 1 ] && exit 0
exit $status
