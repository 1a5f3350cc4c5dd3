#!/usr/bin/env bash
# nbcguard history from the command line, on one database (an SQLite path
# or a PostgreSQL URL): a run is stored once; bad or partial input is
# refused by name without touching what is stored; runs ingested at the
# same moment are all stored; check reads them; plot draws every series.
# Each step prints what it checked; the first failure ends the test with
# exit 1.
#   check_history_cli.sh DRIVER DB DATA_DIR WORK_DIR PNG_CHECK
set -uo pipefail
driver=$1 db=$2 data=$3 work=$4 png_check=$5

fail() { echo "FAIL: $*"; exit 1; }
runs() { "$driver" history runs --db "$db" | tail -n 1 | sed -E 's/^history: ([0-9]+) run.*/\1/'; }

rm -rf "$work" && mkdir -p "$work"
case "$db" in  # start from an empty history
  postgres*) psql -q "$db" -c "DROP TABLE IF EXISTS nbcguard_observations, nbcguard_runs, nbcguard_history_schema" ||
               fail "cannot empty the PostgreSQL history $db" ;;
  *) rm -f "$db" "$db-wal" "$db-shm" ;;
esac
good=$data/compare/baseline  # two tests' results.json of one library

out=$("$driver" history ingest "$good" --db "$db" --system ci-node --revision abc123 --date 2026-10-01 2>&1) ||
  fail "ingest of $good exited $?: $out"
echo "$out"
grep -q "stored run .* (2026-10-01T00:00:00Z, system ci-node, .* revision abc123): 2 test(s)" <<<"$out" ||
  fail "the ingest did not report the run it stored"
[ "$(runs)" = 1 ] || fail "expected 1 run stored, found $(runs)"

out=$("$driver" history ingest "$good" --db "$db" --date 2026-10-02 2>&1) || fail "a second ingest of the same run exited $?"
grep -q "is already stored" <<<"$out" || fail "the same run was not recognised: $out"
[ "$(runs)" = 1 ] || fail "the same run was stored twice"
echo "ok: the same run is stored once"

