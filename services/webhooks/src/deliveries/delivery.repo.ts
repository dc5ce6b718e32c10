import type { FilterQuery, Model } from 'mongoose';
import { WriteBatcher, type Mode } from '@ppay/kernel';
import { deleteBatch, insertIgnoringDuplicates } from '../bulk-writes.repo';
import type { DeliveryStore, RequeueFilter } from '../ports';
import type { AttemptOutcome, DeliveryRecord, DeliveryStatus } from './delivery';
import {
  dueOf,
  FINAL,
  overlay,
  toDocument,
  type DeliveryDocument,
  type DeliveryModel,
  type DueDocument,
  type DueModel,
} from './delivery-documents.repo';
import { MongoDueClaims } from './due-claims.repo';
import { MongoOutcomeWrites } from './outcome-writes.repo';
import type { AttemptStore, ClaimedDelivery, ClaimOptions } from './ports';

/**
 * Deliveries in MongoDB (the two collections: see delivery-documents.repo.ts): inserted by the fan-out
 * and the worker, claimed and completed by the worker (MongoDueClaims, MongoOutcomeWrites), read and
 * requeued by the partner's event log.
 */
export class MongoDeliveryStore implements DeliveryStore, AttemptStore {
  private readonly claims: MongoDueClaims;
  private readonly outcomes: MongoOutcomeWrites;

  constructor(
    readonly model: DeliveryModel,
    readonly due: DueModel,
  ) {
    this.claims = new MongoDueClaims(model, due);
    this.outcomes = new MongoOutcomeWrites(model, due);
  }

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

  claim(o: ClaimOptions): Promise<ClaimedDelivery[]> {
    return this.claims.claim(o);
  }

  claimOne(deliveryId: string, o: Pick<ClaimOptions, 'now' | 'owner' | 'leaseUntil'>): Promise<ClaimedDelivery | null> {
    return this.claims.claimOne(deliveryId, o);
  }

  complete(deliveryId: string, claimToken: string, outcome: AttemptOutcome, now: Date): Promise<boolean> {
    return this.outcomes.complete(deliveryId, claimToken, outcome, now);
  }

  async forEvent(eventId: string, limit = 0): Promise<DeliveryRecord[]> {
    const [docs, due] = await Promise.all([
      this.model.find({ event_id: eventId }).sort({ created_at: 1, _id: 1 }).limit(limit).lean().exec() as Promise<
        DeliveryDocument[]
      >,
      this.due.find({ event_id: eventId }).lean().exec() as Promise<DueDocument[]>,
    ]);
    const byId = new Map(due.map((d) => [d._id, d]));
    return docs.map((d) => overlay(d, byId.get(d._id)));
  }

  async get(deliveryId: string): Promise<DeliveryRecord | null> {
    const [doc, due] = await Promise.all([
      this.model.findById(deliveryId).lean().exec() as Promise<DeliveryDocument | null>,
      this.due.findById(deliveryId).lean().exec() as Promise<DueDocument | null>,
    ]);
    return doc ? overlay(doc, due ?? undefined) : null;
  }

  async eventIdsWithStatus(merchantId: number, mode: Mode, status: DeliveryStatus, limit: number): Promise<string[]> {
    const filter = { merchant_id: merchantId, mode, status };
    // Only due entries say `delivering`: the log says pending until an outcome is written, so one
    // being sent right now shows there as pending.
    return status === 'delivering'
      ? newestEventIds(this.due, filter, limit)
      : newestEventIds(this.model, filter, limit);
  }

  private filterOf(f: RequeueFilter): FilterQuery<DeliveryDocument> {
    const filter: FilterQuery<DeliveryDocument> = {
      merchant_id: f.merchant_id,
      mode: f.mode,
      status: { $in: f.statuses },
    };
    if (f.event_id) filter.event_id = f.event_id;
    if (f.attempts_below !== undefined) filter.attempt_count = { $lt: f.attempts_below };
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
}

/** The event ids of the newest `limit` matching documents, each once. */
async function newestEventIds<T extends { event_id: string }>(
  model: Model<T>,
  filter: FilterQuery<T>,
  limit: number,
): Promise<string[]> {
  const docs = (await model.find(filter, { event_id: 1 }).sort({ created_at: -1 }).limit(limit).lean().exec()) as {
    event_id: string;
  }[];
  return [...new Set(docs.map((d) => d.event_id))];
}
