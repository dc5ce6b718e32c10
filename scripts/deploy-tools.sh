#!/usr/bin/env bash
# Installs the deployment tooling the chart/compose checks need, offline except
# for the Go module proxy:
#   - helm (built from the Go module proxy with the local Go toolchain)
#
# Usage: bash scripts/deploy-tools.sh        prints the helm binary path on stdout
#
# Idempotent and safe to run in parallel (flock). Built binaries are cached per
# machine in $DEPLOY_TOOLS_CACHE_DIR (default ~/.cache/deploy-tools), keyed by
# version, so a fresh clone only copies them into $REPO/.tools/bin (~11 min
# cold build on 2 cores, mostly Go module downloads; ~0 s after that).
#
# Kubernetes manifests are validated in Node (test/deploy) against the JSON
# schemas vendored in deploy/kubernetes-schemas/, so no kubeconform is needed.
#
# Environment (optional):
#   DEPLOY_TOOLS_DIR        where binaries go                (default: $REPO/.tools)
#   DEPLOY_TOOLS_CACHE_DIR  per-machine build cache          (default: ~/.cache/deploy-tools)
set -euo pipefail

HELM_VERSION="v3.19.5"   # pinned; bump deliberately (helm lint/template output is tested)

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"; export HOME   # go needs it for its caches
TOOLS_DIR="$(realpath -m "${DEPLOY_TOOLS_DIR:-$REPO/.tools}")"
CACHE_DIR="$(realpath -m "${DEPLOY_TOOLS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/deploy-tools}")"
BIN_DIR="$TOOLS_DIR/bin"

log() { printf '[deploy-tools] %s\n' "$*" >&2; }
die() { printf '[deploy-tools] ERROR: %s\n' "$*" >&2; exit 1; }

find_go() {
  # The machine image has Go in /usr/local/go; Debian's golang (1.19) is too old.
  if [[ -x /usr/local/go/bin/go ]]; then echo /usr/local/go/bin/go
  elif command -v go >/dev/null 2>&1; then command -v go
  else return 1
  fi
}

build_helm() {
  local out="$1" go gobin
  go="$(find_go)" || die "Go not found (expected /usr/local/go/bin/go); cannot build helm"
  # Never switch toolchains (that would download one); static, reproducible binary.
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath
  gobin="$(mktemp -d)"
  GOBIN="$gobin" "$go" install -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
    "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" || { rm -rf "$gobin"; return 1; }
  mv "$gobin/helm" "$out"
  rm -rf "$gobin"
}

# ensure_tool: see scripts/lib/tools.sh.
source "$REPO/scripts/lib/tools.sh"

ensure_tool helm "$HELM_VERSION" build_helm || die "could not install helm $HELM_VERSION"
"$BIN_DIR/helm" version --short >/dev/null 2>&1 || die "$BIN_DIR/helm does not run"
echo "$BIN_DIR/helm"
