# shellcheck shell=bash
# Go toolchain helpers for the scripts that build tools from the Go module proxy (sourced, not run):
# scripts/infra.sh (nats-server) and scripts/ferretdb/build.sh.

: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"; export HOME   # go needs it for its caches

find_go() {
  # The machine image has Go in /usr/local/go; Debian's golang (1.19) is too old.
  if command -v go >/dev/null 2>&1; then command -v go
  elif [[ -x /usr/local/go/bin/go ]]; then echo /usr/local/go/bin/go
  else return 1
  fi
}

# Go settings for all builds: never switch toolchains (that would download one),
# static binaries.
go_env() {
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath
}
