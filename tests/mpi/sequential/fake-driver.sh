#!/usr/bin/env bash
# Stands in for `nbcguard run CASE --config C --out DIR`: writes an empty
# results.json where check_reference.cmake looks for one.
while [ $# -gt 0 ]; do
  [ "$1" = --out ] && out=$2
  shift
done
mkdir -p "${out:?}/ref/n2/basic" && echo '{}' > "$out/ref/n2/basic/results.json"
echo "fake run into $out"
