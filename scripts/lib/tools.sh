# shellcheck shell=bash
# Shared by scripts/infra.sh and scripts/deploy-tools.sh (sourced, not run).
# Needs BIN_DIR, CACHE_DIR and a `log` function from the caller.

# ensure_tool NAME VERSION BUILDER: afterwards $BIN_DIR/NAME is VERSION.
# Built binaries are kept in a per-machine cache keyed by version, so a fresh clone only copies
# them; flock stops parallel callers (app + tests) from building the same tool twice at once.
ensure_tool() {
  local name="$1" version="$2" builder="$3"
  local dest="$BIN_DIR/$name" stamp="$BIN_DIR/.$name.version" cached="$CACHE_DIR/$name-$version"
  if [[ -x "$dest" && "$(cat "$stamp" 2>/dev/null)" == "$version" ]]; then return 0; fi
  mkdir -p "$BIN_DIR" "$CACHE_DIR"
  (
    flock 9
    if [[ ! -x "$cached" ]]; then
      log "building $name $version from the Go module proxy (first time on this machine: can take minutes)..."
      local start=$SECONDS
      "$builder" "$cached.tmp.$$" || { rm -f "$cached.tmp.$$"; exit 1; }
      mv -f "$cached.tmp.$$" "$cached"
      log "built $name $version in $((SECONDS - start))s"
    fi
  ) 9>"$CACHE_DIR/.build.lock" || return 1
  cp "$cached" "$dest.tmp.$$" && mv -f "$dest.tmp.$$" "$dest" # atomic: safe while the tool runs
  echo "$version" > "$stamp"
}
