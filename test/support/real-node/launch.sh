#!/usr/bin/env bash
# Starts one process of a real-node slot (test/support/real-node/node.ts): joins the slot's pids
# cgroup (so teardown.sh finds and kills it, and every child it forks, by cgroup), lowers its
# priority, and enters the node's network and mount namespaces when a holder pid is given.
# usage: launch.sh SLOT HOLDER_PID|- COMMAND...
set -euo pipefail
slot=$1 holder=$2
shift 2
cg=/sys/fs/cgroup/pids/tinyhost-node-$slot-daemons
mkdir -p "$cg"
echo $$ >"$cg/cgroup.procs"
if [ "$holder" = - ]; then exec nice -n "${TINYHOST_NODE_NICE:-10}" "$@"; fi
exec nice -n "${TINYHOST_NODE_NICE:-10}" nsenter -t "$holder" -n -m -- "$@"
