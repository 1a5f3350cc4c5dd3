#!/usr/bin/env bash
# A small cluster on this machine: each "host" a Linux network namespace
# with its own hostname, linked to one bridge by a veth pair whose both ends
# are limited by tc tbf, so MPI ranks started one per namespace talk TCP
# over a bandwidth-limited link instead of shared memory.
#
#   bash tools/netns-cluster.sh start    # namespaces, bridge, links; waits until every host answers
#   bash tools/netns-cluster.sh status   # exit 3 when not started
#   bash tools/netns-cluster.sh stop     # removes everything start made
#
# Settings (environment, read by start):
#   NBCGUARD_NETNS_HOSTS   hosts (namespaces), 2-16; default 2
#   NBCGUARD_NETNS_RATE    tc tbf rate of every link end; default 1gbit
#   NBCGUARD_NETNS_SUBNET  first three octets of the /24; default 10.213.0
# Host i (0-based) is namespace nbcg-h<i>, hostname nbcg-h<i>, address
# <subnet>.<i+1> on interface nbcgnet; the bridge nbcg-br holds <subnet>.254
# in this (the launcher's) namespace, so mpiexec's daemons reach it.
# tools/netns-agent.sh is the launcher's remote shell into a host.
# The state (hosts file, settings) is in NBCGUARD_NETNS_DIR, default
# /var/tmp/nbcguard-netns. Traffic stays in the namespaces and the bridge:
# nothing is routed or forwarded beyond them.
set -euo pipefail
dir=${NBCGUARD_NETNS_DIR:-/var/tmp/nbcguard-netns}
bridge=nbcg-br

die() { echo "netns-cluster: $*" >&2; exit 1; }

hosts_made() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^nbcg-h[0-9]+$' || true; }

links_made() { ip -o link show 2>/dev/null | sed -n 's/^[0-9]*: \(nbcg-v[0-9]*\)[@:].*/\1/p'; }

stop() {
  local ns link
  # The links first: a namespace's end would go with the namespace, but
  # only later (namespaces are cleaned up asynchronously), and a start right
  # after would find the names taken.
  for link in $(links_made); do ip link delete "$link" 2>/dev/null || true; done
  for ns in $(hosts_made); do ip netns delete "$ns" 2>/dev/null || true; done
  if ip link show "$bridge" >/dev/null 2>&1; then ip link delete "$bridge"; fi
  local deadline=$((SECONDS + 10))
  while [ -n "$(links_made)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  rm -rf "$dir"
  return 0
}

status() {
  [ -f "$dir/hosts" ] || { echo "netns-cluster: not started"; return 3; }
  echo "netns-cluster: hosts $(tr '\n' ' ' < "$dir/hosts")(rate $(cat "$dir/rate"))"
  local i=0 ip
  while read -r ip; do
    ip netns exec "nbcg-h$i" ip -brief addr show nbcgnet
    i=$((i + 1))
  done < "$dir/hosts"
}

start() {
  local n=${NBCGUARD_NETNS_HOSTS:-2} rate=${NBCGUARD_NETNS_RATE:-1gbit} net=${NBCGUARD_NETNS_SUBNET:-10.213.0}
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] && [ "$n" -le 16 ] ||
    die "NBCGUARD_NETNS_HOSTS is '$n'; allowed: 2 to 16"
  [[ "$net" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] ||
    die "NBCGUARD_NETNS_SUBNET is '$net'; allowed: three octets, e.g. 10.213.0"
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, links, tc)"
  command -v ip >/dev/null && command -v tc >/dev/null || die "needs ip and tc (Debian's iproute2)"
  command -v ping >/dev/null || die "needs ping (Debian's iputils-ping) to see the hosts reach each other"
  if [ -n "$(hosts_made)" ] || ip link show "$bridge" >/dev/null 2>&1; then
    echo "netns-cluster: a cluster is there already; stopping it first"
    stop
  fi
  mkdir -p "$dir"
  # Anything that fails from here leaves nothing behind.
  trap 'echo "netns-cluster: start failed; removing what it made" >&2; stop' ERR
  ip link add "$bridge" type bridge
  ip addr add "$net.254/24" dev "$bridge"
  ip link set "$bridge" up
  : > "$dir/hosts"
  local i ns peer
  for ((i = 0; i < n; i++)); do
    ns=nbcg-h$i peer=nbcg-v$i
    ip netns add "$ns"
    ip link add "$peer" type veth peer name nbcgnet netns "$ns"
    ip link set "$peer" master "$bridge" up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$net.$((i + 1))/24" dev nbcgnet
    ip -n "$ns" link set nbcgnet up
    # Both directions limited: egress of the bridge side feeds the host,
    # egress of the host side feeds the bridge. The bucket is small (32 KiB,
    # larger GSO packets are segmented to fit): one that holds a whole
    # message lets it pass at memory speed after any pause, so timings
    # depend on the gaps between messages (with 512 KiB, a 163 KB broadcast
    # calibrated back to back to 1 ms then took 94 us in the measurement).
    tc qdisc add dev "$peer" root tbf rate "$rate" burst 32kb latency 50ms
    ip netns exec "$ns" tc qdisc add dev nbcgnet root tbf rate "$rate" burst 32kb latency 50ms
    echo "$net.$((i + 1))" >> "$dir/hosts"
  done
  echo "$rate" > "$dir/rate"
  trap - ERR
  # Ready when every host reaches the bridge and host 0 (a bridge port
  # forwards only after it has come up).
  local deadline=$((SECONDS + 20)) ok
  while :; do
    ok=1
    for ((i = 0; i < n; i++)); do
      ip netns exec "nbcg-h$i" ping -c 1 -W 1 "$net.254" >/dev/null 2>&1 || ok=0
      ip netns exec "nbcg-h$i" ping -c 1 -W 1 "$net.1" >/dev/null 2>&1 || ok=0
    done
    [ $ok -eq 1 ] && break
    if [ $SECONDS -ge $deadline ]; then
      stop
      die "hosts do not reach each other after 20 s"
    fi
    sleep 0.5
  done
  echo "netns-cluster: $n hosts up: $(tr '\n' ' ' < "$dir/hosts")(links limited to $rate each way)"
}

case "${1:-}" in
  start) start ;;
  stop) stop; echo "netns-cluster: stopped" ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
