import {
  isMetadataKey,
  isSafeKey,
  newEventId,
  newRequestId,
  prefixedId,
  randomBase62,
  SAFE_KEY_MAX_LENGTH,
} from './ids';

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

describe('isSafeKey (client ids used as stored map keys)', () => {
  it('takes generated ids and plain partner ids up to 64 characters', () => {
    for (const id of [prefixedId('var', 16), 'red', 'XL-2', 'size_10', '0', 'a'.repeat(SAFE_KEY_MAX_LENGTH)]) {
      expect([id, isSafeKey(id)]).toEqual([id, true]);
    }
  });

  it('refuses paths, operators, the prototype, inherited names, the platform’s own key and long strings', () => {
    const inherited = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];
    const bad = ['a.b', '$where', '$inc', '__proto__', '_', '-x', '', 'a b', 'é', 'a'.repeat(65), ...inherited];
    for (const id of bad) expect([id, isSafeKey(id)]).toEqual([id, false]);
    expect(isSafeKey(42)).toBe(false);
    expect(isSafeKey(undefined)).toBe(false);
  });
});

describe('isMetadataKey (partner metadata keys, stored as object keys)', () => {
  it("takes Stripe's keys: up to 40 characters of any kind but brackets", () => {
    for (const key of [
      'order_id',
      'Order ID',
      'customer-name',
      'café',
      '\u{1F600}'.repeat(40),
      'k'.repeat(40),
      'constructor',
    ]) {
      expect([key, isMetadataKey(key)]).toEqual([key, true]);
    }
  });

  it('refuses paths, operators, the prototype, brackets, empty and over-long keys', () => {
    for (const key of ['a.b', '$where', '__proto__', 'a[0]', 'x]', '', 'k'.repeat(41), '\u{1F600}'.repeat(41), 7]) {
      expect([key, isMetadataKey(key)]).toEqual([key, false]);
    }
    expect(isMetadataKey('a$b')).toBe(true); // only a leading $ is an operator
  });
});
