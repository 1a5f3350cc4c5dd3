# Sourced by the launcher tests (slurm, netns). not_here REQUIRE_VAR MESSAGE:
# there is nothing to test with (no cluster, no namespaces): SKIP (exit 77)
# with the reason, or fail when the variable named REQUIRE_VAR is 1 (a CI
# job that started the cluster: a test meant to run there must not skip).
not_here() {
  local require=$1; shift
  if [ "${!require:-0}" = 1 ]; then
    echo "FAIL ($require=1): $*"
    exit 1
  fi
  echo "SKIP: $*"
  exit 77
}

# run_decided CMD...: runs CMD (an `nbcguard run`) and runs it again while it
# exits 5, INCONCLUSIVE (a validity gate refused points: a disturbed machine
# or ranks computing unequally), at most 3 times in all, as a user would
# measure again. Calls the function before_run, when the caller defines one,
# before each attempt. Returns the last exit code; `attempts` holds how many.
run_decided() {
  local rc
  attempts=0
  while :; do
    attempts=$((attempts + 1))
    if declare -F before_run > /dev/null; then before_run; fi
    "$@"
    rc=$?
    [ $rc -eq 5 ] && [ $attempts -lt 3 ] || return $rc
    echo "attempt $attempts was INCONCLUSIVE; measuring again"
  done
}
