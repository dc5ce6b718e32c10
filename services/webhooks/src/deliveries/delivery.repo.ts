import { Schema, type Connection, type FilterQuery, type Model } from 'mongoose';
import { WriteBatcher, type Mode } from '@ppay/kernel';
import { claimToken, leaseEndOf } from './claim-token';
import type { AttemptOutcome } from './delivery';
import type { AttemptStore, ClaimedDelivery, ClaimOptions } from './ports';
import type { DeliveryStore, RequeueFilter } from '../ports';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus } from './delivery';
import { deleteBatch, insertIgnoringDuplicates } from '../bulk-writes.repo';

/**
 * Deliveries live in two collections:
 *
 * - `webhook_deliveries`, the log: one document per event and key with every attempt, read by the
 *   partner API. The hot path only inserts into it: a new delivery is inserted once its first attempt
 *   is answered (`recordFirst`); retries and resends update it by `_id`.
 * - `webhook_due`, the work: one small document per delivery that is not finished (pending or being
 *   sent) after its first attempt or instead of it, with its lease and counters, deleted when the
 *   delivery ends; a first attempt that succeeds never has one. Every query with a filter
 *   other than `_id` (due work, claims, a claim's outcome) runs here: FerretDB answers those by reading
 *   the whole collection, and this one holds only what is in flight, never the 30-day log.
 *
 * While a due document exists it is authoritative for status (`delivering`), counters and the next
 * attempt time; the log shows `pending` until the outcome is written. Crash safety: an outcome is
 * written to the log first and then to the due document (conditional on the claim token). A crash in
 * between leaves the claim to expire; the replica that takes it over reads the log and finds the
 * attempt recorded, so it neither records it as interrupted nor sends a finished delivery again.
 */

export interface DeliveryDocument extends Omit<DeliveryRecord, 'delivery_id' | 'attempts'> {
  _id: string;
  /**
   * Each attempt as one JSON string (see `encodeAttempt`); documents written before 2026-11-27 hold
   * objects, which read the same.
   */
  attempts: StoredAttempt[];
  /**
   * True on every log document written since `webhook_due` exists: its scheduling lives there, so the
   * boot migration must never give it an entry. A log that shows `pending` may be one a live replica
   * is finishing right now; recreating its entry from that stale read sent it a second time.
   */
  due_tracked?: boolean;
}

/** The due-work entry: a delivery's scheduling state, without its attempts. */
export interface DueDocument {
  _id: string;
  event_id: string;
  key_id: string;
  merchant_id: number;
  /** See DeliveryRecord.about_merchant_id; absent in entries written before 2026-11-27. */
  about_merchant_id?: number | null;
  mode: Mode;
  event_type: string;
  status: 'pending' | 'delivering';
  attempt_count: number;
  round_attempts: number;
  next_attempt_at: Date;
  claim_token: string | null;
  claimed_at: Date | null;
  created_at: Date;
  /** Rebuilt by a repeat from a log read that may be stale: the claim checks the log (checkRebuilt). */
  rebuilt?: boolean;
}

/**
 * An attempt is stored as one JSON string, never queried by its fields: FerretDB's cost per written
 * document grows with its number of fields (a delivery with its attempt's headers 557 µs of its CPU
 * as nested fields, about a fifth of that as strings), and the attempt is the largest part of it.
 */
type StoredAttempt = string | AttemptRecord;

function encodeAttempt(a: AttemptRecord): string {
  return JSON.stringify(a);
}

function decodeAttempt(a: StoredAttempt): AttemptRecord {
  if (typeof a !== 'string') return a;
  const parsed = JSON.parse(a) as AttemptRecord & { started_at: string };
  return { ...parsed, started_at: new Date(parsed.started_at) };
}

