import { PlatformError, PlatformMetrics, RemoteCallError } from '@ppay/kernel';
import { status } from '@grpc/grpc-js';
import { ApiKeyCache, type ApiKeyPrincipal } from './api-key-cache';

const principal: ApiKeyPrincipal = { keyId: 'key_1', merchantId: 1000, mode: 'sandbox', apiVersion: '2026-03-27' };

function setup(lookup: (key: string) => Promise<ApiKeyPrincipal>) {
  let now = 1_000_000;
  const calls: string[] = [];
  const cache = new ApiKeyCache(
    { ttlMs: 30_000, negativeTtlMs: 2_000, maxEntries: 3 },
    async (key) => {
      calls.push(key);
      return lookup(key);
    },
    new PlatformMetrics('test'),
    () => now,
  );
  return { cache, calls, advance: (ms: number) => (now += ms) };
}

describe('ApiKeyCache', () => {
  it('serves repeats from memory until the TTL passes', async () => {
    const { cache, calls, advance } = setup(async () => principal);
    await cache.authenticate('pk_a');
    await cache.authenticate('pk_a');
    expect(calls).toHaveLength(1);
    advance(30_001);
    await cache.authenticate('pk_a');
    expect(calls).toHaveLength(2);
  });

  it('evicts a key when told it changed', async () => {
    const { cache, calls } = setup(async () => principal);
    await cache.authenticate('pk_a');
    cache.evictKeyId('key_1');
    await cache.authenticate('pk_a');
    expect(calls).toHaveLength(2);
  });

  it('caches unknown keys briefly and answers INVALID_API_KEY', async () => {
    const { cache, calls, advance } = setup(async () => {
      throw new RemoteCallError(
        'webhooks',
        'AuthenticateApiKey',
        status.UNAUTHENTICATED,
        'Invalid API key',
        'INVALID_API_KEY',
      );
    });
    await expect(cache.authenticate('pk_bad')).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    await expect(cache.authenticate('pk_bad')).rejects.toBeInstanceOf(PlatformError);
    expect(calls).toHaveLength(1);
    advance(2_001);
    await expect(cache.authenticate('pk_bad')).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    expect(calls).toHaveLength(2);
  });

  it('does not cache an outage: the next request asks again', async () => {
    let fail = true;
    const { cache, calls } = setup(async () => {
      if (fail) throw new RemoteCallError('webhooks', 'AuthenticateApiKey', status.UNAVAILABLE, 'down');
      return principal;
    });
    await expect(cache.authenticate('pk_a')).rejects.toBeInstanceOf(RemoteCallError);
    fail = false;
    await expect(cache.authenticate('pk_a')).resolves.toEqual(principal);
    expect(calls).toHaveLength(2);
  });

  it('shares one lookup between concurrent misses and bounds its size', async () => {
    const { cache, calls } = setup(async () => principal);
    await Promise.all(Array.from({ length: 20 }, () => cache.authenticate('pk_same')));
    expect(calls).toHaveLength(1);
    for (const k of ['pk_1', 'pk_2', 'pk_3', 'pk_4']) await cache.authenticate(k);
    expect(cache.size).toBe(3);
  });
});
