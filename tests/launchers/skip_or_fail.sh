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
