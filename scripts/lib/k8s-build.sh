# Shared by the scripts that build Kubernetes binaries from the Go module proxy
# (scripts/build-control-plane.sh, scripts/build-node.sh). Source it; it defines functions only.
# The recipe and its reasons: ../shared/reference/test-control-plane.md §1.3 — one wrapper module,
# one replace line per k8s.io staging module (k8s.io/kubernetes's go.mod points them at ./staging,
# which a module consumer cannot use), GOTOOLCHAIN=local so a toolchain drift fails loudly.

# k8s_die SCRIPT MESSAGE: one line on stderr, exit 1.
k8s_die() { echo "$1: $2" >&2; exit 1; }

# k8s_lock DIR SCRIPT: takes the build lock of DIR on fd 9 (waits, with one line, when another
# build into DIR holds it), so two identical builds never run at once.
k8s_lock() {
  mkdir -p "$1"
  exec 9>"$1/.build.lock"
  flock -n 9 || { echo "$2: waiting for another build into $1 to finish" >&2; flock 9; }
}

# k8s_probe SCRIPT KV DIR: one cheap request telling whether Go is there and the module proxy
# answers, before a long build starts.
k8s_probe() {
  command -v go >/dev/null 2>&1 || k8s_die "$1" "Go is not installed: install Go 1.26 (https://go.dev/doc/install) and run again."
  if ! go mod download -json "k8s.io/kubernetes@$2" >"$3/.probe.out" 2>&1; then
    local why
    why=$(sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' "$3/.probe.out" | head -n 1)
    k8s_die "$1" "the Go module proxy did not serve k8s.io/kubernetes@$2 (${why:-$(tail -n 1 "$3/.probe.out")}); check GOPROXY and the network, then run again."
  fi
}

# k8s_wrapper_module NAME KV: turns the current (empty) directory into a wrapper module NAME
# requiring k8s.io/kubernetes@KV, with every staging module replaced by its published v0.x version.
k8s_wrapper_module() {
  local kv=$2 sv="v0.${2#v1.}" gomod m
  go mod init "$1" >/dev/null 2>&1
  gomod=$(go mod download -json "k8s.io/kubernetes@$kv" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  for m in $(sed -n 's#^\(replace \)\{0,1\}[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/.*#\2#p' "$gomod"); do
    go mod edit -replace="$m=$m@$sv"
  done
  go mod edit -require="k8s.io/kubernetes@$kv"
}

# k8s_ldflags KV: the linker flags stamping the version the binaries report (kubelet and the
# apiserver compare versions; an unstamped build says v0.0.0).
k8s_ldflags() {
  local minor
  minor=$(echo "$1" | cut -d. -f2)
  echo "-s -w -X k8s.io/component-base/version.gitVersion=$1 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
}
