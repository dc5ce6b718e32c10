#!/usr/bin/env bash
# stripe-mock, Stripe's official mock of its API, for the card connector's contract tests
# (test/support/stripe-mock.ts starts it on loopback). Built from the Go module proxy once per machine
# (~90 s cold, 33 MB), then copied; its API description and fixtures are embedded, so it runs offline.
# v0.203.0 embeds API version 2026-08-26.dahlia, the version stripe-node 22.6.x pins (the connector sets it).
#
# Usage: bash scripts/stripe-mock.sh    makes $INFRA_TOOLS_DIR/bin/stripe-mock, prints its path on stdout
#
# Environment (optional):
#   INFRA_TOOLS_DIR  where the binary goes                     (default: $REPO/.tools)
#   INFRA_CACHE_DIR  per-machine build cache shared by clones  (default: ~/.cache/infra-tools)
set -euo pipefail

STRIPE_MOCK_VERSION="v0.203.0"   # pinned: its embedded API version must equal the connector's

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO/scripts/lib/go.sh"      # find_go, go_env; sets HOME if unset
source "$REPO/scripts/lib/tools.sh"   # ensure_tool (uses BIN_DIR, CACHE_DIR, log)
TOOLS_DIR="$(realpath -m "${INFRA_TOOLS_DIR:-$REPO/.tools}")"
CACHE_DIR="$(realpath -m "${INFRA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/infra-tools}")"
BIN_DIR="$TOOLS_DIR/bin"

log() { printf '[stripe-mock] %s\n' "$*" >&2; }
die() { printf '[stripe-mock] ERROR: %s\n' "$*" >&2; exit 1; }

build_stripe_mock() { # OUT
  local out="$1" go gobin
  go="$(find_go)" || { log "Go not found (expected /usr/local/go/bin/go)"; return 1; }
  go_env
  gobin="$(mktemp -d)"
  GOBIN="$gobin" "$go" install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION" || { rm -rf "$gobin"; return 1; }
  mv "$gobin/stripe-mock" "$out"
  rm -rf "$gobin"
}

ensure_tool stripe-mock "$STRIPE_MOCK_VERSION" build_stripe_mock >&2 || die "could not build stripe-mock $STRIPE_MOCK_VERSION"
echo "$BIN_DIR/stripe-mock"
