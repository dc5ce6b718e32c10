import { PlatformError } from '@ppay/kernel';
import { PlatformMetrics, RemoteCallError } from '@ppay/runtime';
import { status } from '@grpc/grpc-js';
import { ApiKeyCache, type ApiKeyPrincipal } from './api-key-cache';

const key = (c: string) => `pk_sandbox_${c.repeat(32)}`;
const principal: ApiKeyPrincipal = { keyId: 'key_1', merchantId: 1000, mode: 'sandbox', apiVersion: '2026-03-27' };
const invalid = () =>
  new RemoteCallError('webhooks', 'AuthenticateApiKey', status.UNAUTHENTICATED, 'Invalid API key', 'INVALID_API_KEY');

function setup(lookup: (key: string) => Promise<ApiKeyPrincipal>) {
  let now = 1_000_000;
  const calls: string[] = [];
  const cache = new ApiKeyCache(
    { ttlMs: 30_000, negativeTtlMs: 2_000, maxEntries: 3, maxNegativeEntries: 2 },
    async (k) => {
      calls.push(k);
      return lookup(k);
    },
    new PlatformMetrics('gateway-test'),
    () => now,
  );
  return { cache, calls, advance: (ms: number) => (now += ms) };
}

describe('ApiKeyCache', () => {
  it('serves repeats from memory until the TTL passes', async () => {
    const { cache, calls, advance } = setup(async () => principal);
    await cache.authenticate(key('a'));
    await cache.authenticate(key('a'));
    expect(calls).toHaveLength(1);
    advance(30_001);
    await cache.authenticate(key('a'));
    expect(calls).toHaveLength(2);
  });

  it('refuses malformed keys without any lookup', async () => {
    const { cache, calls } = setup(async () => principal);
    for (const k of ['pk_a', 'pk_test_' + 'a'.repeat(32), key('a') + 'x', 'x'.repeat(100_000)]) {
      await expect(cache.authenticate(k)).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    }
    expect(calls).toEqual([]);
  });

  it('evicts a key when told it changed', async () => {
    const { cache, calls } = setup(async () => principal);
    await cache.authenticate(key('a'));
    cache.evictKeyId('key_1');
    await cache.authenticate(key('a'));
    expect(calls).toHaveLength(2);
  });

  it('a change announced during a lookup discards that lookup: a revoked key is not cached as valid', async () => {
    let revoked = false;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { cache, calls } = setup(async () => {
      if (calls.length === 1) await gate; // the first lookup is slow and answers what was true before
      if (revoked && calls.length > 1) throw invalid();
      return principal;
    });
    const first = cache.authenticate(key('a'));
    await new Promise((r) => setImmediate(r));
    revoked = true;
    cache.evictKeyId('key_1'); // the revoke event lands while the lookup is in flight
    release();
    await expect(first).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    await expect(cache.authenticate(key('a'))).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
  });

  it('caches unknown keys briefly in their own bounded cache; a status change clears it at once', async () => {
    let enabled = false;
    const { cache, calls, advance } = setup(async () => {
      if (!enabled) throw invalid();
      return principal;
    });
    await expect(cache.authenticate(key('b'))).rejects.toBeInstanceOf(PlatformError);
    await expect(cache.authenticate(key('b'))).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    expect(calls).toHaveLength(1);
    // Guessing many unknown keys never pushes a valid key out.
    enabled = true;
    await cache.authenticate(key('a'));
    enabled = false;
    for (const c of ['c', 'd', 'e', 'f']) await cache.authenticate(key(c)).catch(() => undefined);
    expect(cache.size).toBe(1);
    // Re-enabling: the status event clears negative entries, so the key works immediately.
    enabled = true;
    cache.evictKeyId('key_other');
    await expect(cache.authenticate(key('b'))).resolves.toEqual(principal);
    advance(0);
  });

  it('does not cache an outage: the next request asks again', async () => {
    let fail = true;
    const { cache, calls } = setup(async () => {
      if (fail) throw new RemoteCallError('webhooks', 'AuthenticateApiKey', status.UNAVAILABLE, 'down');
      return principal;
    });
    await expect(cache.authenticate(key('a'))).rejects.toBeInstanceOf(RemoteCallError);
    fail = false;
    await expect(cache.authenticate(key('a'))).resolves.toEqual(principal);
    expect(calls).toHaveLength(2);
  });

  it('shares one lookup between concurrent misses and bounds its size', async () => {
    const { cache, calls } = setup(async () => principal);
    await Promise.all(Array.from({ length: 20 }, () => cache.authenticate(key('s'))));
    expect(calls).toHaveLength(1);
    for (const c of ['1', '2', '3', '4']) await cache.authenticate(key(c));
    expect(cache.size).toBe(3);
  });

  it('keeps its key-id index bounded too, and still evicts the newest keys by id', async () => {
    const { cache, calls } = setup(async (k) => ({ ...principal, keyId: `key_${k.slice(-1)}` }));
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (const c of ids) await cache.authenticate(key(c));
    expect([cache.size, cache.indexSize]).toEqual([3, 3]);
    cache.evictKeyId('key_h');
    calls.length = 0;
    await cache.authenticate(key('h'));
    expect(calls).toEqual([key('h')]);
  });
});
