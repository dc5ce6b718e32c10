import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  it('expires entries, evicts the oldest when full and shares concurrent loads', async () => {
    let now = 0;
    const cache = new TtlCache<string, number>(2, () => now);
    let loads = 0;
    const load = async () => ++loads;
    const values = await Promise.all([1, 2, 3].map(() => cache.getOrLoad('a', load, () => 100)));
    expect(values).toEqual([1, 1, 1]);
    now = 99;
    expect(cache.peek('a')).toEqual({ value: 1 });
    now = 100;
    expect(cache.peek('a')).toBeUndefined();
    cache.set('x', 1, 10);
    cache.set('y', 2, 10);
    cache.set('z', 3, 10);
    expect([cache.peek('x'), cache.size]).toEqual([undefined, 2]);
  });

  it('does not cache failures or zero-TTL values', async () => {
    const cache = new TtlCache<string, number>(10);
    await expect(
      cache.getOrLoad(
        'k',
        () => Promise.reject(new Error('down')),
        () => 1000,
      ),
    ).rejects.toThrow('down');
    await cache.getOrLoad(
      'k',
      async () => 5,
      () => 0,
    );
    expect(cache.peek('k')).toBeUndefined();
  });
});
