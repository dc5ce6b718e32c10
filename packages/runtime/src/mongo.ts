import mongoose, { type Connection, type Model } from 'mongoose';
import type { Logger } from './logger';

/**
 * Each service owns one database on the shared server (or its own server in production).
 * Nothing here uses multi-document transactions: aggregates are single documents, idempotency is
 * enforced by unique indexes, and events leave through an outbox inside the aggregate.
 */
export async function connectMongo(uri: string, dbName: string, log: Logger): Promise<Connection> {
  const conn = mongoose.createConnection(uri, {
    dbName,
    autoIndex: false, // indexes are created explicitly at boot so a failure stops the boot
    serverSelectionTimeoutMS: 15_000,
    maxPoolSize: 20,
  });
  conn.on('disconnected', () => log.warn('mongo disconnected'));
  conn.on('reconnected', () => log.info('mongo reconnected'));
  await conn.asPromise();
  return conn;
}

export async function ensureIndexes(models: Model<any>[]): Promise<void> {
  for (const model of models) await model.createIndexes();
}

/** E11000: a unique index rejected the write. Repositories translate this into domain errors. */
export function isDuplicateKeyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 11000 || code === 11001;
}

/**
 * Inserts a document the domain built whole (every schema path, with its type): a lean insert, which
 * skips mongoose's hydration, casting, defaults and validation, most of a charge insert's CPU
 * (docs/performance.md, charge-create). Only for documents whose record type already requires every path;
 * the repository's test validates such a document against the schema, so the two cannot drift apart.
 */
export async function insertBuilt(model: Model<any>, doc: Record<string, unknown>): Promise<void> {
  await model.insertMany([doc], { lean: true });
}

/**
 * A sweep's `updateMany(filter, update)` as a read and then one conditional update per document by
 * `_id` (the filter repeated, so a document that changed meanwhile is left alone). Same outcome, but
 * a MongoDB-wire server that serialises writes and cannot push a range filter down (FerretDB) no
 * longer holds its write lock while it reads the whole collection. At most `limit` per call: a sweep
 * runs again soon.
 */
export async function updateEachMatching(
  model: Model<any>,
  filter: Record<string, unknown>,
  update: Record<string, unknown>,
  options: {
    limit?: number;
    /** The filter qualifies for FERRETDB_SQL_PUSHDOWN (its promise: scalar fields only, never arrays). */
    sqlPushdown?: boolean;
  } = {},
): Promise<number> {
  const query = model.find(filter, { _id: 1 }).limit(options.limit ?? 500);
  if (options.sqlPushdown) query.comment(FERRETDB_SQL_PUSHDOWN);
  const ids = (await query.lean().exec()) as { _id: unknown }[];
  let modified = 0;
  for (const { _id } of ids) {
    modified += (await model.updateOne({ ...filter, _id }, update).exec()).modifiedCount;
  }
  return modified;
}

const counterSchema = new mongoose.Schema(
  { _id: String, seq: { type: Number, required: true } },
  { versionKey: false },
);

/**
 * Monotonic integer ids (the spec's merchant and relationship ids are integers) from a counter
 * document: one atomic findOneAndUpdate per id.
 */
export async function nextSequence(conn: Connection, name: string, start = 1): Promise<number> {
  const Counter = conn.models.Counter ?? conn.model('Counter', counterSchema, 'counters');
  const doc = await Counter.findOneAndUpdate(
    { _id: name },
    { $inc: { seq: 1 } },
    { upsert: true, new: true, lean: true },
  ).exec();
  return (doc as unknown as { seq: number }).seq + start - 1;
}

/** The kernel's Money as stored: integer minor units + ISO 4217 code (no floats, no loose pairs). */
export const moneySchema = new mongoose.Schema(
  {
    amount: {
      type: Number,
      required: true,
      validate: { validator: Number.isSafeInteger, message: 'amount must be an integer' },
    },
    currency: { type: String, required: true },
  },
  { _id: false },
);

/**
 * A `find` or `count` comment that asks the local FerretDB to run the query in SQL over its indexes
 * (FerretDB patch 6, scripts/ferretdb/patches/0006-sql-pushdown.patch; MongoDB ignores it). Only for queries made of equality or $lt/$lte/$gt/$gte on
 * fields that hold one scalar type in every document (never an array), with a sort on such fields: the
 * comment is that promise. Without it FerretDB decodes and filters every document of the collection in Go.
 */
export const FERRETDB_SQL_PUSHDOWN = 'ferretdb:sql-pushdown';
