#!/usr/bin/env bash
# Builds KEDA's operator and metrics adapter (github.com/kedacore/keda/v2, cmd/operator and cmd/adapter)
# from the Go module proxy into a cache dir outside the repo, for the scaling proof in the real cluster
# (test/integration/real-keda.test.ts), and prints the directory holding `keda-operator` and
# `keda-adapter`.
# - One wrapper module requiring KEDA at $KEDA_VERSION, both commands in ONE `go build` (they share
#   most packages). v2.21.0, not v2.21.1: the latter needs Go 1.27.4, newer than these machines take.
# - KEDA's go.mod carries one replace line (a pseudo-version of nexus-proto-annotations); a module
#   consumer does not inherit replace lines, so the wrapper repeats it.
# - CGO off, GOTOOLCHAIN=local, niced by the caller; ~12 min of CPU on 2 cores from a cold module cache.
# Idempotent: does nothing when both binaries exist. Same conventions as build-node.sh (lock, probe).
set -euo pipefail
. "$(dirname "$0")/lib/k8s-build.sh"

KEDA_VERSION=${KEDA_VERSION:-v2.21.0}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/tinyhost
OUT=${TINYHOST_KEDA_BIN_DIR:-$CACHE/keda/$KEDA_VERSION}
ME=build-keda
REPLACE="github.com/nexus-rpc/nexus-proto-annotations@v0.1.0=github.com/nexus-rpc/nexus-proto-annotations@v0.1.1-0.20260629224316-835bd8d49cb4"

if [ "${1:-}" = "--print-dir" ]; then echo "$OUT"; exit 0; fi

all_there() { [ -x "$OUT/keda-operator" ] && [ -x "$OUT/keda-adapter" ]; }
if all_there; then echo "$OUT"; exit 0; fi

k8s_lock "$OUT" "$ME"
if all_there; then echo "$OUT"; exit 0; fi

command -v go >/dev/null 2>&1 || k8s_die "$ME" "Go is not installed: install Go 1.26 (https://go.dev/doc/install) and run again."
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
if ! go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" >"$OUT/.probe.out" 2>&1; then
  why=$(sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' "$OUT/.probe.out" | head -n 1)
  k8s_die "$ME" "the Go module proxy did not serve github.com/kedacore/keda/v2@$KEDA_VERSION (${why:-$(tail -n 1 "$OUT/.probe.out")}); check GOPROXY and the network, then run again."
fi

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
start=$(date +%s)
(
  cd "$W"
  go mod init local/keda >/dev/null 2>&1
  go mod edit -replace="$REPLACE"
  go get "github.com/kedacore/keda/v2@$KEDA_VERSION" >/dev/null 2>&1 || go get "github.com/kedacore/keda/v2@$KEDA_VERSION"
  # `go get` of the module alone leaves the commands' own imports unresolved: resolve them for both.
  go get "github.com/kedacore/keda/v2/cmd/operator@$KEDA_VERSION" "github.com/kedacore/keda/v2/cmd/adapter@$KEDA_VERSION" >/dev/null 2>&1 \
    || go get "github.com/kedacore/keda/v2/cmd/operator@$KEDA_VERSION" "github.com/kedacore/keda/v2/cmd/adapter@$KEDA_VERSION"
  # One build of both (shared packages compile once); -o DIR/ names each binary after its package dir.
  mkdir -p bin
  go build -trimpath -ldflags "-s -w -X github.com/kedacore/keda/v2/version.Version=$KEDA_VERSION" -o bin/ \
    github.com/kedacore/keda/v2/cmd/operator github.com/kedacore/keda/v2/cmd/adapter
  mv -f bin/operator "$OUT/keda-operator.tmp"
  mv -f bin/adapter "$OUT/keda-adapter.tmp"
  mv "$OUT/keda-operator.tmp" "$OUT/keda-operator"
  mv "$OUT/keda-adapter.tmp" "$OUT/keda-adapter"
) || k8s_die "$ME" "building KEDA $KEDA_VERSION (cmd/operator, cmd/adapter) failed (see the output above)."
echo "$ME: built keda-operator and keda-adapter $KEDA_VERSION in $(( $(date +%s) - start )) s" >&2
echo "$OUT"
