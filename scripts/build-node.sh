#!/usr/bin/env bash
# Builds the data plane of the test cluster (`npm run cluster:up -- --real`, test/support/real-cluster.ts)
# from the Go module proxy into cache dirs outside the repo, and prints the directory holding all of them:
# - kubelet, kube-proxy, kube-controller-manager and kube-scheduler at the control plane's Kubernetes
#   version, in ONE `go build` of one wrapper module (the packages they share compile once), built
#   last and after kube-apiserver (build-control-plane.sh), whose packages they reuse from Go's cache;
# - CoreDNS with the plugins the test bed uses (a wrapper main: the full binary's cloud SDKs took
#   most of its build);
# - Traefik, the ingress controller: its go.mod carries replace directives, so `go install` refuses it;
#   a wrapper module copying those replace lines builds it.
# Idempotent: does nothing when every binary exists. Same conventions as build-control-plane.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/k8s-build.sh"

KV=${KUBE_VERSION:-v1.36.3}
COREDNS_VERSION=v1.15.0
TRAEFIK_VERSION=v3.6.12
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/tinyhost
OUT=${TINYHOST_NODE_BIN_DIR:-$CACHE/k8s-bins/$KV-node}
K8S_BINS="kubelet kube-proxy kube-controller-manager kube-scheduler"
ME=build-node

if [ "${1:-}" = "--print-dir" ]; then echo "$OUT"; exit 0; fi

all_there() {
  local b
  for b in $K8S_BINS coredns traefik; do [ -x "$OUT/$b" ] || return 1; done
}
if all_there; then echo "$OUT"; exit 0; fi

k8s_lock "$OUT" "$ME"
if all_there; then echo "$OUT"; exit 0; fi

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

if [ ! -x "$OUT/coredns" ]; then
  start=$(date +%s)
  (
    mkdir -p "$W/coredns" && cd "$W/coredns"
    go mod init local/coredns >/dev/null 2>&1
    # CoreDNS with the plugins the test bed's Corefile uses (test/support/real-node/node.ts), as
    # CoreDNS documents for a custom build: half the packages of the full binary, none of the
    # cloud providers' SDKs.
    cat >main.go <<'GO'
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() { coremain.Run() }
GO
    go get "github.com/coredns/coredns@$COREDNS_VERSION" >/dev/null 2>&1 || go get "github.com/coredns/coredns@$COREDNS_VERSION"
    go build -trimpath -ldflags "-s -w" -o "$W/coredns/coredns" .
    mv "$W/coredns/coredns" "$OUT/coredns"
  ) || k8s_die "$ME" "building CoreDNS $COREDNS_VERSION failed (see the output above)."
  echo "$ME: built coredns in $(( $(date +%s) - start )) s" >&2
fi

if [ ! -x "$OUT/traefik" ]; then
  start=$(date +%s)
  (
    mkdir -p "$W/traefik" && cd "$W/traefik"
    go mod init local/traefik >/dev/null 2>&1
    gomod=$(go mod download -json "github.com/traefik/traefik/v3@$TRAEFIK_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
    [ -n "$gomod" ] || exit 1
    # Single-line and block-form replace directives of Traefik's go.mod, as -replace=old=new flags.
    awk '/^replace \($/ {b=1; next} b && /^\)/ {b=0; next} b {print; next} /^replace / {sub(/^replace /, ""); print}' "$gomod" \
      | sed 's#//.*##' | awk 'NF {l=$1; if ($2 != "=>") {l=l"@"$2; $0=$1" "$3" "$4" "$5} r=$3; if ($4 != "") r=r"@"$4; print l"="r}' \
      | while read -r rep; do go mod edit -replace="$rep"; done
    sed -n 's#^exclude \([^ (]*\) \([^ ]*\)$#\1@\2#p' "$gomod" | while read -r ex; do go mod edit -exclude="$ex"; done
    go get "github.com/traefik/traefik/v3/cmd/traefik@$TRAEFIK_VERSION" >/dev/null 2>&1 || go get "github.com/traefik/traefik/v3/cmd/traefik@$TRAEFIK_VERSION"
    go build -trimpath -ldflags "-s -w -X github.com/traefik/traefik/v3/pkg/version.Version=$TRAEFIK_VERSION" -o "$W/traefik/traefik" github.com/traefik/traefik/v3/cmd/traefik
    mv "$W/traefik/traefik" "$OUT/traefik"
  ) || k8s_die "$ME" "building Traefik $TRAEFIK_VERSION failed (see the output above)."
  echo "$ME: built traefik in $(( $(date +%s) - start )) s" >&2
fi

missing_k8s=0
for b in $K8S_BINS; do [ -x "$OUT/$b" ] || missing_k8s=1; done
if [ $missing_k8s -eq 1 ]; then
  # kube-apiserver's build compiles most of the packages these four share. Wait for it (or run it)
  # first, so they come from Go's build cache: test/support/prebuild.ts starts both scripts at once,
  # and two builds compiling the same client-go at the same time doubled the work on 2 cores.
  bash "$HERE/build-control-plane.sh" >/dev/null || k8s_die "$ME" "the control plane's build (shared packages) failed."
  k8s_probe "$ME" "$KV" "$OUT"
  start=$(date +%s)
  (
    mkdir -p "$W/k8s/bin" && cd "$W/k8s"
    k8s_wrapper_module local/node "$KV"
    pkgs=""
    for b in $K8S_BINS; do
      pkgs="$pkgs k8s.io/kubernetes/cmd/$b"
      go get "k8s.io/kubernetes/cmd/$b@$KV" >/dev/null 2>&1 || go get "k8s.io/kubernetes/cmd/$b@$KV"
    done
    # shellcheck disable=SC2086
    go build -trimpath -tags grpcnotrace -o "$W/k8s/bin/" -ldflags "$(k8s_ldflags "$KV")" $pkgs
    for b in $K8S_BINS; do mv "$W/k8s/bin/$b" "$OUT/$b"; done
  ) || k8s_die "$ME" "building $K8S_BINS $KV failed (see the output above)."
  echo "$ME: built $K8S_BINS in $(( $(date +%s) - start )) s" >&2
fi
echo "$OUT"
