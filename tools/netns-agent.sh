#!/usr/bin/env bash
# The launcher's remote shell into a host of tools/netns-cluster.sh, in
# place of ssh: mpirun (plm_rsh_agent) and Hydra (-launcher ssh
# -launcher-exec) call it as `netns-agent.sh [-options] HOST COMMAND...`.
# HOST is a host's address (or its name, nbcg-h<i>); COMMAND runs in that
# host's network namespace, under its own hostname (a UTS namespace), with
# this process's environment, as a remote shell would run it: the words
# joined and given to sh -c.
set -euo pipefail
dir=${NBCGUARD_NETNS_DIR:-/var/tmp/nbcguard-netns}
while [ $# -gt 0 ] && [[ "$1" == -* ]]; do shift; done   # ssh options (-x ...)
[ $# -ge 2 ] || { echo "netns-agent: usage: $0 [-options] HOST COMMAND..." >&2; exit 255; }
host=$1; shift
ns=""
if [[ "$host" =~ ^nbcg-h[0-9]+$ ]]; then
  ns=$host
elif [ -f "$dir/hosts" ]; then
  i=$(grep -n -x -F "$host" "$dir/hosts" | cut -d: -f1 || true)
  [ -n "$i" ] && ns=nbcg-h$((i - 1))
fi
[ -n "$ns" ] || { echo "netns-agent: '$host' is not a host of the netns cluster (${dir}/hosts: $(tr '\n' ' ' 2>/dev/null < "$dir/hosts" || echo 'not started'))" >&2; exit 255; }
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$1"; shift; exec sh -c "$*"' agent "$ns" "$@"
