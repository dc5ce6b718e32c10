#!/usr/bin/env bash
# What `npm test` needs beyond Node and Go, installed when missing: Debian's headless Chromium for the
# hosted-page browser tests (test/support/browser.ts), and stripe-mock for the card connector's contract
# tests (test/support/stripe-mock.ts; built once per machine from the Go module proxy, ~90 s cold, so
# before jest rather than inside a test's timeout). scripts/infra.sh needs no client of its own.
set -euo pipefail
HERE="$(dirname "${BASH_SOURCE[0]}")"
source "$HERE/lib/system-packages.sh"
ensure_system_packages chromium:chromium
bash "$HERE/stripe-mock.sh" >/dev/null
