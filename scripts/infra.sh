#!/usr/bin/env bash
# shellcheck disable=SC2016  # single-quoted $ is intended (bash -c snippets)
# Local infrastructure for development, tests and CI, on loopback only:
#   - FerretDB v1 (MongoDB wire protocol) on SQLite, built from the Go module
#     proxy with the patch series in scripts/ferretdb/patches (scripts/ferretdb/build.sh)
#   - NATS server 2.10 with JetStream (file storage, fsync before every ack)
#
# Usage: scripts/infra.sh up [--fresh] | down | status | install
#   up       install if needed, start both (idempotent), wait until they answer,
#            print MONGODB_URI=... and NATS_URL=... on stdout
#   down     stop both (SIGTERM, then SIGKILL after 10 s); idempotent
#   status   exit 0 if both are up and answering, 1 otherwise
#   install  only build/install the binaries into $INFRA_TOOLS_DIR/bin
#
# Environment (all optional):
#   INFRA_DIR       state dir: data, pid files, logs, config   (default: $REPO/.infra)
#   MONGO_PORT      FerretDB (MongoDB wire) port                (default: 27017)
#   NATS_PORT       NATS client port                            (default: 4222)
#   NATS_HTTP_PORT  NATS monitoring port (/healthz, /varz)      (default: 8222)
#   INFRA_FRESH=1   same as `up --fresh`: wipe data and logs before starting
#   INFRA_TIMEOUT   seconds `up` waits for both servers          (default: 60)
#   FERRETDB_LOG_LEVEL  FerretDB log level; debug logs every command (default: warn)
#   INFRA_TOOLS_DIR where binaries go                            (default: $REPO/.tools)
#   INFRA_CACHE_DIR per-machine build cache shared by clones     (default: ~/.cache/infra-tools)
#
# Several instances can run side by side with distinct INFRA_DIR and ports
# (e.g. tests: INFRA_DIR=/tmp/x MONGO_PORT=27117 NATS_PORT=4322 NATS_HTTP_PORT=8322).
# No internet here: binaries are built from the Go module proxy once per
# machine (~1.5 min cold), then copied; FerretDB telemetry is disabled.
# `eval "$(scripts/infra.sh up)"` sets MONGODB_URI and NATS_URL (logs go to stderr).
#
# FerretDB is a subset of MongoDB. Fails loudly (code 238 / 2 / 28): transactions,
# arrayFilters, positional `$`, $lookup/$facet, $max/$min/$avg/$push/$first
# accumulators, expression operators ($cond, $add, $expr...), multi-field
# $elemMatch, TTL/partial/collation indexes. Silently differs: $pull with a
# condition ({$in}/{$gt}) and $push's $slice are ignored; `sparse` is dropped;
# a unique index lets many documents lack the field; E11000 errors carry no
# keyValue/keyPattern/index name.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

NATS_VERSION="v2.10.27"      # newest 2.10.x on the Go proxy; 2.10+ needed by compose/Helm

HOST="127.0.0.1"             # loopback only, never 0.0.0.0
source "$REPO/scripts/lib/go.sh"      # find_go, go_env; sets HOME if unset (go needs it)
INFRA_DIR="$(realpath -m "${INFRA_DIR:-$REPO/.infra}")"   # absolute: servers outlive our cwd
MONGO_PORT="${MONGO_PORT:-27017}"
NATS_PORT="${NATS_PORT:-4222}"
NATS_HTTP_PORT="${NATS_HTTP_PORT:-8222}"
INFRA_TIMEOUT="${INFRA_TIMEOUT:-60}"
TOOLS_DIR="$(realpath -m "${INFRA_TOOLS_DIR:-$REPO/.tools}")"
CACHE_DIR="$(realpath -m "${INFRA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/infra-tools}")"

for v in MONGO_PORT NATS_PORT NATS_HTTP_PORT INFRA_TIMEOUT; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "[infra] ERROR: $v must be a number, got '${!v}'" >&2; exit 2; }
done

BIN_DIR="$TOOLS_DIR/bin"
FERRETDB_BIN="$BIN_DIR/ferretdb"
NATS_BIN="$BIN_DIR/nats-server"

