#!/usr/bin/env bash
# Builds a real kube-apiserver and etcd from Go modules into a cache dir outside the repo.
# Idempotent: does nothing when both binaries exist. The wrapper-module recipe is shared with
# scripts/build-node.sh in scripts/lib/k8s-build.sh.
set -euo pipefail

. "$(dirname "$0")/lib/k8s-build.sh"

KV=${KUBE_VERSION:-v1.36.3}
EV=${ETCD_VERSION:-v3.6.16}
OUT=${TINYHOST_K8S_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tinyhost/k8s-bins/$KV-etcd-$EV}
ME=build-control-plane

if [ "${1:-}" = "--print-dir" ]; then echo "$OUT"; exit 0; fi

if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ]; then
  echo "$OUT"
  exit 0
fi

# One build at a time per cache dir: a second suite (another worktree, CI beside a developer)
# waits here and then finds the binaries, instead of compiling them again and racing on the .tmp files.
k8s_lock "$OUT" "$ME"
if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ]; then
  echo "$OUT"
  exit 0
fi

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
k8s_probe "$ME" "$KV" "$OUT"

start=$(date +%s)
if [ ! -x "$OUT/kube-apiserver" ]; then
  W=$(mktemp -d)
  trap 'rm -rf "$W"' EXIT
  (
    cd "$W"
    k8s_wrapper_module local/kas "$KV"
    go get "k8s.io/kubernetes/cmd/kube-apiserver@$KV" >/dev/null 2>&1 || go get "k8s.io/kubernetes/cmd/kube-apiserver@$KV"
    go build -trimpath -tags grpcnotrace -o "$OUT/kube-apiserver.tmp" -ldflags "$(k8s_ldflags "$KV")" k8s.io/kubernetes/cmd/kube-apiserver
    mv "$OUT/kube-apiserver.tmp" "$OUT/kube-apiserver"
  ) || k8s_die "$ME" "building kube-apiserver $KV failed (see the output above)."
fi
if [ ! -x "$OUT/etcd" ]; then
  E=$(mktemp -d)
  (
    cd "$E"
    go mod init local/etcd >/dev/null 2>&1
    go get "go.etcd.io/etcd/server/v3@$EV" >/dev/null 2>&1 || go get "go.etcd.io/etcd/server/v3@$EV"
    go build -trimpath -ldflags "-s -w" -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3
    mv "$OUT/etcd.tmp" "$OUT/etcd"
  ) || k8s_die "$ME" "building etcd $EV failed (see the output above)."
  rm -rf "$E"
fi
echo "$ME: built in $(( $(date +%s) - start )) s" >&2
echo "$OUT"