const deliverySchema = new Schema<DeliveryDocument>(
  {
    _id: { type: String, required: true },
    event_id: { type: String, required: true },
    key_id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    about_merchant_id: { type: Number, default: null },
    mode: { type: String, required: true },
    event_type: { type: String, required: true },
    status: { type: String, required: true },
    attempt_count: { type: Number, required: true },
    round_attempts: { type: Number, required: true },
    next_attempt_at: { type: Date, required: true },
    claim_token: { type: String, default: null },
    claimed_at: { type: Date, default: null },
    attempts: { type: [Schema.Types.Mixed], default: [] },
    last_error_class: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    due_tracked: { type: Boolean },
  },
  { versionKey: false, collection: 'webhook_deliveries' },
);
// The boot migration looks for unfinished deliveries written before `webhook_due` existed.
deliverySchema.index({ status: 1, next_attempt_at: 1 });
deliverySchema.index({ event_id: 1, key_id: 1 }, { unique: true });
deliverySchema.index({ merchant_id: 1, mode: 1, status: 1, created_at: -1 });
deliverySchema.index({ created_at: 1 });

const dueSchema = new Schema<DueDocument>(
  {
    _id: { type: String, required: true },
    event_id: { type: String, required: true },
    key_id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    about_merchant_id: { type: Number, default: null },
    mode: { type: String, required: true },
    event_type: { type: String, required: true },
    status: { type: String, required: true },
    attempt_count: { type: Number, required: true },
    round_attempts: { type: Number, required: true },
    next_attempt_at: { type: Date, required: true },
    claim_token: { type: String, default: null },
    claimed_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    rebuilt: { type: Boolean },
  },
  { versionKey: false, collection: 'webhook_due' },
);
// For MongoDB; FerretDB reads this (small) collection whole anyway.
dueSchema.index({ next_attempt_at: 1 });
dueSchema.index({ claim_token: 1 });
dueSchema.index({ event_id: 1 });
dueSchema.index({ merchant_id: 1, mode: 1 });

export type DeliveryModel = Model<DeliveryDocument>;
export type DueModel = Model<DueDocument>;

export function deliveryModels(conn: Connection) {
  return {
    deliveries: conn.model<DeliveryDocument>('WebhookDelivery', deliverySchema),
    due: conn.model<DueDocument>('WebhookDue', dueSchema),
  };
}

function toDelivery(doc: DeliveryDocument): DeliveryRecord {
  const { _id, due_tracked: _scheduledInDue, attempts, about_merchant_id, ...rest } = doc;
  return {
    delivery_id: _id,
    ...rest,
    about_merchant_id: about_merchant_id ?? null,
    attempts: (attempts ?? []).map(decodeAttempt),
  };
}

function toDocument({ delivery_id, attempts, ...rest }: DeliveryRecord): DeliveryDocument {
  return { _id: delivery_id, ...rest, attempts: attempts.map(encodeAttempt), due_tracked: true };
}

function dueOf(d: Omit<DeliveryDocument, 'attempts' | 'last_error_class' | 'updated_at'>): DueDocument {
  return {
    _id: d._id,
    event_id: d.event_id,
    key_id: d.key_id,
    merchant_id: d.merchant_id,
    about_merchant_id: d.about_merchant_id ?? null,
    mode: d.mode,
    event_type: d.event_type,
    status: d.status === 'delivering' ? 'delivering' : 'pending',
    attempt_count: d.attempt_count,
    round_attempts: d.round_attempts,
    next_attempt_at: d.next_attempt_at,
    claim_token: d.claim_token ?? null,
    claimed_at: d.claimed_at ?? null,
    created_at: d.created_at,
  };
}

/** The log document as the partner sees it while work is due: the due entry's state wins. */
function overlay(log: DeliveryDocument, due: DueDocument | undefined): DeliveryRecord {
  const record = toDelivery(log);
  if (!due) return record;
  return {
    ...record,
    status: due.status,
    attempt_count: Math.max(due.attempt_count, record.attempt_count),
    round_attempts: due.round_attempts,
    next_attempt_at: due.next_attempt_at,
    claim_token: due.claim_token,
    claimed_at: due.claimed_at,
  };
}

const FINAL: DeliveryStatus[] = ['succeeded', 'failed'];

interface Completion {
  deliveryId: string;
  claimToken: string;
  outcome: AttemptOutcome;
  now: Date;
}
/** Below this much lease left, an outcome's writes are conditional on the claim token. */
const LEASE_MARGIN_MS = 2_000;

