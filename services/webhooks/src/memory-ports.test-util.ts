import type { Mode } from '@ppay/kernel';
import { fieldsAfter, type AttemptOutcome, type DeliveryRecord, type DeliveryStatus } from './deliveries/delivery';
import type { AttemptStore, ClaimedDelivery, ClaimOptions } from './deliveries/ports';
import { roomPicker } from './deliveries/claim-room';
import type {
  CreatedAfterQuery,
  DeliveryKey,
  DeliveryKeys,
  DeliveryStore,
  EventQuery,
  EventStore,
  RequeueFilter,
  ResendSlot,
  SendInput,
  SendResult,
  WebhookSender,
} from './ports';
import type { WebhookEventRecord } from './webhook-events/webhook-event';

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryEventStore implements EventStore {
  readonly events = new Map<string, WebhookEventRecord>();
  async insert(e: WebhookEventRecord) {
    if (this.events.has(e.event_id)) return false;
    this.events.set(e.event_id, clone(e));
    return true;
  }
  async insertMany(events: WebhookEventRecord[]) {
    const inserted = new Set<string>();
    for (const e of events) if (await this.insert(e)) inserted.add(e.event_id);
    return inserted;
  }
  async get(id: string) {
    const e = this.events.get(id);
    return e ? clone(e) : null;
  }
  async getForMerchant(merchantId: number, mode: Mode, id: string) {
    const e = this.events.get(id);
    return e && e.merchant_id === merchantId && e.mode === mode ? clone(e) : null;
  }
  async list(q: EventQuery) {
    return [...this.events.values()]
      .filter((e) => e.merchant_id === q.merchant_id && e.mode === q.mode)
      .filter((e) => !q.types || q.types.includes(e.event_type))
      .filter((e) => !q.event_ids || q.event_ids.includes(e.event_id))
      .filter((e) => !q.from || e.occurred_at >= q.from)
      .filter((e) => !q.to || e.occurred_at < q.to)
      .filter(
        (e) =>
          !q.before ||
          e.occurred_at < q.before.occurred_at ||
          (e.occurred_at.getTime() === q.before.occurred_at.getTime() && e.event_id < q.before.event_id),
      )
      .sort((a, b) => b.occurred_at.getTime() - a.occurred_at.getTime() || (a.event_id < b.event_id ? 1 : -1))
      .slice(0, q.limit)
      .map(clone);
  }
  async listCreatedAfter(q: CreatedAfterQuery) {
    const after = q.after.created_at.getTime();
    return [...this.events.values()]
      .filter((e) => e.merchant_id === q.merchant_id && e.mode === q.mode && e.created_at < q.until)
      .filter(
        (e) => e.created_at.getTime() > after || (e.created_at.getTime() === after && e.event_id > q.after.event_id),
      )
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.event_id < b.event_id ? -1 : 1))
      .slice(0, q.limit)
      .map(clone);
  }
  async deleteOlderThan(before: Date) {
    let n = 0;
    for (const [id, e] of this.events) if (e.created_at < before && this.events.delete(id)) n++;
    return n;
  }
  /** Resend windows by event id (the Mongo store keeps them on the event document). */
  readonly resends = new Map<string, { start: Date; count: number }>();
  async takeResend(eventId: string, now: Date, quota: { max: number; windowMs: number }): Promise<ResendSlot> {
    const w = this.resends.get(eventId);
    if (!w || w.start.getTime() <= now.getTime() - quota.windowMs) {
      this.resends.set(eventId, { start: now, count: 1 });
      return { taken: true };
    }
    if (w.count < quota.max) {
      w.count++;
      return { taken: true };
    }
    return { taken: false, windowEndsAt: new Date(w.start.getTime() + quota.windowMs) };
  }
}

