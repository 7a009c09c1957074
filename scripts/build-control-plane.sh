#!/usr/bin/env bash
# Builds a real kube-apiserver and etcd from Go modules into a cache dir outside the repo.
# Idempotent: does nothing when both binaries exist. Recipe and reasons:
# ../shared/reference/test-control-plane.md §1.3 (one wrapper module per binary, one replace
# line per staging module, GOTOOLCHAIN=local so a toolchain drift fails loudly).
set -euo pipefail

KV=${KUBE_VERSION:-v1.36.3}
SV="v0.${KV#v1.}"
MINOR=$(echo "$KV" | cut -d. -f2)
EV=${ETCD_VERSION:-v3.6.16}
OUT=${TINYHOST_K8S_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tinyhost/k8s-bins/$KV-etcd-$EV}

die() { echo "build-control-plane: $*" >&2; exit 1; }

if [ "${1:-}" = "--print-dir" ]; then echo "$OUT"; exit 0; fi

if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ]; then
  echo "$OUT"
  exit 0
fi

# One build at a time per cache dir: a second suite (another worktree, CI beside a developer)
# waits here and then finds the binaries, instead of compiling them again and racing on the .tmp files.
mkdir -p "$OUT"
exec 9>"$OUT/.build.lock"
flock -n 9 || { echo "build-control-plane: waiting for another build into $OUT to finish" >&2; flock 9; }
if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ]; then
  echo "$OUT"
  exit 0
fi

command -v go >/dev/null 2>&1 || die "Go is not installed: install Go 1.26 (https://go.dev/doc/install) and run again."
mkdir -p "$OUT"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod

# One cheap request tells us whether the module proxy answers before a long build starts.
if ! go mod download -json "k8s.io/kubernetes@$KV" >"$OUT/.probe.out" 2>&1; then
  why=$(sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' "$OUT/.probe.out" | head -n 1)
  die "the Go module proxy did not serve k8s.io/kubernetes@$KV (${why:-$(tail -n 1 "$OUT/.probe.out")}); check GOPROXY and the network, then run again."
fi

start=$(date +%s)
if [ ! -x "$OUT/kube-apiserver" ]; then
  W=$(mktemp -d)
  trap 'rm -rf "$W"' EXIT
  (
    cd "$W"
    go mod init local/kas >/dev/null 2>&1
    GOMOD=$(go mod download -json "k8s.io/kubernetes@$KV" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
    for m in $(sed -n 's#^\(replace \)\{0,1\}[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/.*#\2#p' "$GOMOD"); do
      go mod edit -replace="$m=$m@$SV"
    done
    go mod edit -require="k8s.io/kubernetes@$KV"
    go get "k8s.io/kubernetes/cmd/kube-apiserver@$KV" >/dev/null 2>&1 || go get "k8s.io/kubernetes/cmd/kube-apiserver@$KV"
    go build -trimpath -tags grpcnotrace -o "$OUT/kube-apiserver.tmp" \
      -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$KV -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR" \
      k8s.io/kubernetes/cmd/kube-apiserver
    mv "$OUT/kube-apiserver.tmp" "$OUT/kube-apiserver"
  ) || die "building kube-apiserver $KV failed (see the output above)."
fi
if [ ! -x "$OUT/etcd" ]; then
  E=$(mktemp -d)
  (
    cd "$E"
    go mod init local/etcd >/dev/null 2>&1
    go get "go.etcd.io/etcd/server/v3@$EV" >/dev/null 2>&1 || go get "go.etcd.io/etcd/server/v3@$EV"
    go build -trimpath -ldflags "-s -w" -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3
    mv "$OUT/etcd.tmp" "$OUT/etcd"
  ) || die "building etcd $EV failed (see the output above)."
  rm -rf "$E"
fi
echo "build-control-plane: built in $(( $(date +%s) - start )) s" >&2
echo "$OUT"
