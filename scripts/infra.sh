#!/usr/bin/env bash
# shellcheck disable=SC2016  # single-quoted $ is intended (perl, bash -c snippets)
# Local infrastructure for development, tests and CI, on loopback only:
#   - FerretDB v1 (MongoDB wire protocol) on SQLite, built from the Go module
#     proxy with six small fixes (see patch_ferretdb)
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

FERRETDB_VERSION="v1.24.2"   # newest FerretDB v1 on the Go proxy (v2 needs PostgreSQL+DocumentDB)
FERRETDB_BUILD="$FERRETDB_VERSION-infra.4-sqlpushdown4"   # + local patches (patch_ferretdb); bump on change
NATS_VERSION="v2.10.27"      # newest 2.10.x on the Go proxy; 2.10+ needed by compose/Helm

HOST="127.0.0.1"             # loopback only, never 0.0.0.0
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"; export HOME   # go needs it for its caches
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

# Builds FerretDB into $1. `go install …/cmd/ferretdb@v` gives a binary that
# panics at start: build/version/version.txt is generated and is not in the
# module zip. So: download the module, copy it, write version.txt, patch, build.
build_ferretdb() {
  local out="$1" go src work
  go="$(find_go)" || die "Go not found (expected /usr/local/go/bin/go); cannot build FerretDB"
  go_env
  src="$("$go" mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" \
          | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -d "$src" ]] || die "go mod download of FerretDB $FERRETDB_VERSION failed"
  work="$(mktemp -d)"
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"            # module cache files are read-only
  echo "$FERRETDB_BUILD" > "$work/build/version/version.txt"
  patch_ferretdb "$work"
  # ferretdb_no_postgresql: we only use SQLite; skips compiling pgx (faster).
  (cd "$work" && "$go" build -tags ferretdb_no_postgresql -o "$out" ./cmd/ferretdb)
  rm -rf "$work"
}

# perl -0 substitution that must match, so an upstream change fails the
# build loudly instead of silently dropping a fix.
patch_file() {
  local file="$1" expr="$2" before
  before="$(md5sum "$file")"
  perl -0pi -e "$expr" "$file"
  [[ "$(md5sum "$file")" != "$before" ]] || die "FerretDB patch did not apply to $file"
}

