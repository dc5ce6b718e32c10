import { WriteBatcher, type EventEnvelope } from '@ppay/kernel';
import { sourceFor } from '../webhook-events/event-sources';
import type { DeliveryKey, DeliveryKeys, DeliveryStore, EventStore } from '../ports';
import { EVENT_VIEW_LIMITS } from '../webhook-events/attempt-views';
import { deliverableTo } from '../webhook-events/renderers';
import { interruptedAttempt, newDelivery, type DeliveryRecord } from './delivery';
import type { SlotHolder } from './send-slots';
import { webhookEventId, type WebhookEventRecord } from '../webhook-events/webhook-event';

/**
 * Platform event → one stored webhook event → one delivery per receiving key.
 *
 * The hot path writes only inserts, in batches (FerretDB runs each update or delete as its own
 * transaction, about ten times the cost of an inserted document): the event is inserted, each
 * delivery's first attempt is sent by the local worker, and the delivery is inserted with its
 * outcome. In between, the platform event's JetStream message is the durable record of the work: the
 * consumer acknowledges it only once `ingest` resolves, so a crash anywhere redelivers it. The repeat
 * finds the event stored; a delivery still missing may have been sent without being recorded, so it
 * is stored with that first attempt `interrupted` (outcome unknown) and sent again as attempt 2 by the
 * worker, and deliveries already stored are left to their own state.
 *
 * A delivery whose key has no send slot within a short wait, every delivery when there is no local
 * worker, and every repeat go the durable way instead: stored pending with a due entry, and claimed.
 */
