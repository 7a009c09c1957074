#!/usr/bin/env bash
# Removes everything a real-node slot (test/support/real-node/node.ts) left on this machine: its
# processes (daemons, containerd's shims, the pods' containers — found by cgroup), its cgroups in
# every hierarchy (the kubelet's kubepods tree under /tinyhost-node-SLOT), the host end of its veth,
# anything still mounted under its dirs, its dirs, and the CNI result cache of its network. The
# node's network namespace (bridge, routes, kube-proxy's iptables rules) and mount namespace
# (containerd's snapshots, the kubelet's volumes) vanish with the last process in them.
# usage: teardown.sh SLOT        — one slot (its lock must be held or free)
#        teardown.sh --stale     — every slot whose lock is free (its owner is gone)
set -uo pipefail
RUN=/run/tinyhost-node
DATA=/var/lib/tinyhost-node

if [ "${1:-}" = --stale ]; then
  for d in "$RUN"/slot-*.lock; do
    [ -e "$d" ] || continue
    s=${d#"$RUN"/slot-}
    s=${s%.lock}
    flock -n "$d" "$0" "$s" || true
  done
  exit 0
fi

slot=$1
cgroups() { find /sys/fs/cgroup/*/ -maxdepth 1 -type d \( -name "tinyhost-node-$slot" -o -name "tinyhost-node-$slot-daemons" \) 2>/dev/null; }
procs() {
  local d
  for d in $(cgroups); do find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null; done | sort -u
}
for _ in 1 2 3 4 5 6 7 8 9 10; do
  pids=$(procs)
  [ -z "$pids" ] && break
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null
  sleep 0.3
done
# Deepest first: a cgroup dir can only be removed once its children are.
for d in $(cgroups); do find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null; done
ip link delete "th-h$slot" 2>/dev/null
for dir in "$RUN/$slot" "$DATA/$slot"; do
  grep -F " $dir/" /proc/self/mountinfo | awk '{print $5}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  rm -rf "$dir"
done
rm -f /var/lib/cni/results/"tinyhost-$slot"-* 2>/dev/null
exit 0