# A run directory with one torn results.json: refused whole, by name.
mkdir -p "$work/torn/a" "$work/torn/b"
cp "$good/ibcast/n2/basic/results.json" "$work/torn/a/results.json"
head -c 500 "$good/ireduce/n2/basic/results.json" > "$work/torn/b/results.json"
out=$("$driver" history ingest "$work/torn" --db "$db" 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "a run with a torn results.json exited $rc, expected 2: $out"
grep -q "refused $work/torn: 1 results.json file(s) not readable" <<<"$out" || fail "no refusal naming it: $out"
grep -q "torn/b/results.json" <<<"$out" || fail "the torn file is not named: $out"
[ "$(runs)" = 1 ] || fail "the refused run changed the history"
echo "ok: a torn results.json refuses the run, nothing stored"

# Two jobs of one test in one run directory (a known-answer test that
# measured again in job2/): refused by name, not by the database's key.
mkdir -p "$work/twice/job2"
cp -r "$good/." "$work/twice/"
cp -r "$good/ibcast" "$work/twice/job2/"
out=$("$driver" history ingest "$work/twice" --db "$db" 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "a run with two jobs of one test exited $rc, expected 2: $out"
grep -q "are results of the same test (.*ibcast.n2.basic): a run holds one job of each test" <<<"$out" ||
  fail "no refusal naming the test: $out"
grep -q "twice/job2/ibcast/n2/basic/results.json" <<<"$out" || fail "the second job's file is not named: $out"
[ "$(runs)" = 1 ] || fail "the refused run changed the history"
echo "ok: two jobs of one test refuse the run, nothing stored"

# A run that did not complete (the harness failed): refused.
mkdir -p "$work/partial"
cp "$data/raw/ibcast-fault/results.json" "$work/partial/results.json"
out=$("$driver" history ingest "$work/partial" --db "$db" 2>&1)
[ $? -eq 2 ] && grep -q "did not complete" <<<"$out" || fail "an incomplete run was not refused: $out"
[ "$(runs)" = 1 ] || fail "the incomplete run changed the history"
echo "ok: an incomplete run is refused"

out=$("$driver" history ingest "$good" --db "$db" --date yesterday 2>&1)
[ $? -eq 2 ] && grep -q "allowed: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ" <<<"$out" || fail "a bad --date was not refused: $out"

# Four runs ingested at once (copies that differ by a byte): all stored.
pids=()
for i in 1 2 3 4; do
  mkdir -p "$work/copy$i"
  cp -r "$good/." "$work/copy$i/"
  printf '%*s' "$i" '' >> "$work/copy$i/ibcast/n2/basic/results.json"
  "$driver" history ingest "$work/copy$i" --db "$db" --date "2026-10-1$i" > "$work/ingest$i.log" 2>&1 &
  pids+=($!)
done
for i in 1 2 3 4; do
  wait "${pids[$((i - 1))]}" || fail "concurrent ingest $i exited $?: $(cat "$work/ingest$i.log")"
done
[ "$(runs)" = 5 ] || fail "expected 5 runs after 4 concurrent ingests, found $(runs)"
echo "ok: 4 concurrent ingests, 5 runs stored"

out=$("$driver" history check --db "$db" --json "$work/check.json" 2>&1)
rc=$?
echo "$out" | tail -n 2
[ $rc -eq 0 ] || fail "check of 5 nights exited $rc"
grep -q "over 5 run(s)" <<<"$out" || fail "check did not read the 5 runs"
grep -q '"schema": "nbcguard-history-check/1"' "$work/check.json" || fail "no JSON report"
# compare with the history: the between-run spread is loaded and named;
# 4 nights of this system are too few to use it (6 needed), so the
# fixtures' 3 regressions stand. A history that cannot be read is an error,
# never a comparison without it.
out=$("$driver" compare "$good" "$data/compare/run" --history "$db" 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "compare --history exited $rc, expected 1 (regressions): $out"
grep -q "run(s) of system .*, between-run spread of [0-9]* series; a change must also exceed the spread between runs where a series has 6 nights or more" <<<"$out" ||
  fail "compare did not say which history it used: $out"
grep -q "summary: REGRESSION: 3 regression(s)" <<<"$out" || fail "the regressions changed: $out"
out=$("$driver" compare "$good" "$data/compare/run" --history "postgresql://nobody@/nbcguard_none?host=$work/none" 2>&1)
rc=$?
[ $rc -eq 2 ] && grep -q "^nbcguard compare: history: " <<<"$out" || fail "an unreadable history was not an error (exit $rc): $out"
# run: the limits' verdicts use the same spreads; a history that cannot be
# read ends the run before anything is launched.
out=$("$driver" run "$data/../../cases/ibcast.yaml" --history "postgresql://nobody@/nbcguard_none?host=$work/none" 2>&1)
rc=$?
[ $rc -eq 2 ] && grep -q "^nbcguard run: history: " <<<"$out" || fail "run with an unreadable history was not an error (exit $rc): $out"
grep -q "^nbcguard: ibcast on" <<<"$out" && fail "run measured although its history could not be read: $out"
echo "ok: compare --history names the history; an unreadable one is an error, for compare and for run"
# plot: one PNG and one SVG per series, each a real picture, and an index
# listing them all; no history, no pictures.
out=$("$driver" history plot --db "$db" --out "$work/trends" 2>&1) || fail "history plot exited $?: $out"
echo "$out"
series=$(sed -nE 's/^history plot: ([0-9]+) series from 5 run\(s\) drawn into .*index.html$/\1/p' <<<"$out")
[ -n "$series" ] && [ "$series" -gt 0 ] || fail "history plot did not say how many series it drew"
[ "$(find "$work/trends" -name '*.png' | wc -l)" = "$series" ] || fail "not one PNG per series"
[ "$(find "$work/trends" -name '*.svg' | wc -l)" = "$series" ] || fail "not one SVG per series"
[ "$(grep -o '<img src=' "$work/trends/index.html" | wc -l)" = "$series" ] || fail "index.html does not show every series"
for png in "$work"/trends/*.png; do
  "$png_check" "$png" --size 780x340 > /dev/null || fail "$png is not a 780x340 picture"
done
head -c 200 "$(find "$work/trends" -name '*.svg' | head -n 1)" | grep -q "<svg" || fail "the SVG is not one"
out=$("$driver" history plot --db "$db" --library none --out "$work/trends-none" 2>&1)
[ $? -eq 2 ] && grep -q "no runs stored" <<<"$out" || fail "plot of an empty selection did not refuse: $out"
echo "ok: history plot drew $series series as PNG and SVG with an index"
# The HTML summary with the trends: the section and its link; a directory
# without trends.json is refused by name. On a copy: the summary draws the
# heat-maps beside each results.json.
cp -r "$good" "$work/run"
out=$("$driver" summary "$work/run" --format html --output "$work/summary.html" --trends "$work/trends" 2>&1) ||
  fail "summary --trends exited $?: $out"
grep -q '<h2>Trends over nights</h2>' "$work/summary.html" || fail "the summary has no trends section"
grep -q "href=\"trends/index.html\"" "$work/summary.html" || fail "the summary does not link every series"
out=$("$driver" summary "$work/run" --format html --output "$work/summary2.html" --trends "$work/torn" 2>&1)
[ $? -eq 2 ] && grep -q "no readable trends.json" <<<"$out" || fail "a directory without trends was not refused: $out"
echo "ok: the HTML summary shows the trends section"
# Without --system and NBCGUARD_SYSTEM, the system the run recorded
# (results.json "system", as `run --history` looks it up); two systems in
# one run directory are refused.
mkdir -p "$work/recorded" && cp -r "$good"/. "$work/recorded/"
for f in "$work"/recorded/*/n2/basic/results.json; do sed -i '0,/{/s//{"system": "lab-a",/' "$f"; done
out=$(env -u NBCGUARD_SYSTEM "$driver" history ingest "$work/recorded" --db "$db" --date 2026-11-03 2>&1) ||
  fail "ingest of $work/recorded exited $?: $out"
grep -q "stored run .* system lab-a," <<<"$out" || fail "the run's recorded system was not used: $out"
sed -i 's/"system": "lab-a"/"system": "lab-b"/' "$work"/recorded/ireduce/n2/basic/results.json
out=$(env -u NBCGUARD_SYSTEM "$driver" history ingest "$work/recorded" --db "$db" --date 2026-11-04 2>&1) &&
  fail "a run naming two systems was stored: $out"
grep -q "its results name several systems (lab-a, lab-b); give --system" <<<"$out" || fail "not refused by name: $out"
n=$(runs)
"$driver" history ingest "$work/recorded" --db "$db" --system lab-a --date 2026-11-04 >/dev/null 2>&1 ||
  fail "the same run with --system was refused"
[ "$(runs)" = $((n + 1)) ] || fail "--system did not decide between the two"
echo "ok: a run is filed under the system it recorded; two systems are refused"

# A point the first job refused that the run's confirmation job measured
# cleanly (confirm/confirmation.json beside results.json, wherever the run
# was written): the night holds that job's values. A confirmation job the
# results say ran but whose results are gone refuses the run by name.
later=$work/later/ibcast/n2/basic
mkdir -p "$later/confirm" "$work/first-only/ibcast/n2/basic"
python3 - "$good/ibcast/n2/basic/results.json" "$later" "$work/first-only/ibcast/n2/basic" <<'EOF' ||
import json, sys
src, later, alone = sys.argv[1:4]
first = json.load(open(src))
first["points"][0]["valid"] = False
first["points"][0]["invalid_reason"] = "the machine was disturbed during the point (test)"
json.dump(first, open(alone + "/results.json", "w"))  # the same first job, no confirmation
first["confirmation"] = {"points": 1, "results": "/elsewhere/ibcast/n2/basic/confirm/confirmation.json"}
json.dump(first, open(later + "/results.json", "w"))
json.dump(json.load(open(src)), open(later + "/confirm/confirmation.json", "w"))
EOF
  fail "cannot write the confirmation fixture"
refused_of() { sed -nE 's/.* value\(s\), ([0-9]+) of them refused points.*/\1/p' <<<"$1"; }
n=$(runs)
out=$("$driver" history ingest "$work/first-only" --db "$db" --date 2026-11-05 2>&1) || fail "ingest of $work/first-only exited $?: $out"
alone=$(refused_of "$out")
out=$("$driver" history ingest "$work/later" --db "$db" --date 2026-11-06 2>&1) || fail "ingest of $work/later exited $?: $out"
echo "$out"
grep -q ", 3 measured by a later job of the run where the first refused the point" <<<"$out" ||
  fail "the confirmation job's values did not stand for the refused point: $out"
[ -n "$alone" ] && [ "$(refused_of "$out")" = $((alone - 3)) ] ||
  fail "refused values: $alone without the confirmation job, $(refused_of "$out") with it (expected 3 fewer)"
[ "$(runs)" = $((n + 2)) ] || fail "expected $((n + 2)) runs, found $(runs)"
rm "$later/confirm/confirmation.json"
printf ' ' >> "$later/results.json"  # another run, so that it is not 'already stored'
out=$("$driver" history ingest "$work/later" --db "$db" --date 2026-11-07 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "a run whose confirmation job left no results exited $rc, expected 2: $out"
grep -q "says job 2 of its run measured again into .*, but .*later/ibcast/n2/basic/confirm/confirmation.json cannot be used" <<<"$out" ||
  fail "the refusal does not name the missing job: $out"
[ "$(runs)" = $((n + 2)) ] || fail "the refused run changed the history"
echo "ok: a later job's clean measurement stands for a point the first job refused; its loss refuses the run"

echo "PASS: history ingest and check on $db"
