import { DeliverPolicy } from 'nats';
import { decodeEnvelope, type Logger, type NatsContext } from '@ppay/runtime';
import type { ApiKeyCache } from './api-key-cache';

/**
 * Follows apikeys.* and evicts changed keys from the cache at once, so a revocation takes effect in
 * milliseconds rather than at the cache TTL. The feed is supervised: when it fails it is restarted
 * with backoff, the cache is cleared (events of the gap were missed), and `up` is false meanwhile so
 * readiness can say the gateway would not honour revocations.
 */
export class KeyChangeFeed {
  private running = true;
  private close?: () => Promise<void>;
  private loop?: Promise<void>;
  up = false;

  constructor(
    private readonly nats: NatsContext,
    private readonly cache: ApiKeyCache,
    private readonly log: Logger,
    private readonly backoff = { initialMs: 250, maxMs: 5_000 },
  ) {}

  start(): void {
    this.loop = this.supervise();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.close?.().catch(() => undefined);
    await this.loop;
  }

  private async supervise(): Promise<void> {
    let delay = this.backoff.initialMs;
    while (this.running) {
      try {
        // Ordered consumer from "now": the stream is declared by the webhooks service and may not exist yet.
        const consumer = await this.nats.js.consumers.get('APIKEYS', { deliver_policy: DeliverPolicy.New });
        const messages = await consumer.consume();
        this.close = () => messages.close().then(() => undefined);
        this.cache.clear(); // whatever changed before this point is re-read on the next request
        this.up = true;
        delay = this.backoff.initialMs;
        this.log.info('following api key changes');
        for await (const m of messages) {
          const event = decodeEnvelope(m.data);
          if (event.subject.startsWith('apikeys.') && 'key_id' in event.data) this.cache.evictKeyId(event.data.key_id);
        }
        if (this.running) throw new Error('api key change feed ended');
      } catch (err) {
        if (!this.running) break;
        this.log.warn({ err, retry_in_ms: delay }, 'api key change feed down; restarting');
      } finally {
        this.up = false;
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(this.backoff.maxMs, delay * 2);
    }
  }
}