export class MongoDeliveryStore implements DeliveryStore, AttemptStore {
  constructor(
    readonly model: DeliveryModel,
    readonly due: DueModel,
  ) {}

  /**
   * Log documents first, then their due entries. A redelivered fan-out (same ids) inserts what is
   * missing: a due entry only for a delivery whose log document is new or still unfinished, so a
   * repeat after the delivery ended does not send it again.
   */
  async insertMany(deliveries: DeliveryRecord[]): Promise<Set<string>> {
    const docs = deliveries.map(toDocument);
    const duplicates = await insertIgnoringDuplicates(this.model, docs);
    const entries = docs.filter((_, i) => !duplicates.has(i)).map(dueOf);
    if (duplicates.size) {
      // Stored already (a repeat): an unfinished one gets its due entry back, with its counters and
      // lease as stored (an expired lease is taken over like a crashed worker's claim). The read may
      // be stale by the time the entry is inserted (a replica finishing a retry meanwhile deletes
      // the real entry): `rebuilt` makes the claim check the log first (`checkRebuilt`).
      const existing = await Promise.all(
        docs
          .filter((_, i) => duplicates.has(i))
          .map((d) => this.model.findById(d._id, { attempts: 0 }).lean().exec() as Promise<DeliveryDocument | null>),
      );
      for (const d of existing) if (d && !FINAL.includes(d.status)) entries.push({ ...dueOf(d), rebuilt: true });
    }
    const dueDuplicates = await insertIgnoringDuplicates(this.due, entries);
    return new Set(entries.filter((_, i) => !dueDuplicates.has(i)).map((d) => d._id));
  }

  private readonly firsts = new WriteBatcher((deliveries: DeliveryRecord[]) => this.insertFirsts(deliveries));

  /**
   * Deliveries after their first attempt, inserted in batches (calls made while a batch is written
   * join the next): the log documents, then due entries for those still unfinished. A crash in
   * between leaves an unfinished delivery without due work only until its source message is
   * redelivered, which gives it one (insertMany above).
   */
  recordFirst(delivery: DeliveryRecord): Promise<boolean> {
    return this.firsts.add(delivery);
  }

  private async insertFirsts(deliveries: DeliveryRecord[]): Promise<boolean[]> {
    const docs = deliveries.map(toDocument);
    const duplicates = await insertIgnoringDuplicates(this.model, docs);
    const unfinished = docs.filter((d, i) => !duplicates.has(i) && !FINAL.includes(d.status));
    await insertIgnoringDuplicates(this.due, unfinished.map(dueOf));
    return docs.map((_, i) => !duplicates.has(i));
  }

  async claim(o: ClaimOptions): Promise<ClaimedDelivery[]> {
    const full = [...o.keyRoom].filter(([, room]) => room <= 0).map(([key]) => key);
    // Pending and due, or delivering with an expired lease: both have next_attempt_at <= now.
    const candidates = (await this.due
      .find({ next_attempt_at: { $lte: o.now }, ...(full.length ? { key_id: { $nin: full } } : {}) })
      .sort({ next_attempt_at: 1 })
      .limit(o.limit * 4)
      .lean()
      .exec()) as DueDocument[];
    const room = new Map(o.keyRoom);
    const picked: DueDocument[] = [];
    for (const c of candidates) {
      if (picked.length >= o.limit) break;
      const left = room.get(c.key_id) ?? o.perKeyLimit;
      if (left <= 0) continue;
      room.set(c.key_id, left - 1);
      picked.push(c);
    }
    if (!picked.length) return [];
    const token = claimToken(o.owner, o.leaseUntil);
    // Conditional on still being due: of two replicas racing for an entry, only one matches.
    const res = await this.due
      .updateMany(
        { _id: { $in: picked.map((c) => c._id) }, next_attempt_at: { $lte: o.now } },
        {
          $set: { status: 'delivering', claim_token: token, claimed_at: o.now, next_attempt_at: o.leaseUntil },
          $inc: { attempt_count: 1, round_attempts: 1 },
        },
      )
      .exec();
    let mine = picked;
    if (res.modifiedCount !== picked.length) {
      // Another replica took some: ask which are ours (the rare case costs one more read).
      const ours = (await this.due.find({ claim_token: token }, { _id: 1 }).lean().exec()) as { _id: string }[];
      const ids = new Set(ours.map((d) => d._id));
      mine = picked.filter((c) => ids.has(c._id));
    }
    const out: ClaimedDelivery[] = [];
    for (const was of mine) {
      const taken = await this.claimed(was, token, o);
      if (taken) out.push(taken);
    }
    return out;
  }

