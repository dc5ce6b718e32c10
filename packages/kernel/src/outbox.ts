import { Schema, type Model } from 'mongoose';
import { context, propagation } from '@opentelemetry/api';
import type { EventEnvelope, EventPayloads, Subject } from './events/catalogue';
import { newEventId } from './ids';
import type { Mode } from './caller';
import type { Logger } from './logger';
import type { PlatformMetrics } from './metrics';
import { publishEvent, type NatsContext } from './nats';

/**
 * Transactional outbox inside the aggregate document: the state change and the events it causes
 * are one single-document write. A relay publishes each event to JetStream (Nats-Msg-Id = event_id)
 * and then pulls it from the document. A crash between the two re-publishes the same event id,
 * which the server drops inside the duplicate window and idempotent consumers drop after it.
 */
export interface OutboxEntry {
  event_id: string;
  subject: Subject;
  occurred_at: Date;
  merchant_id?: number;
  mode?: Mode;
  data: unknown;
  traceparent?: string;
}

export const outboxEntrySchema = new Schema<OutboxEntry>(
  {
    event_id: { type: String, required: true },
    subject: { type: String, required: true },
    occurred_at: { type: Date, required: true },
    merchant_id: Number,
    mode: String,
    data: { type: Schema.Types.Mixed, required: true },
    traceparent: String,
  },
  { _id: false },
);

export function outboxEvent<S extends Subject>(
  subject: S,
  data: EventPayloads[S],
  scope: { merchantId?: number; mode?: Mode } = {},
): OutboxEntry {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return {
    event_id: newEventId(),
    subject,
    occurred_at: new Date(),
    merchant_id: scope.merchantId,
    mode: scope.mode,
    data,
    traceparent: carrier.traceparent,
  };
}

interface WithOutbox {
  _id: unknown;
  outbox?: OutboxEntry[];
}

export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    private readonly model: Model<any>,
    private readonly nats: NatsContext,
    private readonly log: Logger,
    private readonly metrics: PlatformMetrics,
    private readonly sweepIntervalMs = 2_000,
  ) {}

  get collection(): string {
    return this.model.collection.collectionName;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    }, this.sweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** Fast path right after a write; failures are left to the sweep. */
  relaySoon(id: unknown): void {
    this.relayDocument(id).catch((err: unknown) => this.log.warn({ err }, 'outbox relay deferred to sweep'));
  }

  async relayDocument(id: unknown): Promise<void> {
    const doc = (await this.model.findById(id, { outbox: 1 }).lean().exec()) as WithOutbox | null;
    if (doc?.outbox?.length) await this.publishAll(doc);
  }

  async sweep(): Promise<void> {
    try {
      const docs = (await this.model
        .find({ 'outbox.0': { $exists: true } }, { outbox: 1 })
        .limit(200)
        .lean()
        .exec()) as WithOutbox[];
      this.metrics.outboxPending.set({ collection: this.collection }, docs.length);
      for (const doc of docs) await this.publishAll(doc);
    } catch (err) {
      this.log.warn({ err }, 'outbox sweep failed');
    }
  }

  private async publishAll(doc: WithOutbox): Promise<void> {
    for (const entry of doc.outbox ?? []) {
      const envelope = {
        event_id: entry.event_id,
        subject: entry.subject,
        occurred_at: new Date(entry.occurred_at).toISOString(),
        merchant_id: entry.merchant_id,
        mode: entry.mode,
        data: entry.data,
      } as EventEnvelope;
      await publishEvent(this.nats, envelope, { traceparent: entry.traceparent, metrics: this.metrics });
      // $pullAll with the element exactly as stored: FerretDB v1 ignores condition-style $pull.
      await this.model.updateOne({ _id: doc._id }, { $pullAll: { outbox: [entry] } }).exec();
      this.metrics.outboxRelayed.inc({ collection: this.collection });
    }
  }
}
