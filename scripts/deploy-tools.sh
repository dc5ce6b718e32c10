#!/usr/bin/env bash
# Installs the deployment and contract tooling, offline except for the Go module
# proxy (each tool built there with the local Go toolchain):
#   - helm   the chart checks (test/deploy)
#   - buf    proto/ lint and breaking-change checks (scripts/lib/lint-proto.sh)
#
# Usage: bash scripts/deploy-tools.sh            helm only (as test/deploy calls it);
#                                                prints the helm binary path on stdout
#        bash scripts/deploy-tools.sh TOOL...    each named tool (helm, buf); prints
#                                                their paths on stdout, one a line
#
# Idempotent and safe to run in parallel (flock). Built binaries are cached per
# machine in $DEPLOY_TOOLS_CACHE_DIR (default ~/.cache/deploy-tools), keyed by
# version, so a fresh clone only copies them into $REPO/.tools/bin (cold, 2 cores,
# measured 2026-11-27: helm 647 s, buf 681-711 s, mostly Go module downloads;
# ~0 s after that).
#
# Kubernetes manifests are validated in Node (test/deploy) against the JSON
# schemas vendored in deploy/kubernetes-schemas/, so no kubeconform is needed.
#
# Environment (optional):
#   DEPLOY_TOOLS_DIR        where binaries go                (default: $REPO/.tools)
#   DEPLOY_TOOLS_CACHE_DIR  per-machine build cache          (default: ~/.cache/deploy-tools)
set -euo pipefail

HELM_VERSION="v3.19.5"   # pinned; bump deliberately (helm lint/template output is tested)
BUF_VERSION="v1.75.0"    # pinned; bump deliberately (new lint/breaking rules can appear); needs Go >= 1.26.7

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

build_buf() {
  local out="$1" go gobin
  go="$(find_go)" || die "Go not found (expected /usr/local/go/bin/go); cannot build buf"
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath
  gobin="$(mktemp -d)"
  # buf's version string is a constant in its source (buf --version prints it), no -X needed.
  GOBIN="$gobin" "$go" install -ldflags "-s -w" "github.com/bufbuild/buf/cmd/buf@$BUF_VERSION" \
    || { rm -rf "$gobin"; return 1; }
  mv "$gobin/buf" "$out"
  rm -rf "$gobin"
}

# ensure_tool: see scripts/lib/tools.sh.
source "$REPO/scripts/lib/tools.sh"

install_helm() {
  ensure_tool helm "$HELM_VERSION" build_helm || die "could not install helm $HELM_VERSION"
  "$BIN_DIR/helm" version --short >/dev/null 2>&1 || die "$BIN_DIR/helm does not run"
  echo "$BIN_DIR/helm"
}

install_buf() {
  ensure_tool buf "$BUF_VERSION" build_buf || die "could not install buf $BUF_VERSION"
  [[ "v$("$BIN_DIR/buf" --version 2>/dev/null)" == "$BUF_VERSION" ]] || die "$BIN_DIR/buf does not run as $BUF_VERSION"
  echo "$BIN_DIR/buf"
}

(($#)) || set -- helm
for tool in "$@"; do
  case "$tool" in
    helm) install_helm ;;
    buf) install_buf ;;
    *) die "unknown tool '$tool' (known: helm, buf)" ;;
  esac
done
