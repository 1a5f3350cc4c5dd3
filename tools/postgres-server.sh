#!/usr/bin/env bash
# A PostgreSQL server on this machine for the results history's tests (and
# for trying `nbcguard history --db postgresql://...`), from Debian's
# postgresql package, listening on a Unix socket only:
#   bash tools/postgres-server.sh start    initdb (first time), start, create database nbcguard; prints the URL
#   bash tools/postgres-server.sh url      the connection URL (exit 3 when not running)
#   bash tools/postgres-server.sh stop     stops the server, removes its directory
# start and stop are idempotent. Everything lives in one directory
# (NBCGUARD_PG_DIR, default /var/tmp/nbcguard-pg): the cluster's data, its
# socket and its log; port NBCGUARD_PG_PORT (default 54329) names the
# socket, no TCP port is opened. As root the server runs as the postgres
# user (PostgreSQL refuses root); otherwise as the caller. Local trust
# authentication: a test server, never a site's.
set -uo pipefail

dir=${NBCGUARD_PG_DIR:-/var/tmp/nbcguard-pg}
port=${NBCGUARD_PG_PORT:-54329}
data=$dir/data
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

die() { echo "postgres-server: $*" >&2; exit 1; }
say() { echo "postgres-server: $*"; }

[ -n "$bin" ] && [ -x "$bin/pg_ctl" ] || die "no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql)"

user=$(id -un)
as_owner() {  # runs a server program as the owner of the data directory
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" -eq 0 ] && user=postgres

url() { echo "postgresql:///nbcguard?host=$dir&port=$port&user=$user"; }
running() { as_owner "$bin/pg_ctl" -D "$data" status > /dev/null 2>&1; }

case "${1:-}" in
  start)
    if [ -d "$data" ] && running; then
      say "already running"
      url
      exit 0
    fi
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    if [ ! -f "$data/PG_VERSION" ]; then
      as_owner "$bin/initdb" -D "$data" --auth=trust --username="$user" --encoding=UTF8 --no-instructions \
        > "$dir/initdb.log" 2>&1 || die "initdb failed: $(tail -n 3 "$dir/initdb.log")"
    fi
    as_owner "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
      -o "-k $dir -p $port -c listen_addresses= -c fsync=on" start > /dev/null \
      || die "the server did not start: $(tail -n 5 "$dir/server.log")"
    if ! as_owner "$bin/psql" -h "$dir" -p "$port" -U "$user" -d postgres -tAc \
         "SELECT 1 FROM pg_database WHERE datname = 'nbcguard'" 2>/dev/null | grep -q 1; then
      as_owner "$bin/createdb" -h "$dir" -p "$port" -U "$user" nbcguard || die "createdb nbcguard failed"
    fi
    say "running ($("$bin/postgres" --version)), socket in $dir, port $port"
    url
    ;;
  url)
    [ -d "$data" ] && running || { echo "postgres-server: not running" >&2; exit 3; }
    url
    ;;
  stop)
    if [ -d "$data" ] && running; then
      as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop > /dev/null || die "pg_ctl stop failed"
      say "stopped"
    fi
    rm -rf "$dir"
    say "removed $dir"
    ;;
  *)
    die "usage: postgres-server.sh start | url | stop"
    ;;
esac