  /**
   * Claims one delivery by id if it is due (a retry whose time came, see DeliveryWorker): a
   * conditional update of its entry alone, no query over the due work. Null when it is not due or
   * another replica has it.
   */
  async claimOne(
    deliveryId: string,
    o: Pick<ClaimOptions, 'now' | 'owner' | 'leaseUntil'>,
  ): Promise<ClaimedDelivery | null> {
    const token = claimToken(o.owner, o.leaseUntil);
    const was = (await this.due
      .findOneAndUpdate(
        { _id: deliveryId, next_attempt_at: { $lte: o.now } },
        {
          $set: { status: 'delivering', claim_token: token, claimed_at: o.now, next_attempt_at: o.leaseUntil },
          $inc: { attempt_count: 1, round_attempts: 1 },
        },
        { new: false },
      )
      .lean()
      .exec()) as DueDocument | null;
    return was ? this.claimed(was, token, o) : null;
  }

  /** A due entry just claimed (`was`: as it was before): the delivery to send, or null when there is none. */
  private async claimed(
    was: DueDocument,
    token: string,
    o: Pick<ClaimOptions, 'now' | 'leaseUntil'>,
  ): Promise<ClaimedDelivery | null> {
    const delivery: DeliveryRecord = {
      delivery_id: was._id,
      event_id: was.event_id,
      key_id: was.key_id,
      merchant_id: was.merchant_id,
      about_merchant_id: was.about_merchant_id ?? null,
      mode: was.mode,
      event_type: was.event_type,
      status: 'delivering',
      attempt_count: was.attempt_count + 1,
      round_attempts: was.round_attempts + 1,
      next_attempt_at: o.leaseUntil,
      claim_token: token,
      claimed_at: o.now,
      attempts: [],
      last_error_class: null,
      created_at: was.created_at,
      updated_at: o.now,
    };
    if (was.status === 'delivering') return this.takeOver(was, delivery, token);
    if (was.rebuilt) return this.checkRebuilt(was, delivery, token);
    return { delivery, claim_token: token, interrupted: null };
  }

  /**
   * A due entry rebuilt from a read of the log (see insertMany) that may have been stale: a delivery
   * finished since is closed without sending; one that made attempts since continues their numbers.
   */
  private async checkRebuilt(
    was: DueDocument,
    delivery: DeliveryRecord,
    token: string,
  ): Promise<ClaimedDelivery | null> {
    const log = (await this.model.findById(was._id, { status: 1, attempt_count: 1 }).lean().exec()) as Pick<
      DeliveryDocument,
      'status' | 'attempt_count'
    > | null;
    if (!log || FINAL.includes(log.status)) {
      await this.due.deleteOne({ _id: was._id, claim_token: token }).exec();
      return null;
    }
    if (log.attempt_count <= was.attempt_count) return { delivery, claim_token: token, interrupted: null };
    const attempt_count = log.attempt_count + 1;
    await this.due.updateOne({ _id: was._id, claim_token: token }, { $set: { attempt_count } }).exec();
    return { delivery: { ...delivery, attempt_count }, claim_token: token, interrupted: null };
  }

  /**
   * An expired claim: its worker died. If it died after writing the attempt to the log, the attempt
   * was not interrupted: a finished delivery is closed without sending, a retry goes ahead normally.
   */
  private async takeOver(was: DueDocument, delivery: DeliveryRecord, token: string): Promise<ClaimedDelivery | null> {
    const log = (await this.model.findById(was._id, { status: 1, attempts: 1 }).lean().exec()) as Pick<
      DeliveryDocument,
      'status' | 'attempts'
    > | null;
    const recorded = log?.attempts?.some((a) => decodeAttempt(a).number === was.attempt_count) ?? false;
    if (!recorded)
      return { delivery, claim_token: token, interrupted: { started_at: was.claimed_at ?? was.created_at } };
    if (log && FINAL.includes(log.status)) {
      await this.due.deleteOne({ _id: was._id, claim_token: token }).exec();
      return null;
    }
    return { delivery, claim_token: token, interrupted: null };
  }