export class MemoryDeliveryStore implements DeliveryStore, AttemptStore {
  readonly rows = new Map<string, DeliveryRecord>();
  private tokens = 0;
  private insert(d: DeliveryRecord): boolean {
    if ([...this.rows.values()].some((r) => r.event_id === d.event_id && r.key_id === d.key_id)) return false;
    this.rows.set(d.delivery_id, clone(d));
    return true;
  }
  async insertMany(ds: DeliveryRecord[]) {
    return new Set(ds.filter((d) => this.insert(d)).map((d) => d.delivery_id));
  }
  async recordFirst(d: DeliveryRecord) {
    return this.insert(d);
  }
  async claim(o: ClaimOptions): Promise<ClaimedDelivery[]> {
    const pick = roomPicker(o);
    const due = [...this.rows.values()]
      .filter((d) => (d.status === 'pending' || d.status === 'delivering') && d.next_attempt_at <= o.now)
      .sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime());
    return due.filter(pick).map((d) => this.take(d, o));
  }
  async claimOne(id: string, o: Pick<ClaimOptions, 'now' | 'owner' | 'leaseUntil'>) {
    const d = this.rows.get(id);
    if (!d || (d.status !== 'pending' && d.status !== 'delivering') || d.next_attempt_at > o.now) return null;
    return this.take(d, o);
  }
  private take(d: DeliveryRecord, o: Pick<ClaimOptions, 'now' | 'leaseUntil'>): ClaimedDelivery {
    const interrupted = d.status === 'delivering' ? { started_at: d.claimed_at ?? d.created_at } : null;
    const token = `t${++this.tokens}`;
    Object.assign(d, {
      status: 'delivering',
      claim_token: token,
      claimed_at: o.now,
      next_attempt_at: o.leaseUntil,
      attempt_count: d.attempt_count + 1,
      round_attempts: d.round_attempts + 1,
    });
    return { delivery: clone(d), claim_token: token, interrupted };
  }
  async complete(id: string, token: string, o: AttemptOutcome, now: Date) {
    const d = this.rows.get(id);
    if (!d || d.claim_token !== token) return false;
    Object.assign(d, { ...fieldsAfter(o, now), attempts: [...d.attempts, ...clone(o.attempts)] });
    return true;
  }
  async forEvent(eventId: string, limit = Infinity) {
    return [...this.rows.values()]
      .filter((d) => d.event_id === eventId)
      .slice(0, limit)
      .map(clone);
  }
  async get(deliveryId: string) {
    const d = this.rows.get(deliveryId);
    return d ? clone(d) : null;
  }
  async eventIdsWithStatus(merchantId: number, mode: Mode, status: DeliveryStatus) {
    return [...this.rows.values()]
      .filter((d) => d.merchant_id === merchantId && d.mode === mode && d.status === status)
      .map((d) => d.event_id);
  }
  private matching(f: RequeueFilter) {
    return [...this.rows.values()].filter(
      (d) =>
        d.merchant_id === f.merchant_id &&
        d.mode === f.mode &&
        f.statuses.includes(d.status) &&
        (!f.event_id || d.event_id === f.event_id) &&
        (f.attempts_below === undefined || d.attempt_count < f.attempts_below) &&
        (!f.created_from || d.created_at >= f.created_from) &&
        (!f.created_to || d.created_at <= f.created_to),
    );
  }
  async requeue(f: RequeueFilter, now: Date) {
    const rows = this.matching(f);
    for (const d of rows) Object.assign(d, { status: 'pending', next_attempt_at: now, round_attempts: 0 });
    return rows.length;
  }
  async count(f: RequeueFilter) {
    return this.matching(f).length;
  }
  async pendingCount() {
    return [...this.rows.values()].filter((d) => d.status === 'pending' || d.status === 'delivering').length;
  }
  async deleteOlderThan(before: Date) {
    let n = 0;
    for (const [id, d] of this.rows) if (d.created_at < before && this.rows.delete(id)) n++;
    return n;
  }
}

export class MemoryKeys implements DeliveryKeys {
  readonly keys = new Map<string, DeliveryKey>();
  add(key: Partial<DeliveryKey> & { key_id: string }): DeliveryKey {
    const full: DeliveryKey = {
      merchant_id: 1,
      mode: 'sandbox',
      active: true,
      webhook_url: 'http://127.0.0.1:9/hooks',
      api_version: '2026-03-27',
      secrets: { current: 'whsec_current' },
      ...key,
    };
    this.keys.set(full.key_id, full);
    return full;
  }
  async receivers(merchantId: number, mode: Mode) {
    return [...this.keys.values()].filter(
      (k) => k.merchant_id === merchantId && k.mode === mode && k.active && k.webhook_url,
    );
  }
  async get(id: string) {
    return this.keys.get(id) ?? null;
  }
}

/** Answers from a script (default 200) and records every request. */
export class ScriptedSender implements WebhookSender {
  readonly sent: SendInput[] = [];
  constructor(public answer: (input: SendInput) => Partial<SendResult> = () => ({ status: 200, success: true })) {}
  async send(input: SendInput): Promise<SendResult> {
    this.sent.push(input);
    return {
      status: null,
      duration_ms: 3,
      error_class: null,
      response_excerpt: '',
      success: false,
      ...this.answer(input),
    };
  }
}

/** A payments.payment.refunded payload as payments publishes it (tests of payment.refunded rendering). */
export const REFUNDED_DATA: Record<string, unknown> = {
  charge_id: 'ch_1',
  transaction_id: 'txn_1',
  merchant_id: 42,
  sub_merchant_id: null,
  reference: 'order-1',
  gateway: 'naira_gateway',
  amount_captured: { amount: 10_000, currency: 'NGN' },
  amount_refunded: { amount: 2_500, currency: 'NGN' },
  refunded: false,
  refund: {
    refund_id: 're_1',
    amount: { amount: 2_500, currency: 'NGN' },
    status: 'succeeded',
    reason: 'damaged',
    refunded_before: 0,
    created_at: '2026-05-01T09:59:00.000Z',
  },
  metadata: { cart: 9 },
  refunded_at: '2026-05-01T10:00:00.000Z',
};

/** Fresh in-memory ports: stores of events and deliveries, keys, and a sender answering 200. */
export function memoryPorts() {
  return {
    deliveries: new MemoryDeliveryStore(),
    events: new MemoryEventStore(),
    keys: new MemoryKeys(),
    sender: new ScriptedSender(),
  };
}

/** A `ping` event (rendered as its data, in every version), numbered by `id`. */
export const pingEvent = (id: string, mode: Mode = 'sandbox'): WebhookEventRecord => ({
  event_id: `evt_${id}`,
  event_type: 'ping',
  merchant_id: 1,
  mode,
  occurred_at: new Date('2026-05-01T09:00:00.000Z'),
  object_type: 'api_key',
  object_id: 'k',
  sequence: 0,
  data: { n: id },
  source_event_id: id,
  created_at: new Date('2026-05-01T09:00:00.000Z'),
});
