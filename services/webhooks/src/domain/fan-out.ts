import type { EventEnvelope } from '@ppay/kernel';
import { sourceFor } from './event-sources';
import type { DeliveryKey, DeliveryKeys, DeliveryStore, EventStore, SequenceCounter } from './ports';
import { deliverableTo } from './renderers';
import { deliveryId, webhookEventId, type DeliveryRecord, type WebhookEventRecord } from './webhook-event';

/**
 * Platform event → one stored webhook event → one delivery per receiving key. Three writes (the
 * counter, the event, the deliveries) without a transaction, each idempotent: the JetStream message
 * is acknowledged only after all of them, so a crash anywhere redelivers it and the repeat finds the
 * event (same derived event_id; the stored sequence wins) and inserts only the missing deliveries.
 * Concurrent calls are written in batches (see `ingest`).
 */
export class EventFanOut {
  constructor(
    private readonly ports: {
      events: EventStore;
      deliveries: DeliveryStore;
      sequences: SequenceCounter;
      keys: DeliveryKeys;
      /** The local worker: deliveries it has room for are created already claimed by it. */
      dispatch?: LocalDispatch;
    },
    /** Tells the local worker there is work (other replicas find it by polling). */
    private readonly wake: () => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private queue: Pending[] = [];
  private draining: Promise<void> | undefined;

  /**
   * Returns the stored event and how many deliveries were new, or null for a subject that is not a
   * webhook. Calls made while a batch is being written join the next batch: a consumer handling many
   * messages at once costs one write per collection per batch (plus one counter write per object),
   * not per event. Sequence numbers are reserved in call order, which is stream order.
   */
  ingest(envelope: EventEnvelope): Promise<{ event: WebhookEventRecord; created: number } | null> {
    const source = sourceFor(envelope.subject);
    if (!source) return Promise.resolve(null);
    const merchantId = source.merchant(envelope) ?? envelope.merchant_id;
    const mode = envelope.mode;
    // Sandbox and live never mix: an event without both is a publisher bug, retried until fixed.
    if (merchantId === undefined || (mode !== 'sandbox' && mode !== 'live')) {
      return Promise.reject(new Error(`${envelope.subject} event ${envelope.event_id} has no merchant or mode`));
    }
    const object = source.object(envelope);
    const candidate: WebhookEventRecord = {
      event_id: webhookEventId(envelope.event_id, merchantId),
      event_type: source.event_type,
      merchant_id: merchantId,
      mode,
      occurred_at: new Date(source.occurredAt(envelope)),
      object_type: object.type,
      object_id: object.id,
      sequence: 0,
      data: envelope.data as unknown as Record<string, unknown>,
      source_event_id: envelope.event_id,
      created_at: this.now(),
    };
    return new Promise((resolve, reject) => {
      this.queue.push({ candidate, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const results = await this.store(batch.map((p) => p.candidate));
        batch.forEach((p, i) => p.resolve(results[i]!));
      } catch (err) {
        // The whole batch is retried (redelivered); every write below is idempotent.
        for (const p of batch) p.reject(err);
      }
    }
    this.draining = undefined;
  }

  /**
   * Three writes without a transaction, each idempotent, acknowledged only after all of them: a crash
   * anywhere redelivers the messages, and the repeat finds the events (same derived event_id; the
   * stored sequence wins) and inserts only the missing deliveries.
   */
  private async store(candidates: WebhookEventRecord[]): Promise<{ event: WebhookEventRecord; created: number }[]> {
    // Insert first (the common case is a new event); a repeat costs a sequence number (a gap,
    // which receivers tolerate: sequence orders, it does not count) and reads the stored event.
    const counts = new Map<string, number>();
    const counterOf = (e: WebhookEventRecord) => `${e.mode}:${e.object_type}:${e.object_id}`;
    for (const e of candidates) counts.set(counterOf(e), (counts.get(counterOf(e)) ?? 0) + 1);
    const firsts = new Map(
      await Promise.all(
        [...counts].map(async ([key, n]) => [key, await this.ports.sequences.reserve(key, n)] as const),
      ),
    );
    for (const e of candidates) {
      const key = counterOf(e);
      e.sequence = firsts.get(key)!;
      firsts.set(key, e.sequence + 1);
    }
    const inserted = await this.ports.events.insertMany(candidates);
    const events = await Promise.all(
      candidates.map(async (c) => (inserted.has(c.event_id) ? c : await this.ports.events.get(c.event_id))),
    );
    events.forEach((e, i) => {
      if (!e) throw new Error(`event ${candidates[i]!.event_id} vanished while being stored`);
    });
    const stored = events as WebhookEventRecord[];
    const created = await this.deliver(stored);
    return stored.map((event) => ({ event, created: created.get(event.event_id) ?? 0 }));
  }

  /** Deliveries for every receiving key that has none yet (also used by resend for keys added since). */
  async fanOut(event: WebhookEventRecord): Promise<number> {
    return (await this.deliver([event])).get(event.event_id) ?? 0;
  }

  /** Creates the missing deliveries of these events; returns how many were new per event id. */
  private async deliver(events: WebhookEventRecord[]): Promise<Map<string, number>> {
    const receivers = new Map<string, Promise<DeliveryKey[]>>();
    const receiversOf = (e: WebhookEventRecord) => {
      const key = `${e.merchant_id}:${e.mode}`;
      let keys = receivers.get(key);
      if (!keys) receivers.set(key, (keys = this.ports.keys.receivers(e.merchant_id, e.mode)));
      return keys;
    };
    const now = this.now();
    const deliveries = (
      await Promise.all(
        events.map(async (event) =>
          (await receiversOf(event))
            .filter((k) => deliverableTo(event.event_type, k.api_version))
            .map((k) => newDelivery(event, k.key_id, now)),
        ),
      )
    ).flat();
    const created = new Map<string, number>();
    if (!deliveries.length) return created;
    const dispatch = this.ports.dispatch;
    const claimed = new Set<DeliveryRecord>();
    for (const d of deliveries) {
      const claim = dispatch?.reserve(d.key_id);
      if (!claim) continue;
      // Claimed as the worker's claim query would: attempt counted and lease set before any send.
      Object.assign(d, {
        status: 'delivering',
        claim_token: claim.claim_token,
        claimed_at: claim.claimed_at,
        next_attempt_at: claim.lease_until,
        attempt_count: 1,
        round_attempts: 1,
      });
      claimed.add(d);
    }
    let fresh: Set<string>;
    try {
      fresh = await this.ports.deliveries.insertMany(deliveries);
    } catch (err) {
      for (const d of claimed) dispatch!.release(d.key_id);
      throw err;
    }
    for (const d of deliveries) {
      const isNew = fresh.has(d.delivery_id);
      if (isNew) created.set(d.event_id, (created.get(d.event_id) ?? 0) + 1);
      if (claimed.has(d)) {
        if (isNew) dispatch!.adopt(d);
        else dispatch!.release(d.key_id);
      }
    }
    if (fresh.size > claimed.size) this.wake();
    return created;
  }
}

/** Events written together at most (a consumer pulls up to 64 messages at a time). */
const MAX_BATCH = 100;

/** The local delivery worker as the fan-out sees it (see DeliveryWorker.reserve). */
export interface LocalDispatch {
  reserve(keyId: string): { claim_token: string; claimed_at: Date; lease_until: Date } | null;
  adopt(delivery: DeliveryRecord): void;
  release(keyId: string): void;
}

interface Pending {
  candidate: WebhookEventRecord;
  resolve: (result: { event: WebhookEventRecord; created: number }) => void;
  reject: (err: unknown) => void;
}

export function newDelivery(event: WebhookEventRecord, keyId: string, now: Date): DeliveryRecord {
  return {
    delivery_id: deliveryId(event.event_id, keyId),
    event_id: event.event_id,
    key_id: keyId,
    merchant_id: event.merchant_id,
    mode: event.mode,
    event_type: event.event_type,
    status: 'pending',
    attempt_count: 0,
    round_attempts: 0,
    next_attempt_at: now,
    claim_token: null,
    claimed_at: null,
    attempts: [],
    last_error_class: null,
    created_at: now,
    updated_at: now,
  };
}