# Fixes for FerretDB v1.24.2 bugs that break this platform (found with a
# mongoose test run against the unpatched build). Bump FERRETDB_BUILD when
# changing them so cached binaries are rebuilt.
patch_ferretdb() {
  local d="$1"
  # 1. Lost updates: update/findAndModify/delete are read-modify-write with no
  #    locking, so concurrent $inc, upserts and {_id, version} conditional
  #    updates overwrite each other (50 parallel $inc -> 4). Run write commands
  #    one at a time (SQLite has a single writer anyway).
  cat >"$d/internal/handler/infra_writelock.go" <<'EOF'
package handler

import (
	"context"
	"sync"

	"github.com/FerretDB/wire"
)

// Added by scripts/infra.sh: serialize write commands (see there).
var infraWriteMu sync.Mutex

func (h *Handler) infraSerializeWrites() {
	for _, name := range []string{"insert", "update", "delete", "findAndModify", "findandmodify"} {
		c := h.commands[name]
		if c == nil || c.Handler == nil {
			panic("infra.sh patch: no command " + name)
		}
		next := c.Handler
		c.Handler = func(ctx context.Context, msg *wire.OpMsg) (*wire.OpMsg, error) {
			infraWriteMu.Lock()
			defer infraWriteMu.Unlock()
			return next(ctx, msg)
		}
	}
}
EOF
  patch_file "$d/internal/handler/handler.go" \
    's/^(\th\.initCommands\(\)\n)/$1\th.infraSerializeWrites()\n/m'
  # 2. $group with several accumulators: all share one iterator, so only the
  #    first sees the documents ({credits: {$sum: "$amount"}, n: {$sum: 1}}
  #    gave n: 0). Give each accumulator its own iterator.
  patch_file "$d/internal/handler/common/aggregations/stages/group.go" \
    's/\t\tgroupIter := (iterator\.Values\(iterator\.ForSlice\(groupedDocument\.documents\)\))\n\t\tdefer groupIter\.Close\(\)\n\n(\t\tfor _, accumulation := range g\.groupBy \{\n)/$2\t\t\tgroupIter := $1\n\t\t\tdefer groupIter.Close()\n\n/'
  # 3. An update that violates a unique index returned code 1 (InternalError)
  #    instead of 11000 (only inserts were mapped). Map it like InsertAll does.
  patch_file "$d/internal/backends/sqlite/collection.go" \
    's/(\t\t\tr, err := tx\.ExecContext\(ctx, q, string\(b\), arg\)\n\t\t\tif err != nil \{\n)/$1\t\t\t\tif se := (*sqlite3.Error)(nil); errors.As(err, &se) && se.Code() == sqlite3lib.SQLITE_CONSTRAINT_UNIQUE {\n\t\t\t\t\treturn backends.NewError(backends.ErrorCodeInsertDuplicateID, err)\n\t\t\t\t}\n/'
  # 4. Full scans behind every conditional update: the SQLite backend looks a
  #    document up by its _id only when the filter is exactly {_id: x}, so
  #    {_id: x, status: 'pending'} (every conditional update and findOneAndUpdate
  #    in the platform) decoded and filtered the whole collection in Go under the
  #    write lock of fix 1 (measured: 3 ms vs 174 ms per update at 20,000
  #    documents). Use the _id lookup whenever the filter has a top-level _id: the
  #    handlers still apply the whole filter to what the backend returns, and an
  #    _id is never an array, so no matching document can be left out.
  patch_file "$d/internal/backends/sqlite/collection.go" \
    's/(q := prepareSelectClause\(meta\.TableName, params\.Comment, meta\.Capped\(\), params\.OnlyRecordIDs\)\n(?:.*\n){6})\tif params\.Filter\.Len\(\) == 1 \{\n\t\tv, _ := params\.Filter\.Get\("_id"\)/$1\tif params.Filter.Len() >= 1 {\n\t\tv, _ := params.Filter.Get("_id")/'
  # 5. Every _id lookup scanned the whole table: queries, updates and deletes
  #    compare `_ferretdb_sjson->'$._id'`, but the unique _id index is on
  #    `_ferretdb_sjson->"_id"` (same value, different expression text), so
  #    SQLite never used it (an updateOne({_id}) took 60 ms at 10,000 documents,
  #    growing with the collection). Spell the lookup like the index.
  patch_file "$d/internal/backends/sqlite/metadata/metadata.go" \
    's/IDColumn = DefaultColumn \+ "->\x27\$\._id\x27"/IDColumn = DefaultColumn + "->\\"_id\\""/'
  # 6. Sorted pages and counts read the whole collection: any filter but _id
  #    equality is decoded and filtered in Go, then sorted, skipped and limited
  #    in Go (a sorted page of 20 out of 100,000 documents took seconds, and so
  #    did its count). A find or count whose `comment` is "ferretdb:sql-pushdown"
  #    (the caller's promise that every field it filters or sorts on holds one
  #    scalar type, never an array) is run in SQL instead when it is simple
  #    enough: equality or $lt/$lte/$gt/$gte on field paths with string,
  #    number or date values, or equality with null (no _id, no other
  #    operator), a sort on field
  #    paths, skip and limit; a count becomes
  #    SELECT COUNT(*). Non-unique indexes are created on `->>` (SQL values:
  #    numbers compare as numbers, null sorts first) so such a query is an index
  #    range scan. Anything else, and every query without the comment, runs as
  #    before; the handler still filters and sorts what SQL returns. MongoDB
  #    ignores the comment and serves the same query from the same indexes.
  cat >"$d/internal/backends/infra_sql.go" <<'EOF'
package backends

import (
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// Added by scripts/infra.sh (patch 6): SQL pushdown of simple finds and counts.

// InfraSQLComment is the find/count comment that asks for the pushdown.
const InfraSQLComment = "ferretdb:sql-pushdown"

// InfraSQLQuery is a query the backend runs entirely in SQL.
type InfraSQLQuery struct {
	Filter []InfraSQLTerm // equalities, ANDed
	Sort   []InfraSQLKey
	Skip   int64
	Limit  int64
	Count  bool // one document {n: <count>} instead of the documents
}

// InfraSQLTerm is path <op> value.
type InfraSQLTerm struct {
	Path  []string
	Op    string // =, <, <=, >, >=, IS NULL (no value)
	Value any    // string, int64 or float64 (a date is its milliseconds, as sjson stores it)
}

var infraSQLOps = map[string]string{"$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="}

// infraSQLValue is a filter value as SQL compares it with ->>, or nil when it has no such form.
func infraSQLValue(v any) any {
	switch v := v.(type) {
	case string:
		return v
	case int32:
		return int64(v)
	case int64:
		return v
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	case time.Time:
		return v.UnixMilli()
	default:
		return nil
	}
}

// InfraSQLKey is one sort key.
type InfraSQLKey struct {
	Path       []string
	Descending bool
}

var infraSQLSegment = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

func infraSQLPath(key string) []string {
	parts := strings.Split(key, ".")
	if len(parts) > 8 {
		return nil
	}
	for _, p := range parts {
		if !infraSQLSegment.MatchString(p) {
			return nil
		}
	}
	return parts
}

// InfraSQLPushdown returns the SQL form of a query, or nil when it is not simple enough.
func InfraSQLPushdown(comment string, filter, sort *types.Document, skip, limit int64) *InfraSQLQuery {
	if comment != InfraSQLComment || skip < 0 || limit < 0 {
		return nil
	}
	q := &InfraSQLQuery{Skip: skip, Limit: limit}
	if filter != nil {
		for _, k := range filter.Keys() {
			v, _ := filter.Get(k)
			path := infraSQLPath(k)
			if path == nil || path[0] == "_id" {
				return nil
			}
			if ops, ok := v.(*types.Document); ok {
				// {$gte: a, $lt: b}: ranges only; any other operator is not pushed down.
				if ops.Len() == 0 {
					return nil
				}
				for _, op := range ops.Keys() {
					sqlOp, known := infraSQLOps[op]
					bound := infraSQLValue(must.NotFail(ops.Get(op)))
					if !known || bound == nil {
						return nil
					}
					q.Filter = append(q.Filter, InfraSQLTerm{Path: path, Op: sqlOp, Value: bound})
				}
				continue
			}
			if _, isNull := v.(types.NullType); isNull {
				// {f: null} matches null and missing: both are SQL NULL through ->>.
				q.Filter = append(q.Filter, InfraSQLTerm{Path: path, Op: "IS NULL"})
				continue
			}
			value := infraSQLValue(v)
			if value == nil {
				return nil
			}
			q.Filter = append(q.Filter, InfraSQLTerm{Path: path, Op: "=", Value: value})
		}
	}
	if sort != nil {
		for _, k := range sort.Keys() {
			v, _ := sort.Get(k)
			path := infraSQLPath(k)
			d, ok := v.(int64)
			if path == nil || !ok || (d != 1 && d != -1) {
				return nil
			}
			q.Sort = append(q.Sort, InfraSQLKey{Path: path, Descending: d == -1})
		}
	}
	return q
}
EOF
  patch_file "$d/internal/backends/collection.go" \
    's/(type QueryParams struct \{\n(?:.*\n)*?\tComment       string\n)/$1\n\t\/\/ InfraSQL: added by scripts\/infra.sh (patch 6).\n\tInfraSQL *InfraSQLQuery\n/'
  cat >"$d/internal/backends/sqlite/infra_sql.go" <<'EOF'
package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// Added by scripts/infra.sh (patch 6): runs a backends.InfraSQLQuery in SQL.

// infraSQLExpr spells a path's SQL value as the non-unique indexes do: ->"a"->>"b".
func infraSQLExpr(path []string) string {
	var b strings.Builder
	b.WriteString(metadata.DefaultColumn)
	for i, p := range path {
		if i == len(path)-1 {
			b.WriteString("->>")
		} else {
			b.WriteString("->")
		}
		fmt.Fprintf(&b, "%q", p)
	}
	return b.String()
}

func infraSQLQuery(ctx context.Context, db *fsql.DB, table, comment string, p *backends.InfraSQLQuery, onlyRecordIDs bool) (*backends.QueryResult, error) { //nolint:lll // for readability
	selectClause := prepareSelectClause(table, comment, false, onlyRecordIDs)
	if p.Count {
		// One sjson document {n: <long>}.
		selectClause = fmt.Sprintf(
			`SELECT '{"$s":{"$k":["n"],"p":{"n":{"t":"long"}}},"n":' || COUNT(*) || '}' AS %s FROM %q`,
			metadata.DefaultColumn, table,
		)
	}
	q := selectClause
	var args []any
	for i, t := range p.Filter {
		if i == 0 {
			q += " WHERE "
		} else {
			q += " AND "
		}
		if t.Op == "IS NULL" {
			q += infraSQLExpr(t.Path) + " IS NULL"
			continue
		}
		q += infraSQLExpr(t.Path) + " " + t.Op + " ?"
		args = append(args, t.Value)
	}
	if !p.Count {
		for i, k := range p.Sort {
			if i == 0 {
				q += " ORDER BY "
			} else {
				q += ", "
			}
			q += infraSQLExpr(k.Path)
			if k.Descending {
				q += " DESC"
			}
		}
		if p.Limit > 0 || p.Skip > 0 {
			limit := p.Limit
			if limit == 0 {
				limit = -1
			}
			q += " LIMIT ? OFFSET ?"
			args = append(args, limit, p.Skip)
		}
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}
	return &backends.QueryResult{Iter: newQueryIterator(ctx, rows, onlyRecordIDs)}, nil
}
EOF
  patch_file "$d/internal/backends/sqlite/collection.go" \
    's/(\tq := prepareSelectClause\(meta\.TableName, params\.Comment, meta\.Capped\(\), params\.OnlyRecordIDs\)\n)/\tif params.InfraSQL != nil && (!meta.Capped() || params.InfraSQL.Count) {\n\t\treturn infraSQLQuery(ctx, db, meta.TableName, params.Comment, params.InfraSQL, params.OnlyRecordIDs)\n\t}\n\n$1/'
  patch_file "$d/internal/backends/sqlite/metadata/registry.go" \
    's/(\t\t\tcolumns\[i\] = fmt\.Sprintf\("%s->%s", DefaultColumn, strings\.Join\(fields, "->"\)\)\n)/$1\t\t\tif !index.Unique {\n\t\t\t\tcolumns[i] = fmt.Sprintf("%s->%s", DefaultColumn, strings.Join(fields, "->"))\n\t\t\t\tif k := strings.LastIndex(columns[i], "->"); k >= 0 {\n\t\t\t\t\tcolumns[i] = columns[i][:k] + "->>" + columns[i][k+2:]\n\t\t\t\t}\n\t\t\t}\n/'
  # find: the skip is applied by SQL, so the handler must not skip again.
  patch_file "$d/internal/handler/msg_find.go" \
    's/(\th\.L\.DebugContext\(ctx, fmt\.Sprintf\("Converted %\+v for %\+v to %\+v\.", params, cInfo, qp\)\)\n)/\tif !h.DisablePushdown \&\& !cInfo.Capped() {\n\t\tif p := backends.InfraSQLPushdown(params.Comment, params.Filter, params.Sort, params.Skip, params.Limit); p != nil {\n\t\t\tqp.InfraSQL = p\n\t\t\tqp.Limit = 0\n\t\t\tparams.Skip = 0\n\t\t}\n\t}\n\n$1/'
  # count: the comment is read from the command (GetCountParams ignores it).
  patch_file "$d/internal/handler/msg_count.go" \
    's/(\tqueryRes, err := c\.Query\(connCtx, &qp\)\n)/\tif comment, _ := document.Get("comment"); !h.DisablePushdown \&\& params.Skip == 0 \&\& params.Limit == 0 {\n\t\tc2, _ := comment.(string)\n\t\tif p := backends.InfraSQLPushdown(c2, params.Filter, nil, 0, 0); p != nil {\n\t\t\tp.Count = true\n\t\t\tn, err := infraSQLCount(connCtx, c, \&backends.QueryParams{InfraSQL: p})\n\t\t\tif err != nil {\n\t\t\t\treturn nil, lazyerrors.Error(err)\n\t\t\t}\n\n\t\t\treturn documentOpMsg(must.NotFail(types.NewDocument("n", n, "ok", float64(1))))\n\t\t}\n\t}\n\n$1/'
  cat >"$d/internal/handler/infra_sql_count.go" <<'EOF'
package handler

import (
	"context"
	"errors"
	"math"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// Added by scripts/infra.sh (patch 6): the count of a pushed-down count query.
func infraSQLCount(ctx context.Context, c backends.Collection, qp *backends.QueryParams) (int32, error) {
	res, err := c.Query(ctx, qp)
	if err != nil {
		return 0, lazyerrors.Error(err)
	}
	defer res.Iter.Close()

	_, doc, err := res.Iter.Next()
	if errors.Is(err, iterator.ErrIteratorDone) {
		return 0, nil
	}
	if err != nil {
		return 0, lazyerrors.Error(err)
	}

	n, _ := doc.Get("n")
	v, _ := n.(int64)
	if v > math.MaxInt32 {
		return math.MaxInt32, nil
	}

	return int32(v), nil
}
EOF
}

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

install_tools() {
  ensure_tool ferretdb "$FERRETDB_BUILD" build_ferretdb || die "FerretDB build failed"
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

# /healthz answers 200 only once JetStream is up (and streams recovered).
nats_healthy() {
  curl -fsS --max-time 3 "http://$HOST:$NATS_HTTP_PORT/healthz" >/dev/null 2>&1
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
  FERRETDB_TELEMETRY=disable DO_NOT_TRACK=1 spawn "$FDB_PID" "$FDB_LOG" "$FERRETDB_BIN" \
    --handler=sqlite \
    --sqlite-url="file:$FDB_DIR/data/" \
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