FDB_DIR="$INFRA_DIR/ferretdb"
FDB_PID="$FDB_DIR/ferretdb.pid"
FDB_LOG="$FDB_DIR/ferretdb.log"
NATS_DIR="$INFRA_DIR/nats"
NATS_PID="$NATS_DIR/nats-server.pid"
NATS_LOG="$NATS_DIR/nats-server.log"
NATS_CONF="$NATS_DIR/nats-server.conf"

log() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- install ---

build_nats() {
  local out="$1" go gobin
  go="$(find_go)" || return 1
  go_env
  gobin="$(mktemp -d)"
  GOBIN="$gobin" "$go" install "github.com/nats-io/nats-server/v2@$NATS_VERSION" || { rm -rf "$gobin"; return 1; }
  mv "$gobin/nats-server" "$out"
  rm -rf "$gobin"
}

# ensure_tool: see scripts/lib/tools.sh.
source "$REPO/scripts/lib/tools.sh"

# FerretDB: built and cached by scripts/ferretdb/build.sh, which prints the build's version.
install_tools() {
  FERRETDB_BUILD="$(INFRA_TOOLS_DIR="$TOOLS_DIR" INFRA_CACHE_DIR="$CACHE_DIR" \
    bash "$REPO/scripts/ferretdb/build.sh" install)" || die "FerretDB build failed"
  if ! ensure_tool nats-server "$NATS_VERSION" build_nats; then
    # Fallback: Debian's nats-server 2.9.10 (JetStream works; no 2.10 features).
    log "nats-server $NATS_VERSION build failed; falling back to Debian's nats-server"
    command -v nats-server >/dev/null 2>&1 || {
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server >/dev/null
    } || die "could not install nats-server"
    mkdir -p "$BIN_DIR"
    ln -sf "$(command -v nats-server)" "$NATS_BIN"
    echo "debian" > "$BIN_DIR/.nats-server.version"
  fi
}

# --------------------------------------------------------------- process ----

