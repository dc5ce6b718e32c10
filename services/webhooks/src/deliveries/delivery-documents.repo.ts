import { Schema, type Connection, type Model } from 'mongoose';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus } from './delivery';

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
   * Each attempt as one JSON string (see `encodeAttempt`); older documents hold objects, which read
   * the same.
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
export interface DueDocument extends Pick<
  DeliveryDocument,
  | '_id'
  | 'event_id'
  | 'key_id'
  | 'merchant_id'
  | 'mode'
  | 'event_type'
  | 'attempt_count'
  | 'round_attempts'
  | 'next_attempt_at'
  | 'claim_token'
  | 'claimed_at'
  | 'created_at'
> {
  /** See DeliveryRecord.about_merchant_id; absent in older entries. */
  about_merchant_id?: number | null;
  status: 'pending' | 'delivering';
  /** Rebuilt by a repeat from a log read that may be stale: the claim checks the log (checkRebuilt). */
  rebuilt?: boolean;
}

/**
 * An attempt is stored as one JSON string, never queried by its fields: FerretDB's cost per written
 * document grows with its number of fields, and the attempt is the largest part of a delivery
 * (docs/decisions.md, Webhooks 56).
 */
type StoredAttempt = string | AttemptRecord;

export function encodeAttempt(a: AttemptRecord): string {
  return JSON.stringify(a);
}

export function decodeAttempt(a: StoredAttempt): AttemptRecord {
  if (typeof a !== 'string') return a;
  const parsed = JSON.parse(a) as AttemptRecord & { started_at: string };
  return { ...parsed, started_at: new Date(parsed.started_at) };
}

/** The fields a log document and its due entry share, first in both: the delivery and its schedule. */
function schedulingFields() {
  return {
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
  };
}

const deliverySchema = new Schema<DeliveryDocument>(
  {
    ...schedulingFields(),
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
    ...schedulingFields(),
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

export function toDocument({ delivery_id, attempts, ...rest }: DeliveryRecord): DeliveryDocument {
  return { _id: delivery_id, ...rest, attempts: attempts.map(encodeAttempt), due_tracked: true };
}

export function dueOf(d: Omit<DeliveryDocument, 'attempts' | 'last_error_class' | 'updated_at'>): DueDocument {
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
export function overlay(log: DeliveryDocument, due: DueDocument | undefined): DeliveryRecord {
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

/** Statuses after which a delivery has no due work. */
export const FINAL: DeliveryStatus[] = ['succeeded', 'failed'];
