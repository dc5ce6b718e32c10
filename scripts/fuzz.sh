#!/usr/bin/env bash
# External fuzzing of the HTTP API: schemathesis (PyPI, pinned) against a started platform.
# Usage: scripts/fuzz.sh [extra schemathesis args]   (run `npm run build` first; `npm run test:fuzz` does)
# FUZZ_EXAMPLES (default 50) and FUZZ_SEED (default 42) set the run, FUZZ_CONFIG another schemathesis.toml; the venv is cached per machine.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCHEMATHESIS_VERSION="4.32.5"
VENV="${FUZZ_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ppay-fuzz/venv-$SCHEMATHESIS_VERSION}"

if [[ ! -x "$VENV/bin/st" ]]; then
  source "$REPO/scripts/lib/system-packages.sh"
  ensure_system_packages python-venv:python3-venv # Debian ships venv apart from python3
  echo "[fuzz] installing schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
fi
export SCHEMATHESIS_BIN="$VENV/bin/st"
exec node "$REPO/packages/devstack/dist/fuzz.js" "$@"