# Prints the pid from pidfile $1 if that process is alive and runs binary $2
# (guards against a stale pid file whose pid was reused).
live_pid() {
  local pidfile="$1" name="$2" pid
  [[ -f "$pidfile" ]] || return 1
  pid="$(cat "$pidfile" 2>/dev/null)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  grep -qa -- "$name" "/proc/$pid/cmdline" 2>/dev/null || return 1
  echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# Real MongoDB ping without any client installed: bash sends an OP_MSG
# {ping: 1, $db: "admin"} over /dev/tcp and checks the reply has ok: 1.0.
# (FerretDB's own `ping` subcommand needs auth users, so it is no use here.)
MONGO_PING='
exec 3<>"/dev/tcp/$0/$1" || exit 1
printf "\x33\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00" >&3   # header: len 51, id 1, op 2013
printf "\x00\x00\x00\x00\x00\x1e\x00\x00\x00" >&3                              # flags, kind 0, BSON len 30
printf "\x10ping\x00\x01\x00\x00\x00\x02\x24db\x00\x06\x00\x00\x00admin\x00\x00" >&3
h="$(dd bs=1 count=4 <&3 2>/dev/null | od -An -tx1 -v | tr -d " \n")"
[[ ${#h} == 8 ]] || exit 1
body="$(dd bs=1 count=$((16#${h:6:2}${h:4:2}${h:2:2}${h:0:2} - 4)) <&3 2>/dev/null | od -An -tx1 -v | tr -d " \n")"
[[ "$body" == *016f6b00000000000000f03f* ]]   # "ok": double 1.0
'
mongo_healthy() {
  timeout 5 bash -c "$MONGO_PING" "$HOST" "$MONGO_PORT" 2>/dev/null
}

# /healthz answers 200 only once JetStream is up (and streams recovered). Plain HTTP/1.0 over /dev/tcp,
# like the MongoDB ping above, so a fresh machine needs no HTTP client.
NATS_HEALTH='
exec 3<>"/dev/tcp/$0/$1" || exit 1
printf "GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n" "$0" >&3
IFS=" " read -r _ status _ <&3
[[ "$status" == 200 ]]
'
nats_healthy() {
  timeout 3 bash -c "$NATS_HEALTH" "$HOST" "$NATS_HTTP_PORT" 2>/dev/null
}

# Starts "$@" detached from this script (own session, no tty, output to a log),
# so it outlives the caller. The wrapper writes its pid, then execs the server.
spawn() {
  local pidfile="$1" logfile="$2"; shift 2
  {
    printf '\n==== %s: starting %s\n' "$(date -u +%FT%TZ)" "$*"
  } >>"$logfile"
  setsid nohup bash -c 'echo $$ > "$0"; exec "$@"' "$pidfile" "$@" \
    </dev/null >>"$logfile" 2>&1 &
  # Wait until the wrapper wrote its pid (it execs right after).
  for _ in $(seq 50); do [[ -s "$pidfile" ]] && return 0; sleep 0.1; done
  return 1
}

start_ferretdb() {
  mkdir -p "$FDB_DIR/data" "$FDB_DIR/state"
  : >"$FDB_PID"
  # --debug-addr=- unless FERRETDB_DEBUG_ADDR is set: its default 127.0.0.1:8088 would clash between
  # instances (set it to read its command counters at /debug/metrics).
  # synchronous(normal) in WAL mode (FerretDB's default journal): a commit survives a crash of any process,
  # only an OS crash or power loss may lose the last ones; about a third less FerretDB CPU per write than
  # FULL. Local runs only (docs/deployment.md); FERRETDB_SQLITE_SYNCHRONOUS=full restores FULL.
  FERRETDB_TELEMETRY=disable DO_NOT_TRACK=1 spawn "$FDB_PID" "$FDB_LOG" "$FERRETDB_BIN" \
    --handler=sqlite \
    --sqlite-url="file:$FDB_DIR/data/?_pragma=synchronous(${FERRETDB_SQLITE_SYNCHRONOUS:-normal})" \
    --state-dir="$FDB_DIR/state" \
    --listen-addr="$HOST:$MONGO_PORT" \
    --debug-addr="${FERRETDB_DEBUG_ADDR:--}" \
    --telemetry=disable \
    --log-level="${FERRETDB_LOG_LEVEL:-warn}"
}

write_nats_conf() {
  mkdir -p "$NATS_DIR/jetstream"
  # sync_interval: always -> fsync each write before acking (money-moving
  # streams; the default syncs every 2 minutes). Needs nats-server >= 2.10.
  local sync="sync_interval: always"
  if [[ "$(cat "$BIN_DIR/.nats-server.version" 2>/dev/null)" == debian ]]; then
    sync="# sync_interval not supported by nats-server 2.9"
  fi
  cat >"$NATS_CONF" <<EOF
# Generated by scripts/infra.sh; edits are overwritten on every \`up\`.
server_name: "infra-$NATS_PORT"
listen: "$HOST:$NATS_PORT"
http: "$HOST:$NATS_HTTP_PORT"
jetstream {
  store_dir: "$NATS_DIR/jetstream"
  $sync
}
EOF
}

start_nats() {
  write_nats_conf
  : >"$NATS_PID"
  spawn "$NATS_PID" "$NATS_LOG" "$NATS_BIN" -c "$NATS_CONF"
}

# Stops the process in pidfile $1 (binary name $2): SIGTERM, wait, SIGKILL.
stop_proc() {
  local pidfile="$1" name="$2" label="$3" pid
  if pid="$(live_pid "$pidfile" "$name")"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do   # up to 10 s for a clean shutdown (flushes data)
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "$label (pid $pid) did not stop in 10s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
    log "$label stopped (pid $pid)"
  else
    log "$label not running"
  fi
  rm -f "$pidfile"
}

# -------------------------------------------------------------- commands ----

fail_start() {
  local label="$1" logfile="$2" reason="$3"
  log "$label: $reason"
  log "---- last 40 lines of $logfile ----"
  tail -n 40 "$logfile" >&2 2>/dev/null || true
  log "----"
  cmd_down >/dev/null 2>&1 || true   # leave nothing half-started
  die "$label failed to start (both servers stopped)"
}

cmd_up() {
  local fresh="${INFRA_FRESH:-0}"
  for arg in "$@"; do
    case "$arg" in
      --fresh) fresh=1 ;;
      *) die "unknown option for up: $arg" ;;
    esac
  done

  install_tools
  mkdir -p "$INFRA_DIR"

  if [[ "$fresh" == 1 ]]; then
    cmd_down
    log "--fresh: wiping data and logs in $INFRA_DIR"
    rm -rf "$FDB_DIR" "$NATS_DIR"
  fi

  # Reuse our servers if alive. Check every port before starting anything, so
  # a port held by something else fails cleanly instead of half-starting.
  local need_fdb=1 need_nats=1 port
  if live_pid "$FDB_PID" ferretdb >/dev/null; then
    log "ferretdb already running (pid $(cat "$FDB_PID"))"; need_fdb=0
  elif port_open "$MONGO_PORT"; then
    die "port $HOST:$MONGO_PORT is in use by another process (choose another MONGO_PORT)"
  fi
  if live_pid "$NATS_PID" nats-server >/dev/null; then
    log "nats-server already running (pid $(cat "$NATS_PID"))"; need_nats=0
  else
    for port in "$NATS_PORT" "$NATS_HTTP_PORT"; do
      ! port_open "$port" || die "port $HOST:$port is in use by another process (choose other NATS_PORT / NATS_HTTP_PORT)"
    done
  fi
  [[ $need_fdb == 0 ]] || start_ferretdb || fail_start ferretdb "$FDB_LOG" "could not spawn"
  [[ $need_nats == 0 ]] || start_nats || fail_start nats-server "$NATS_LOG" "could not spawn"

  # Wait for both to accept real requests; bail out early if one died.
  local deadline=$((SECONDS + INFRA_TIMEOUT)) mongo_ok=0 nats_ok=0
  while :; do
    [[ $mongo_ok == 1 ]] || { mongo_healthy && mongo_ok=1; } || true
    [[ $nats_ok == 1 ]] || { nats_healthy && nats_ok=1; } || true
    [[ $mongo_ok == 1 && $nats_ok == 1 ]] && break
    live_pid "$FDB_PID" ferretdb >/dev/null || fail_start ferretdb "$FDB_LOG" "process exited"
    live_pid "$NATS_PID" nats-server >/dev/null || fail_start nats-server "$NATS_LOG" "process exited"
    if (( SECONDS >= deadline )); then
      [[ $mongo_ok == 1 ]] || fail_start ferretdb "$FDB_LOG" "not answering ping after ${INFRA_TIMEOUT}s"
      fail_start nats-server "$NATS_LOG" "/healthz not OK after ${INFRA_TIMEOUT}s"
    fi
    sleep 0.2
  done

  log "ferretdb $FERRETDB_BUILD up (pid $(cat "$FDB_PID"), log $FDB_LOG)"
  log "nats-server up (pid $(cat "$NATS_PID"), log $NATS_LOG, monitor http://$HOST:$NATS_HTTP_PORT)"
  echo "MONGODB_URI=mongodb://$HOST:$MONGO_PORT/"
  echo "NATS_URL=nats://$HOST:$NATS_PORT"
}

cmd_down() {
  stop_proc "$FDB_PID" ferretdb ferretdb
  stop_proc "$NATS_PID" nats-server nats-server
}

cmd_status() {
  local rc=0 pid
  if pid="$(live_pid "$FDB_PID" ferretdb)" && mongo_healthy; then
    echo "ferretdb:    up   (pid $pid) mongodb://$HOST:$MONGO_PORT/"
  else
    echo "ferretdb:    down (port $MONGO_PORT)"; rc=1
  fi
  if pid="$(live_pid "$NATS_PID" nats-server)" && nats_healthy; then
    echo "nats-server: up   (pid $pid) nats://$HOST:$NATS_PORT (monitor :$NATS_HTTP_PORT)"
  else
    echo "nats-server: down (port $NATS_PORT)"; rc=1
  fi
  return $rc
}

case "${1:-}" in
  up)      shift; cmd_up "$@" ;;
  down)    cmd_down ;;
  status)  cmd_status ;;
  install) install_tools; log "tools ready in $BIN_DIR" ;;
  *) echo "usage: $0 {up [--fresh]|down|status|install}" >&2; exit 2 ;;
esac
