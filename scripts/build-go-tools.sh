#!/usr/bin/env bash
# Builds the Go test tools of test/go/ — programs of our own over the real Go SDK
# (github.com/tiny-systems/module, pinned in test/go/go.mod) — into a cache dir outside the repo:
# one sub-directory per hash of test/go's sources, so a change rebuilds and an unchanged tree
# is reused. Prints the directory holding the binaries (one per test/go/<tool>/main.go).
# Same conventions as build-control-plane.sh: GOTOOLCHAIN=local, CGO off, one probe of the proxy
# before a long build, one line on stderr when Go or the proxy is missing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC="$ROOT/test/go"
SDK=$(sed -n 's#^[[:space:]]*\(require \)\{0,1\}github.com/tiny-systems/module \(v[^ ]*\).*#\2#p' "$SRC/go.mod" | head -n 1)

die() { echo "build-go-tools: $*" >&2; exit 1; }

# Servers and tools pinned at an exact version, built from the Go module proxy once into a cache dir
# of their own (they do not change with test/go) and linked into $OUT:
# - helm (v4, helm.sh/helm/v4), for the tests that render the platform's tinysystems-operator chart
#   with `helm template` and install it on the real node with `helm install` (takes minutes on 2 cores);
# - victoria-metrics (VictoriaMetrics single-node), a real server of the Prometheus query API
#   (/api/v1/query, /api/v1/query_range) for the promql_query tests (measured: 58 s of CPU, 5.6 min
#   on a loaded 2-core machine with an empty module cache).
HELM_VERSION=v4.3.2
VM_VERSION=v1.151.0
# The directory's hash covers the pinned versions too: the links in it name one helm and one
# victoria-metrics, so a worktree pinning other versions gets a directory of its own (relinking the
# test/go tools from the warm Go build cache takes seconds) instead of re-pointing a shared link.
HASH=$( { (cd "$SRC" && find . -type f \( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' \) -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); echo "helm $HELM_VERSION victoria-metrics $VM_VERSION"; } | sha256sum | cut -c1-16)
OUT=${TINYHOST_GO_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tinyhost/go-tools/sdk-$SDK-$HASH}
if [ "${1:-}" = "--print-dir" ]; then echo "$OUT"; exit 0; fi
# pinned_dir NAME VERSION: the cache dir of a pinned binary.
pinned_dir() { echo "${XDG_CACHE_HOME:-$HOME/.cache}/tinyhost/go-tools/$1-$2"; }
# pinned_ready: every pinned binary is built (nothing to build outside the lock below).
pinned_ready() { [ -x "$(pinned_dir helm "$HELM_VERSION")/helm" ] && [ -x "$(pinned_dir victoria-metrics "$VM_VERSION")/victoria-metrics" ]; }
# link_pinned NAME PACKAGE VERSION [LDFLAGS]: `go install PACKAGE@VERSION` into <cache>/NAME-VERSION
# once (LDFLAGS added to -s -w, e.g. the -X a project's Makefile stamps its version with), then link
# it into $OUT as NAME.
link_pinned() {
  local name=$1 pkg=$2 version=$3 ldflags=${4:-}
  local dir
  dir=$(pinned_dir "$name" "$version")
  if [ ! -x "$dir/$name" ]; then
    command -v go >/dev/null 2>&1 || die "Go is not installed: install Go 1.26 (https://go.dev/doc/install) and run again."
    mkdir -p "$dir"
    local pstart
    pstart=$(date +%s)
    (GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS= GOBIN="$dir/.bin" go install -trimpath -ldflags "-s -w $ldflags" "$pkg@$version" \
      && mv "$dir/.bin/$(basename "$pkg")" "$dir/$name") \
      || die "building $name $version from the Go module proxy failed (see the output above)."
    echo "build-go-tools: built $name $version in $(( $(date +%s) - pstart )) s" >&2
  fi
  mkdir -p "$OUT"
  ln -sfn "$dir/$name" "$OUT/$name"
}
link_pinned_all() {
  # helm's Makefile stamps the version (`helm version` says v4.3 without it).
  link_pinned helm helm.sh/helm/v4/cmd/helm "$HELM_VERSION" "-X helm.sh/helm/v4/internal/version.version=$HELM_VERSION"
  link_pinned victoria-metrics github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics "$VM_VERSION"
}

TOOLS=$(cd "$SRC" && for d in */; do [ -f "$d/main.go" ] && echo "${d%/}"; done)
missing=0
for t in $TOOLS; do [ -x "$OUT/$t" ] || missing=1; done
if [ $missing -eq 0 ] && pinned_ready; then link_pinned_all; echo "$OUT"; exit 0; fi

# One build at a time per cache (two worktrees' suites, or CI beside a developer, would otherwise
# compile the same tools twice on 2 cores and race on the same .tmp files); the check below runs
# again after the lock, so a waiter finds the other's binaries and builds nothing.
LOCK_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/tinyhost/go-tools
mkdir -p "$LOCK_DIR"
exec 9>"$LOCK_DIR/.build.lock"
flock -n 9 || { echo "build-go-tools: waiting for another build of the Go tools to finish" >&2; flock 9; }

missing=0
for t in $TOOLS; do [ -x "$OUT/$t" ] || missing=1; done
if [ $missing -eq 0 ]; then link_pinned_all; echo "$OUT"; exit 0; fi

command -v go >/dev/null 2>&1 || die "Go is not installed: install Go 1.26 (https://go.dev/doc/install) and run again."
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
mkdir -p "$OUT"

if ! go mod download -json "github.com/tiny-systems/module@$SDK" >"$OUT/.probe.out" 2>&1; then
  why=$(sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' "$OUT/.probe.out" | head -n 1)
  die "the Go module proxy did not serve github.com/tiny-systems/module@$SDK (${why:-$(tail -n 1 "$OUT/.probe.out")}); check GOPROXY and the network, then run again."
fi

start=$(date +%s)
for t in $TOOLS; do
  if [ ! -x "$OUT/$t" ]; then
    (cd "$SRC" && go build -trimpath -ldflags "-s -w" -o "$OUT/$t.tmp" "./$t" && mv "$OUT/$t.tmp" "$OUT/$t") \
      || die "building test/go/$t against the Go SDK $SDK failed (see the output above)."
  fi
done
echo "build-go-tools: built $(echo $TOOLS | tr '\n' ' ') in $(( $(date +%s) - start )) s" >&2
link_pinned_all
echo "$OUT"
