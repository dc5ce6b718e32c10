import { createLogger, type NatsContext } from '@ppay/runtime';
import type { ApiKeyCache } from './api-key-cache';
import { KeyChangeFeed } from './key-change-feed';

/** One consume() call: yields the queued messages, then ends or fails as the test says. */
class FakeMessages {
  private readonly waiting: {
    resolve: (v: IteratorResult<{ data: Uint8Array }>) => void;
    reject: (e: Error) => void;
  }[] = [];
  private readonly queued: (IteratorResult<{ data: Uint8Array }> | Error)[] = [];
  closed = false;

  push(item: IteratorResult<{ data: Uint8Array }> | Error): void {
    const next = this.waiting.shift();
    if (!next) this.queued.push(item);
    else if (item instanceof Error) next.reject(item);
    else next.resolve(item);
  }
  async close(): Promise<void> {
    this.closed = true;
    this.push({ done: true, value: undefined });
  }
  [Symbol.asyncIterator]() {
    return {
      next: () => {
        const item = this.queued.shift();
        if (item instanceof Error) return Promise.reject(item);
        if (item) return Promise.resolve(item);
        return new Promise<IteratorResult<{ data: Uint8Array }>>((resolve, reject) =>
          this.waiting.push({ resolve, reject }),
        );
      },
    };
  }
}

const event = (subject: string, keyId: string) => ({
  done: false as const,
  value: {
    data: new TextEncoder().encode(
      JSON.stringify({
        event_id: `evt_${keyId}`,
        subject,
        version: 1,
        occurred_at: new Date().toISOString(),
        data: { key_id: keyId, merchant_id: 1, mode: 'sandbox', is_active: false },
      }),
    ),
  },
});

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('KeyChangeFeed', () => {
  it('evicts changed keys, and restarts after a failure with readiness down meanwhile and the cache cleared', async () => {
    const sessions: FakeMessages[] = [];
    let gets = 0;
    const nats = {
      js: {
        consumers: {
          get: async () => {
            gets++;
            if (gets === 1) throw new Error('stream APIKEYS not found'); // not declared yet
            const messages = new FakeMessages();
            sessions.push(messages);
            return { consume: async () => messages };
          },
        },
      },
    } as unknown as NatsContext;
    const cache = { evictKeyId: jest.fn(), clear: jest.fn() };
    const feed = new KeyChangeFeed(nats, cache as unknown as ApiKeyCache, createLogger('test', 'silent'), {
      initialMs: 5,
      maxMs: 20,
    });
    feed.start();
    expect(feed.up).toBe(false);

    await until(() => feed.up); // the first get failed, the second attached
    expect(gets).toBe(2);
    expect(cache.clear).toHaveBeenCalledTimes(1);
    sessions[0].push(event('apikeys.status_changed', 'key_a'));
    await until(() => cache.evictKeyId.mock.calls.length === 1);
    expect(cache.evictKeyId).toHaveBeenCalledWith('key_a');

    // The subscription dies: readiness drops, the feed comes back and clears what the gap hid.
    sessions[0].push(new Error('connection lost'));
    await until(() => sessions.length === 2 && feed.up);
    expect(cache.clear).toHaveBeenCalledTimes(2);
    sessions[1].push(event('apikeys.revoked', 'key_b'));
    await until(() => cache.evictKeyId.mock.calls.length === 2);

    // A feed that simply ends is restarted too.
    sessions[1].push({ done: true, value: undefined });
    await until(() => sessions.length === 3 && feed.up);

    await feed.stop();
    expect(sessions[2].closed).toBe(true);
    expect(feed.up).toBe(false);
  });
});
