import type { Model } from 'mongoose';
import type { Mode, OutboxEntry } from '@ppay/kernel';
import { FERRETDB_SQL_PUSHDOWN, outboxEntrySchema } from '@ppay/runtime';

/**
 * The leased scheduler's three queries on any collection of scheduled documents (subscriptions,
 * installment plans): each document carries `wake_at` (its next action in real time), `lease_owner` and
 * `lease_until`, indexed as `{wake_at: 1, lease_until: 1}`.
 */
export const EPOCH = new Date(0);

/** What every scheduled document stores beside its record (SCHEDULED_DOCUMENT_FIELDS are its paths). */
export interface ScheduledFields {
  /** When the scheduler next acts, on the document's own clock. */
  next_action_at: Date | null;
  /** The same instant in real time (next_action_at − clock offset): what the scheduler's query compares. */
  wake_at: Date | null;
  lease_owner: string | null;
  /** The lease is free once this has passed (epoch when never taken). */
  lease_until: Date;
  outbox: OutboxEntry[];
}

/**
 * The schema paths every scheduled document has: its next action on its own clock and in real time, its
 * lease, and its outbox.
 */
export const SCHEDULED_DOCUMENT_FIELDS = {
  next_action_at: { type: Date, default: null },
  wake_at: { type: Date, default: null },
  lease_owner: { type: String, default: null },
  lease_until: { type: Date, required: true },
  outbox: { type: [outboxEntrySchema], default: [] },
};

/** Ids due by `realNow` whose lease is free, earliest first: a range scan of the claim index. */
export async function dueIdsIn<D>(model: Model<D>, realNow: Date, limit: number): Promise<string[]> {
  const docs = (await model
    .find({ wake_at: { $lte: realNow }, lease_until: { $lte: realNow } } as never, { _id: 1 })
    .sort({ wake_at: 1 })
    .limit(limit)
    .comment(FERRETDB_SQL_PUSHDOWN) // a range scan of the claim index instead of a read of every document
    .lean()
    .exec()) as unknown as { _id: string }[];
  return docs.map((d) => d._id);
}

/** Takes the lease if it is free (and, with dueOnly, if the document is due): one conditional update. */
export async function claimIn<D>(
  model: Model<D>,
  id: string,
  realNow: Date,
  owner: string,
  leaseMs: number,
  options: { dueOnly?: boolean },
): Promise<D | null> {
  const filter: Record<string, unknown> = { _id: id, lease_until: { $lte: realNow } };
  if (options.dueOnly) filter.wake_at = { $lte: realNow };
  return (await model
    .findOneAndUpdate(
      filter as never,
      { $set: { lease_owner: owner, lease_until: new Date(realNow.getTime() + leaseMs) } } as never,
      { new: true },
    )
    .lean()
    .exec()) as D | null;
}

/** Gives the lease back; `retryAt` keeps others off until then. */
export async function releaseIn<D>(model: Model<D>, id: string, owner: string, retryAt?: Date): Promise<void> {
  await model
    .updateOne(
      { _id: id, lease_owner: owner } as never,
      {
        $set: { lease_owner: null, lease_until: retryAt ?? EPOCH },
      } as never,
    )
    .exec();
}

/** A write under the scheduler's lease: conditional on `owner`, extending it to `until` or giving it back. */
export interface LeaseWrite {
  owner: string;
  until: Date;
  release?: boolean;
}

/**
 * Writes `state` as version + 1 with its events pushed to the outbox, only while the stored version is
 * still `version` (and, with `lease`, while `lease.owner` holds it); null when someone else wrote first.
 */
export async function saveVersioned<D>(
  model: Model<D>,
  id: string,
  version: number,
  state: Record<string, unknown>,
  events: OutboxEntry[],
  lease?: LeaseWrite,
): Promise<D | null> {
  const filter: Record<string, unknown> = { _id: id, version };
  if (lease) filter.lease_owner = lease.owner;
  const set: Record<string, unknown> = { ...state, version: version + 1, updated_at: new Date() };
  if (lease) set.lease_until = lease.release ? EPOCH : lease.until;
  if (lease?.release) set.lease_owner = null;
  const update: Record<string, unknown> = { $set: set };
  if (events.length) update.$push = { outbox: { $each: events } };
  // findAndModify cannot project on FerretDB: the outbox comes back (the caller's toRecord drops it).
  return (await model
    .findOneAndUpdate(filter as never, update as never, { new: true })
    .lean()
    .exec()) as D | null;
}

const NO_OUTBOX = { outbox: 0 };

/**
 * What the repositories of scheduled documents share: reads by id (the merchant's, scoped), the versioned
 * and leased write, and the scheduler's three queries. A subclass says how a document becomes a record
 * and which fields a record stores (its state plus what the queries need).
 */
export abstract class ScheduledDocuments<D, T extends { id: string; version: number }> {
  /** `afterWrite` is told which document gained outbox events (the relay's fast path). */
  constructor(
    readonly model: Model<D>,
    protected readonly afterWrite: (id: string) => void = () => undefined,
  ) {}

  protected abstract toRecord(doc: D): T;
  protected abstract stored(rec: T): Record<string, unknown>;

  async findForMerchant(merchantId: number, mode: Mode, id: string): Promise<T | null> {
    const doc = (await this.model
      .findOne({ _id: id, merchant_id: merchantId, mode } as never, NO_OUTBOX)
      .lean()
      .exec()) as D | null;
    return doc ? this.toRecord(doc) : null;
  }

  async findById(id: string): Promise<T | null> {
    const doc = (await this.model
      .findOne({ _id: id } as never, NO_OUTBOX)
      .lean()
      .exec()) as D | null;
    return doc ? this.toRecord(doc) : null;
  }

  async save(next: T, events: OutboxEntry[], lease?: LeaseWrite): Promise<T | null> {
    const doc = await saveVersioned(this.model, next.id, next.version, this.stored(next), events, lease);
    if (!doc) return null;
    if (events.length) this.afterWrite(next.id);
    return this.toRecord(doc);
  }

  dueIds(realNow: Date, limit: number): Promise<string[]> {
    return dueIdsIn(this.model, realNow, limit);
  }

  async claim(id: string, realNow: Date, owner: string, leaseMs: number, options: { dueOnly?: boolean } = {}) {
    const doc = await claimIn(this.model, id, realNow, owner, leaseMs, options);
    return doc ? this.toRecord(doc) : null;
  }

  release(id: string, owner: string, retryAt?: Date): Promise<void> {
    return releaseIn(this.model, id, owner, retryAt);
  }
}