  private readonly completions = new WriteBatcher((batch: Completion[]) => this.writeOutcomes(batch));

  /**
   * Records an outcome while the claim is ours. Outcomes arriving while a batch is being written join
   * the next batch: a batch costs one read and two writes (plus one per retry), however many
   * deliveries it holds.
   */
  complete(deliveryId: string, claimToken: string, outcome: AttemptOutcome, now: Date): Promise<boolean> {
    return this.completions.add({ deliveryId, claimToken, outcome, now });
  }

  private async writeOutcomes(batch: Completion[]): Promise<boolean[]> {
    // A claim changes hands only once its lease has expired, and the token carries the lease's end:
    // while ours has time left, the writes go by _id alone (FerretDB finds nothing else without
    // reading the whole collection). Near the end of the lease, ownership is read first and the due
    // entry's write stays conditional on the token. Judged at the time of writing: an outcome may have
    // waited for its batch.
    const writingAt = Date.now();
    const late = batch.filter(
      (c) => (leaseEndOf(c.claimToken) ?? 0) - Math.max(writingAt, c.now.getTime()) <= LEASE_MARGIN_MS,
    );
    const lost = new Set<Completion>();
    await Promise.all(
      late.map(async (c) => {
        const d = (await this.due.findById(c.deliveryId, { claim_token: 1 }).lean().exec()) as {
          claim_token: string | null;
        } | null;
        if (d?.claim_token !== c.claimToken) lost.add(c);
      }),
    );
    const owned = batch.map((c) => !lost.has(c));
    const mine = batch.filter((c) => !lost.has(c));
    if (!mine.length) return owned;
    const filterOf = (c: Completion) =>
      late.includes(c) ? { _id: c.deliveryId, claim_token: c.claimToken } : { _id: c.deliveryId };
    // Log first, then the due entries: see the class comment for a crash in between.
    await this.model.bulkWrite(
      mine.map(({ deliveryId, outcome, now }) => ({
        updateOne: {
          filter: { _id: deliveryId },
          update: {
            $set: {
              status: outcome.status,
              next_attempt_at: outcome.next_attempt_at,
              attempt_count: outcome.attempt_count,
              round_attempts: outcome.round_attempts,
              claim_token: null,
              last_error_class: outcome.last_error_class,
              updated_at: now,
            },
            ...(outcome.attempts.length ? { $push: { attempts: { $each: outcome.attempts.map(encodeAttempt) } } } : {}),
          },
        },
      })),
      { ordered: false },
    );
    const finished = mine.filter((c) => FINAL.includes(c.outcome.status));
    const retries = mine.filter((c) => !FINAL.includes(c.outcome.status));
    // One delete per entry by _id (an index lookup), not one deleteMany over an $in (a collection read).
    const rest = [
      ...finished.map((c) => ({ deleteOne: { filter: filterOf(c) } })),
      ...retries.map((c) => ({
        updateOne: {
          filter: filterOf(c),
          update: {
            $set: {
              status: 'pending',
              next_attempt_at: c.outcome.next_attempt_at,
              round_attempts: c.outcome.round_attempts,
              claim_token: null,
            },
          },
        },
      })),
    ];
    if (rest.length) await this.due.bulkWrite(rest as Parameters<DueModel['bulkWrite']>[0], { ordered: false });
    return owned;
  }

  async forEvent(eventId: string): Promise<DeliveryRecord[]> {
    const [docs, due] = await Promise.all([
      this.model.find({ event_id: eventId }).sort({ created_at: 1, _id: 1 }).lean().exec() as Promise<
        DeliveryDocument[]
      >,
      this.due.find({ event_id: eventId }).lean().exec() as Promise<DueDocument[]>,
    ]);
    const byId = new Map(due.map((d) => [d._id, d]));
    return docs.map((d) => overlay(d, byId.get(d._id)));
  }

