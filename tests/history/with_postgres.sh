#!/usr/bin/env bash
# Runs a command with NBCGUARD_TEST_POSTGRES_URL set to the URL of the
# server tools/postgres-server.sh started (the CTest fixture postgres), and
# NBCGUARD_REQUIRE_POSTGRES=1: a test that meant to use it must not skip.
# "@PG_URL@" among the arguments is replaced by the URL too.
#   with_postgres.sh TOOLS_DIR COMMAND...
set -uo pipefail
tools=$1
shift
url=$(bash "$tools/postgres-server.sh" url) || { echo "FAIL: no PostgreSQL server running (the fixture postgres)"; exit 1; }
export NBCGUARD_TEST_POSTGRES_URL=$url NBCGUARD_REQUIRE_POSTGRES=1
args=()
for a in "$@"; do args+=("${a//@PG_URL@/"$url"}"); done  # quoted: no & substitution
exec "${args[@]}"
