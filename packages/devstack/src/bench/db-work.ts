import { FERRETDB_SQL_PUSHDOWN } from '@ppay/runtime';
import { mongo } from 'mongoose';

/**
 * What a bench's requests cost the database: FerretDB's command counters (its `/debug/metrics`,
 * `ferretdb_client_requests_total` by command; the bench infrastructure serves them on
 * BENCH_FERRETDB_DEBUG_PORT) and the documents added to every collection of every database. Read
 * before and after a measured window and divided by its requests, so a case prints e.g. "insert 1.00,
 * findAndModify 1.00" per request beside its ceiling's "insert 1.00".
 */
export interface DbSnapshot {
  /** The counters when the snapshot began, and after its own counting of documents. */
  commands: Map<string, number>;
  commandsAfter?: Map<string, number>;
  documents: Map<string, number>;
}

/** Commands a driver sends on its own (connection checks, sessions, cursors' ends), not per request. */
const HOUSEKEEPING = new Set(['hello', 'isMaster', 'ismaster', 'ping', 'endSessions', 'buildInfo', 'unknown']);

/** The per-command request counters of a Prometheus text page (summed over opcodes). */
export function parseFerretdbCommands(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^ferretdb_client_requests_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const command = /command="([^"]*)"/.exec(m[1]!)?.[1];
    if (!command || HOUSEKEEPING.has(command)) continue;
    counts.set(command, (counts.get(command) ?? 0) + Number(m[2]));
  }
  return counts;
}

async function readCommands(metricsUrl: string): Promise<Map<string, number>> {
  const res = await fetch(metricsUrl);
  if (!res.ok) throw new Error(`FerretDB metrics ${metricsUrl}: ${res.status}`);
  return parseFerretdbCommands(await res.text());
}

export async function dbSnapshot(metricsUrl: string, mongoUri: string): Promise<DbSnapshot> {
  const commands = await readCommands(metricsUrl);
  const documents = new Map<string, number>();
  const client = await mongo.MongoClient.connect(mongoUri);
  try {
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) {
      if (name === 'admin' || name === 'local' || name === 'config') continue;
      const db = client.db(name);
      for (const c of await db.listCollections({}, { nameOnly: true }).toArray()) {
        // COUNT(*) in SQL on the local FerretDB (patch 6) rather than every document decoded in Go.
        const { n } = await db.command({ count: c.name, query: {}, comment: FERRETDB_SQL_PUSHDOWN });
        documents.set(`${name}.${c.name}`, Number(n));
      }
    }
  } finally {
    await client.close();
  }
  return { commands, commandsAfter: await readCommands(metricsUrl), documents };
}

/** Per-request differences, largest first; entries under 0.005 per request are left out. */
export function perRequest(
  before: Map<string, number>,
  after: Map<string, number>,
  requests: number,
): [string, number][] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys]
    .map((k) => [k, ((after.get(k) ?? 0) - (before.get(k) ?? 0)) / Math.max(1, requests)] as [string, number])
    .filter(([, n]) => Math.abs(n) >= 0.005)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export interface DbWork {
  commands: [string, number][];
  documents: [string, number][];
}

/** From the end of `before` (its own counting excluded) to the start of `after`. */
export function dbWork(before: DbSnapshot, after: DbSnapshot, requests: number): DbWork {
  return {
    commands: perRequest(before.commandsAfter ?? before.commands, after.commands, requests),
    documents: perRequest(before.documents, after.documents, requests),
  };
}

const list = (entries: [string, number][]) =>
  entries.length ? entries.map(([k, n]) => `${k} ${n.toFixed(2)}`).join(', ') : 'none';
const total = (entries: [string, number][]) => entries.reduce((s, [, n]) => s + n, 0).toFixed(2);

/** "db commands/req 2.02 (insert 1.00, findAndModify 1.00, …); documents added/req 1.00 (ppay_payments.charges 1.00)". */
export function fmtDbWork(w: DbWork): string {
  return `db commands/req ${total(w.commands)} (${list(w.commands)}); documents added/req ${total(w.documents)} (${list(w.documents)})`;
}