  async eventIdsWithStatus(merchantId: number, mode: Mode, status: DeliveryStatus, limit: number): Promise<string[]> {
    if (status === 'delivering') {
      const due = (await this.due
        .find({ merchant_id: merchantId, mode, status }, { event_id: 1 })
        .sort({ created_at: -1 })
        .limit(limit)
        .lean()
        .exec()) as { event_id: string }[];
      return [...new Set(due.map((d) => d.event_id))];
    }
    // The log says pending until an outcome is written; one being sent right now still shows here.
    const docs = (await this.model
      .find({ merchant_id: merchantId, mode, status }, { event_id: 1 })
      .sort({ created_at: -1 })
      .limit(limit)
      .lean()
      .exec()) as { event_id: string }[];
    return [...new Set(docs.map((d) => d.event_id))];
  }

  private filterOf(f: RequeueFilter): FilterQuery<DeliveryDocument> {
    const filter: FilterQuery<DeliveryDocument> = {
      merchant_id: f.merchant_id,
      mode: f.mode,
      status: { $in: f.statuses },
    };
    if (f.event_id) filter.event_id = f.event_id;
    if (f.created_from || f.created_to) {
      filter.created_at = {
        ...(f.created_from ? { $gte: f.created_from } : {}),
        ...(f.created_to ? { $lte: f.created_to } : {}),
      };
    }
    return filter;
  }

  /** A new round (pending, due now) for matching deliveries, except those being sent right now. */
  async requeue(f: RequeueFilter, now: Date): Promise<number> {
    const sending = (await this.due
      .find({ merchant_id: f.merchant_id, mode: f.mode, status: 'delivering' }, { _id: 1 })
      .lean()
      .exec()) as { _id: string }[];
    const busy = new Set(sending.map((d) => d._id));
    const targets = (
      (await this.model.find(this.filterOf(f), { attempts: 0 }).lean().exec()) as DeliveryDocument[]
    ).filter((d) => !busy.has(d._id));
    if (!targets.length) return 0;
    const ids = targets.map((d) => d._id);
    await this.model
      .updateMany(
        { _id: { $in: ids } },
        // A resent legacy document is scheduled in webhook_due from now on (see due_tracked).
        { $set: { status: 'pending', next_attempt_at: now, round_attempts: 0, updated_at: now, due_tracked: true } },
      )
      .exec();
    // Entries still waiting start their new round now; finished ones get a new entry.
    await this.due
      .updateMany({ _id: { $in: ids }, status: 'pending' }, { $set: { next_attempt_at: now, round_attempts: 0 } })
      .exec();
    await insertIgnoringDuplicates(
      this.due,
      targets.map((d) =>
        dueOf({
          ...d,
          status: 'pending',
          next_attempt_at: now,
          round_attempts: 0,
          claim_token: null,
          claimed_at: null,
        }),
      ),
    );
    return targets.length;
  }

  count(f: RequeueFilter): Promise<number> {
    return this.model.countDocuments(this.filterOf(f)).exec();
  }

  pendingCount(): Promise<number> {
    return this.due.countDocuments({}).exec();
  }

  async deleteOlderThan(before: Date, limit: number): Promise<number> {
    // Unfinished deliveries are never purged from under the worker: their due entries stay.
    return deleteBatch(this.model, before, limit);
  }

  /**
   * Boot migration: deliveries written before `webhook_due` existed (or by a replica of that version
   * during a rolling upgrade) that are not finished get their due entry, with their lease and counters
   * as stored. Idempotent; runs at every start. Returns how many entries it created. Documents this
   * version wrote (`due_tracked`) are never touched: see DeliveryDocument.due_tracked.
   */
  async ensureDueEntries(): Promise<number> {
    const unfinished = (await this.model
      .find({ status: { $in: ['pending', 'delivering'] }, due_tracked: { $ne: true } }, { attempts: 0 })
      .lean()
      .exec()) as DeliveryDocument[];
    if (!unfinished.length) return 0;
    const duplicates = await insertIgnoringDuplicates(this.due, unfinished.map(dueOf));
    return unfinished.length - duplicates.size;
  }
}