export class EventFanOut {
  constructor(
    private readonly ports: {
      events: EventStore;
      deliveries: DeliveryStore;
      keys: DeliveryKeys;
      /** The local worker, which sends first attempts before they are stored (see above). */
      dispatch?: LocalDispatch;
    },
    /** Tells the local worker there is due work (other replicas find it by polling). */
    private readonly wake: () => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Events inserted together: calls made while a batch is written join the next one. */
  private readonly events = new WriteBatcher((candidates: WebhookEventRecord[]) => this.insertEvents(candidates));

  /**
   * Stores the event, sends or stores its deliveries and resolves once every delivery's state is
   * stored (acknowledge the source message then, not before); null for a subject that is not a
   * webhook. `sequence` is the source event's position in its JetStream stream: every event of one
   * object (a charge, a wallet …) comes from one stream, so it grows with each change of the object,
   * in the order the platform published them, and is the same however often the message arrives.
   */
  async ingest(
    envelope: EventEnvelope,
    sequence: number,
  ): Promise<{ event: WebhookEventRecord; created: number } | null> {
    const source = sourceFor(envelope.subject);
    if (!source) return null;
    const merchantId = source.merchant(envelope) ?? envelope.merchant_id;
    const mode = envelope.mode;
    // Sandbox and live never mix: an event without both is a publisher bug, retried until fixed.
    if (merchantId === undefined || (mode !== 'sandbox' && mode !== 'live')) {
      throw new Error(`${envelope.subject} event ${envelope.event_id} has no merchant or mode`);
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
      sequence,
      data: envelope.data as unknown as Record<string, unknown>,
      source_event_id: envelope.event_id,
      created_at: this.now(),
    };
    const { event, isNew } = await this.store(candidate);
    const keys = await this.receivers(event);
    const dispatch = this.ports.dispatch;
    if (!isNew || !dispatch) {
      // Stored before: this process sends before it records, so an earlier run of this message may
      // have sent what it did not record.
      return { event, created: await this.storeDue(event, keys, !isNew && dispatch !== undefined) };
    }
    // Each key on its own: one waiting for a slot does not hold back another's send.
    const outcomes = await Promise.allSettled(
      keys.map(async (k) =>
        (await dispatch.acquire({ keyId: k.key_id, merchantId: k.merchant_id }))
          ? dispatch.sendFirst(event, k)
          : this.storeDue(event, [k], false),
      ),
    );
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
    return { event, created: keys.length };
  }

  /**
   * Deliveries for every receiving key that has none yet (resend, for keys added since); stored as due
   * work. For a recent event a first attempt may still be in flight (or its message about to be
   * redelivered), so a missing delivery is stored with attempt 1 `interrupted`, like a repeat's.
   */
  async fanOut(event: WebhookEventRecord): Promise<number> {
    const recent = this.now().getTime() - event.created_at.getTime() < FIRST_ATTEMPT_WINDOW_MS;
    // An event has at most `deliveriesPerEvent` deliveries (its answers stay bounded): keys added
    // since get one while there is room.
    const max = EVENT_VIEW_LIMITS.deliveriesPerEvent;
    const stored = new Set((await this.ports.deliveries.forEvent(event.event_id, max)).map((d) => d.key_id));
    let room = max - stored.size;
    const keys = (await this.receivers(event)).filter((k) => stored.has(k.key_id) || room-- > 0);
    return this.storeDue(event, keys, recent && this.ports.dispatch !== undefined);
  }

  private async receivers(event: WebhookEventRecord): Promise<DeliveryKey[]> {
    return (await this.ports.keys.receivers(event.merchant_id, event.mode))
      .filter((k) => deliverableTo(event.event_type, k.api_version))
      .slice(0, EVENT_VIEW_LIMITS.deliveriesPerEvent);
  }

  /** Stores missing deliveries pending and due now (a possibly sent first attempt as interrupted); returns how many were new. */
  private async storeDue(event: WebhookEventRecord, keys: DeliveryKey[], maybeSent: boolean): Promise<number> {
    if (!keys.length) return 0;
    const now = this.now();
    const deliveries = keys.map((k) => {
      const d = newDelivery(event, k.key_id, now);
      return maybeSent ? withInterruptedFirstAttempt(d, event.created_at) : d;
    });
    const due = await this.ports.deliveries.insertMany(deliveries);
    if (due.size) this.wake();
    return due.size;
  }

  /** Inserts the event (or finds it stored). */
  private async store(candidate: WebhookEventRecord): Promise<{ event: WebhookEventRecord; isNew: boolean }> {
    const { stored, isNew } = await this.events.add(candidate);
    if (!stored) throw new Error(`event ${candidate.event_id} vanished while being stored`);
    return { event: stored, isNew };
  }

  /** One batch: the whole batch fails (is redelivered) if the insert does; the insert is idempotent. */
  private async insertEvents(
    candidates: WebhookEventRecord[],
  ): Promise<{ stored: WebhookEventRecord | null; isNew: boolean }[]> {
    const inserted = await this.ports.events.insertMany(candidates);
    return Promise.all(
      candidates.map(async (c) =>
        inserted.has(c.event_id)
          ? { stored: c, isNew: true }
          : { stored: await this.ports.events.get(c.event_id), isNew: false },
      ),
    );
  }
}

/**
 * How long after an event's storage its first attempts may still be unrecorded: a slot wait, a 10 s
 * attempt and the batch writes, or a redelivery after the consumer's 30 s ack wait.
 */
const FIRST_ATTEMPT_WINDOW_MS = 60_000;

/** The local delivery worker as the fan-out sees it (see DeliveryWorker.acquire and sendFirst). */
export interface LocalDispatch {
  acquire(holder: SlotHolder): Promise<boolean>;
  sendFirst(event: WebhookEventRecord, key: DeliveryKey): Promise<void>;
}

/** A delivery whose first attempt may have been sent and not recorded: attempt 1 is interrupted and does not count in the round. */
function withInterruptedFirstAttempt(d: DeliveryRecord, startedAt: Date): DeliveryRecord {
  return { ...d, attempt_count: 1, attempts: [interruptedAttempt(1, startedAt)], last_error_class: 'interrupted' };
}
