#!/usr/bin/env bash
# What `npm test` needs beyond Node and Go, installed when missing: Debian's headless Chromium for the
# hosted-page browser tests (test/support/browser.ts). scripts/infra.sh needs no client of its own.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/system-packages.sh"
ensure_system_packages chromium:chromium
