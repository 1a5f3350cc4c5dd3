#!/usr/bin/env bash
# tools/lint-batches.py on a made-up compile_commands.json: files of one
# target with the same flags are cut into batches of near-equal size, a
# file left alone keeps its own command, files of another target or with
# other flags, or outside the header filter, are never in the same batch, a batch source includes its files
# and is compiled with their flags, and a file the database does not hold is
# refused with exit 2.
#   bash check_lint_batches.sh <source dir> <scratch dir>
set -u
src=${1:?source dir}
work=${2:?scratch dir}
rm -rf "$work"
mkdir -p "$work/build" "$work/out"
entry() {  # entry TARGET FILE [FLAG]: one compile command as CMake writes it
  printf '{"directory": "%s/build", "command": "/usr/bin/c++ -Iinc %s -std=c++17 -o CMakeFiles/%s.dir/%s.o -c %s/%s", "file": "%s/%s"}' \
    "$work" "${3:-}" "$1" "$2" "$work" "$2" "$work" "$2"
}
{
  echo "["
  for f in a1 a2 a3 a4 a5 b1; do entry lib "$f.cc"; echo ","; done
  entry lib odd.cc -DODD; echo ","
  entry prog main.cc
  echo "]"
} >"$work/build/compile_commands.json"
files=()
for f in a1 a2 a3 a4 a5 b1 odd main; do files+=("$work/$f.cc"); done
fail=0
# b1 is outside the header filter: clang-tidy would drop its findings as an
# included file's, so it stays a unit of its own.
out=$(python3 "$src/tools/lint-batches.py" "$work/build" "$work/out" 2 --header-filter '/(a[0-9]|odd|main)\.cc$' "${files[@]}")
rc=$?
# lib's five files in three batches of near-equal size: the first is one
# file, which keeps its own command under its own name.
expected="$work/a1.cc	$work/a1.cc
$work/out/batch_001.cc	$work/a2.cc $work/a3.cc
$work/out/batch_002.cc	$work/a4.cc $work/a5.cc
$work/b1.cc	$work/b1.cc
$work/main.cc	$work/main.cc
$work/odd.cc	$work/odd.cc"
if [ $rc -ne 0 ]; then echo "FAIL: exit $rc"; fail=1; fi
if [ "$(sort <<<"$out")" != "$(sort <<<"$expected")" ]; then
  echo "FAIL: units"; diff <(sort <<<"$expected") <(sort <<<"$out"); fail=1
fi
batch=$(awk -F'\t' '$2 ~ / / && index($2, "a2.cc") { print $1 }' <<<"$out")
if [ -z "$batch" ] || [ "$(grep -c '^#include' "$batch" 2>/dev/null)" != 2 ] ||
   ! grep -qxF "#include \"$work/a2.cc\"" "$batch" || ! grep -qxF "#include \"$work/a3.cc\"" "$batch"; then
  echo "FAIL: the batch of a2 and a3 does not include exactly them"; fail=1
fi
db=$(python3 -c 'import json,sys; d={e["file"]: e for e in json.load(open(sys.argv[1]))}
b=d[sys.argv[2]]; print(" ".join(b["arguments"])); print(d[sys.argv[3]]["command"])' \
  "$work/out/compile_commands.json" "$batch" "$work/main.cc")
if [ "$(sed -n 1p <<<"$db")" != "/usr/bin/c++ -Iinc -std=c++17 -c $batch" ]; then
  echo "FAIL: the batch's command: $(sed -n 1p <<<"$db")"; fail=1
fi
if [ "$(sed -n 2p <<<"$db")" != "/usr/bin/c++ -Iinc  -std=c++17 -o CMakeFiles/prog.dir/main.cc.o -c $work/main.cc" ]; then
  echo "FAIL: a file alone must keep its command: $(sed -n 2p <<<"$db")"; fail=1
fi
err=$(python3 "$src/tools/lint-batches.py" "$work/build" "$work/out2" 2 "$work/a1.cc" "$work/missing.cc" 2>&1)
rc=$?
if [ $rc -ne 2 ] || ! grep -q "missing.cc: not in $work/build/compile_commands.json" <<<"$err"; then
  echo "FAIL: a file not compiled: exit $rc, '$err'"; fail=1
fi
[ $fail -eq 0 ] && echo "lint-batches: as expected"
exit $fail
