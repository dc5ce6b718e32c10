#!/usr/bin/env bash
# Proto hygiene of the gRPC contract (proto/, configured by proto/buf.yaml), the same for a developer
# (npm run lint:proto) and CI (.ci/run):
#   1. buf lint      proto/ as it is in the work tree
#   2. buf breaking  proto/ against the previous commit (HEAD~1: in CI, main before the change):
#                    field numbers and wire types (WIRE); a deleted field's number must be `reserved`
# buf is Buf's own prebuilt binary from npm (@bufbuild/buf, pinned in package.json): npm ci installs it.
#
# Environment (optional):
#   PROTO_AGAINST   git revision to compare against (default HEAD~1), e.g. main on a feature branch
#   BUF             the buf binary (default: node_modules/.bin/buf of this repository)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"

log() { printf '[lint:proto] %s\n' "$*" >&2; }
loud() {
  printf '[lint:proto] ##########################################################################\n' >&2
  printf '[lint:proto] ## %s\n' "$@" >&2
  printf '[lint:proto] ##########################################################################\n' >&2
}

buf="${BUF:-$REPO/node_modules/.bin/buf}"
[[ -x "$buf" ]] || { log "ERROR: $buf not found: run npm ci (buf comes from @bufbuild/buf)"; exit 1; }

log "buf lint proto ($("$buf" --version))"
"$buf" lint proto
log "buf lint: ok"

against="${PROTO_AGAINST:-HEAD~1}"
git rev-parse --git-dir >/dev/null 2>&1 || { log "ERROR: $REPO is not a git work tree: buf breaking needs the history"; exit 1; }
resolve() { git rev-parse -q --verify "$against^{commit}" 2>/dev/null; }

if ! sha="$(resolve)"; then
  if [[ "$(git rev-parse --is-shallow-repository)" == true ]]; then
    # A shallow clone (CI may clone with --depth=1) has no parent to compare with: fetch one more.
    log "shallow clone without $against: git fetch --deepen=1"
    git fetch -q --deepen=1 || true
    sha="$(resolve)" || {
      loud "buf breaking DID NOT RUN: this is a shallow clone and 'git fetch --deepen=1' could not" \
        "fetch $against (no remote, or it is out of reach). Field deletions and type changes of" \
        "proto/ were NOT checked. Run 'npm run lint:proto' in a full clone."
      exit 0
    }
  elif [[ "$against" == HEAD~1 && "$(git rev-list --count HEAD)" == 1 ]]; then
    log "buf breaking skipped: HEAD is the first commit of the repository, there is no previous contract"
    exit 0
  else
    log "ERROR: cannot resolve '$against' to a commit"
    exit 1
  fi
fi

log "buf breaking proto against $against ($(git log -1 --format='%h %s' "$sha" | cut -c1-72))"
# The against side is read straight from the git history (a clone of .git at that commit), so the work
# tree's uncommitted changes are part of what is checked.
if ! "$buf" breaking proto --against ".git#ref=$sha,subdir=proto"; then
  log "buf breaking: the contract changed incompatibly since $against (rules: WIRE in proto/buf.yaml)."
  log "  A deleted field keeps its number out of use: reserved <number>; reserved \"<name>\"; (with a comment)."
  log "  A field never changes its number or wire type: add a new field instead."
  exit 1
fi
log "buf breaking: ok"
