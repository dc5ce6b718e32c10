#!/usr/bin/env bash
# FerretDB for local runs, tests and CI: FerretDB v1 from the Go module proxy plus the patch series in
# scripts/ferretdb/patches/, one fix per file, each file's header saying what it fixes and why.
# FerretDB v1 is no longer developed upstream (v2 needs PostgreSQL with DocumentDB), so the fixes live here.
#
# Usage: scripts/ferretdb/build.sh [install]  make $INFRA_TOOLS_DIR/bin/ferretdb this series' build
#                                             (built once per machine, then copied); prints its version
#        scripts/ferretdb/build.sh version    prints the version only: v1.24.2-patches.<count>.<hash>
#        scripts/ferretdb/build.sh tree DIR   writes the patched source into DIR (new), a git repository:
#                                             the module as one commit, then a commit per patch; no build
#
# A build: `go mod download` of the module → a copy → version.txt → `patch -p1 --fuzz=0` of each
# patches/*.patch in name order (a patch that no longer fits fails the build) → `go vet` of every package a
# patch touches → `go build`. The version, and so the cache entry, is FerretDB's version plus a hash of the
# patch files and build tags: changing, adding or removing a patch rebuilds; an unchanged series is copied.
#
# Changing a patch: `build.sh tree /tmp/fdb`, change its commit there (`git rebase -i`), then write the
# patch file again as its header (the lines above its first `diff --git`) followed by
# `git -C /tmp/fdb diff <commit>~ <commit>`; `build.sh` then vets and builds the series.
#
# Environment (optional; scripts/infra.sh passes its own, as it runs `install`):
#   INFRA_TOOLS_DIR  where the binary goes                     (default: $REPO/.tools)
#   INFRA_CACHE_DIR  per-machine build cache shared by clones  (default: ~/.cache/infra-tools)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"

FERRETDB_VERSION="v1.24.2"          # newest FerretDB v1 on the Go proxy (v2 needs PostgreSQL+DocumentDB)
BUILD_TAGS="ferretdb_no_postgresql" # we only use SQLite; skips compiling pgx (faster)
PATCHES=("$HERE"/patches/*.patch)

source "$REPO/scripts/lib/go.sh"      # find_go, go_env
source "$REPO/scripts/lib/tools.sh"   # ensure_tool (uses BIN_DIR, CACHE_DIR, log)
TOOLS_DIR="$(realpath -m "${INFRA_TOOLS_DIR:-$REPO/.tools}")"
CACHE_DIR="$(realpath -m "${INFRA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/infra-tools}")"
BIN_DIR="$TOOLS_DIR/bin"

log() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

[[ -f "${PATCHES[0]}" ]] || die "no patches in $HERE/patches"

build_version() {
  local hash
  hash="$({
    printf '%s\n' "$FERRETDB_VERSION" "$BUILD_TAGS"
    for p in "${PATCHES[@]}"; do printf '%s\n' "${p##*/}"; cat "$p"; done
  } | sha256sum | cut -c1-12)"
  echo "$FERRETDB_VERSION-patches.${#PATCHES[@]}.$hash"
}

commit_all() { # DIR MESSAGE
  git -C "$1" add -Af . && git -C "$1" -c user.name=build.sh -c user.email=build.sh@localhost commit -qm "$2"
}

# Writes the module, patched, into the new directory $1; with $2 = git, as a repository with a commit for
# the module and one per patch. `go install …/cmd/ferretdb@v` would give a binary that panics at start:
# build/version/version.txt is generated and not in the module zip, so the copy gets one.
patched_tree() {
  local dir="$1" mode="${2:-}" go src p
  go="$(find_go)" || die "Go not found (expected /usr/local/go/bin/go); cannot build FerretDB"
  command -v patch >/dev/null 2>&1 || {
    log "installing patch (Debian package)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patch >/dev/null
  } || die "the patch command is missing (apt-get install patch)"
  go_env
  src="$("$go" mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" \
          | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -d "$src" ]] || die "go mod download of FerretDB $FERRETDB_VERSION failed"
  # (Checked one by one: ensure_tool runs the build where `set -e` does not stop it.)
  { mkdir -p "$dir" && cp -r "$src/." "$dir/"; } || die "could not copy FerretDB into $dir"
  chmod -R u+w "$dir" || die "chmod failed"   # module cache files are read-only
  build_version > "$dir/build/version/version.txt" || die "could not write version.txt"
  if [[ "$mode" == git ]]; then
    git -C "$dir" init -q && commit_all "$dir" "FerretDB $FERRETDB_VERSION (Go module proxy)"
  fi
  for p in "${PATCHES[@]}"; do
    patch -d "$dir" -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch --reject-file=- --quiet <"$p" >&2 \
      || die "${p##*/} does not apply to FerretDB $FERRETDB_VERSION (see 'Changing a patch' in $0)"
    [[ "$mode" != git ]] || commit_all "$dir" "${p##*/}"
  done
}

# go vet of the packages the patches touch, as they are built (same tags). Their upstream tests are left
# out: the test helpers need the PostgreSQL backend that the build tags leave out.
vet_tree() {
  local dir="$1" go d dirs pkgs=()
  go="$(find_go)"
  mapfile -t dirs < <(sed -n 's|^+++ b/\([^[:space:]]*\.go\).*|\1|p' "${PATCHES[@]}" | xargs -n1 dirname | sort -u)
  for d in "${dirs[@]}"; do
    rm -f "$dir/$d"/*_test.go
    pkgs+=("./$d")
  done
  (cd "$dir" && "$go" vet -tags "$BUILD_TAGS" "${pkgs[@]}") || die "go vet failed on the patched FerretDB (above)"
}

build_ferretdb() { # OUT
  local out="$1" go work rc=0
  go="$(find_go)" || die "Go not found (expected /usr/local/go/bin/go); cannot build FerretDB"
  work="$(mktemp -d)"
  (patched_tree "$work" && vet_tree "$work" && cd "$work" && "$go" build -tags "$BUILD_TAGS" -o "$out" ./cmd/ferretdb) || rc=$?
  rm -rf "$work"
  return "$rc"
}

usage() { echo "usage: $0 [install] | version | tree DIR" >&2; exit 2; }

case "${1:-install}" in
  install)
    [[ $# -le 1 ]] || usage
    version="$(build_version)"
    ensure_tool ferretdb "$version" build_ferretdb >&2 || die "FerretDB build failed"
    echo "$version"
    ;;
  version) [[ $# == 1 ]] || usage; build_version ;;
  tree)
    [[ $# == 2 ]] || usage
    [[ ! -e "$2" ]] || die "$2 exists"
    patched_tree "$2" git
    log "patched FerretDB $FERRETDB_VERSION in $2 ($(git -C "$2" rev-list --count HEAD) commits)"
    ;;
  *) usage ;;
esac
