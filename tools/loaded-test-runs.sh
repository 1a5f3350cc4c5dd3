#!/usr/bin/env bash
# The README's test command from clean clones, one after the other, with a
# fixed duty-cycle load beside each (tools/duty-load.sh: one process keeping
# one CPU SHARE busy, as on a shared CI runner). Shows whether a busy
# neighbour makes the test suite fail falsely, and names every test that
# ended INCONCLUSIVE and every point a validity gate refused or the
# machine-noise sentinel measured again, and every point flagged for rank
# imbalance.
#
#   bash tools/loaded-test-runs.sh RUNS OUT_DIR [SHARE [PERIOD_S]]    (default 0.3 of 0.1 s)
#
# Each run: git clone of this checkout's HEAD into OUT_DIR/run-N/<name>, then
# `tools/duty-load.sh run SHARE PERIOD_S -- bash .ci/run` there. Kept per
# run: OUT_DIR/run-N/ci.log and OUT_DIR/run-N/summary.txt; the build trees
# are removed after the summary is written (a run leaves several GB).
# Prints one line per run and a closing total. Exit code: 0 when every run
# passed, 1 otherwise, 2 on a usage error.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-}
out=${2:-}
share=${3:-0.3}
period=${4:-0.1}
[[ $runs =~ ^[1-9][0-9]*$ ]] && [ -n "$out" ] || { sed -n '9p' "$0" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd)
name=$(basename "$src")
failed_runs=0

summarize() {  # summarize RUN_DIR: what the run's log and results say
  local dir=$1 clone=$1/$name
  {
    grep -aE "^nbcguard: [0-9]+ passed" "$dir/ci.log" | tail -1
    grep -aE "^FAILED " "$dir/ci.log"
    # Every JUnit file the pipelines kept (test, slurm, netns, sanitize and
    # nightly jobs), as the closing line counts them.
    find "$clone/build/pipeline" -name junit.xml 2>/dev/null | sort | while read -r j; do
      (cd "$clone" && bash tools/inconclusive-tests.sh "$j") | sed "s|^|INCONCLUSIVE ${j#"$clone/build/pipeline/"}: |"
    done
    # Points refused or re-measured, from every results.json the pipelines kept.
    # (build/pipeline/baseline holds copies of the merge request's results.)
    find "$clone/build/pipeline" -path "$clone/build/pipeline/baseline" -prune -o -name results.json -print 2>/dev/null |
      sort | while read -r f; do
      python3 - "$f" "$clone/build/pipeline/" <<'EOF'
import json, sys
path, root = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"UNREADABLE {path[len(root):]}: {e}")
    sys.exit(0)
test = path[len(root):].rsplit("/", 1)[0]  # <mr|schedule>/<library>/results/<case>/n<ranks>/<deployment>
points = r.get("points") if isinstance(r.get("points"), list) else []
for p in points:
    where = f"{test} {p.get('comm_target', '?')} s x {p.get('comp_target', '?')} s"
    if p.get("valid") is False:
        print(f"REFUSED {where}: {p.get('invalid_reason', '?')}")
    s = p.get("sentinel") or {}
    redone = (s.get("redone_slow_probe") or 0) + (s.get("redone_foreign_wait") or 0)
    if redone:
        print(f"DISTURBED {where}: {redone} sample(s) measured again")
    if (p.get("imbalance") or {}).get("flagged"):
        print(f"IMBALANCE {where}: flagged, the ranks computed at different speeds")
EOF
    done
  } > "$dir/summary.txt"
}

for n in $(seq 1 "$runs"); do
  dir=$out/run-$n
  rm -rf "$dir" && mkdir -p "$dir"
  git clone -q "$src" "$dir/$name" || { echo "run $n: git clone failed" >&2; exit 2; }
  commit=$(git -C "$dir/$name" rev-parse --short HEAD)  # each run's own: HEAD may move between runs
  start=$(date +%s)
  (cd "$dir/$name" && bash tools/duty-load.sh run "$share" "$period" -- bash .ci/run) > "$dir/ci.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  summarize "$dir"
  [ $rc -eq 0 ] || failed_runs=$((failed_runs + 1))
  printf 'run %d of %d (%s, load %s of %ss): exit %d in %d min %02d s; %s; %d inconclusive, %d refused, %d disturbed, %d imbalanced point(s)\n' \
    "$n" "$runs" "$commit" "$share" "$period" "$rc" $((secs / 60)) $((secs % 60)) \
    "$(grep -m1 '^nbcguard:' "$dir/summary.txt" || echo 'no closing line')" \
    "$(grep -c '^INCONCLUSIVE' "$dir/summary.txt")" "$(grep -c '^REFUSED' "$dir/summary.txt")" \
    "$(grep -c '^DISTURBED' "$dir/summary.txt")" "$(grep -c '^IMBALANCE' "$dir/summary.txt")" | tee -a "$out/runs.txt"
  rm -rf "${dir:?}/$name/build"
done
echo "loaded-test-runs: $((runs - failed_runs)) of $runs run(s) passed; per run: $out/run-N/summary.txt" | tee -a "$out/runs.txt"
[ $failed_runs -eq 0 ]
