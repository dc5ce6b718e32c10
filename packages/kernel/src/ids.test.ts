import { newEventId, newRequestId, prefixedId, randomBase62 } from './ids';

describe('random ids', () => {
  it('makes prefixed random ids and spec-shaped event ids', () => {
    expect(prefixedId('key')).toMatch(/^key_[0-9A-Za-z]{24}$/);
    expect(newEventId()).toMatch(/^evt_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(Array.from({ length: 1000 }, () => randomBase62(12))).size).toBe(1000);
  });

  it('are base62 of the asked length, unique across many pool refills', () => {
    const ids = Array.from({ length: 20_000 }, () => newRequestId()); // ~100 refills of the 4 KiB pool
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(prefixedId('key')).toMatch(/^key_[0-9A-Za-z]{24}$/);
    expect(randomBase62(1)).toMatch(/^[0-9A-Za-z]$/);
  });

  it('draws every base62 character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const text = Array.from({ length: 2_000 }, () => randomBase62(31)).join(''); // 62,000 characters
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 1,000 each; a biased draw (e.g. byte % 62 without rejection) skews the first 8 to ~1,190.
    for (const n of counts.values()) expect(Math.abs(n - 1_000)).toBeLessThan(150);
  });
});
