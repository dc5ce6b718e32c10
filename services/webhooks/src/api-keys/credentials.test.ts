import { randomBytes } from 'node:crypto';
import { generateApiKey, KeyHasher, maskApiKey, modeOfApiKey } from './credentials';
import { validateWebhookUrl } from './api-keys';

describe('API key credentials', () => {
  it('generates mode-prefixed 32-character keys and masks them', () => {
    const key = generateApiKey('live');
    expect(key).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    expect(modeOfApiKey(key)).toBe('live');
    expect(modeOfApiKey('pk_test_x')).toBeUndefined();
    expect(maskApiKey(key)).toBe(`pk_live_${key.slice(8, 12)}…${key.slice(-4)}`);
  });

  it('hashes with a pepper: same key same hash, other pepper other hash', () => {
    const key = generateApiKey('sandbox');
    const a = new KeyHasher(randomBytes(32));
    const b = new KeyHasher(randomBytes(32));
    expect(a.hash(key)).toBe(a.hash(key));
    expect(a.hash(key)).not.toBe(b.hash(key));
    expect(a.matches(key, a.hash(key))).toBe(true);
    expect(a.matches(key, b.hash(key))).toBe(false);
  });
});

describe('webhook URL rules', () => {
  it('accepts absolute http(s) URLs; live needs https except on loopback', () => {
    expect(validateWebhookUrl('https://merchant.example/hooks', 'live')).toBe('https://merchant.example/hooks');
    expect(validateWebhookUrl('http://merchant.example/hooks', 'sandbox')).toBe('http://merchant.example/hooks');
    expect(validateWebhookUrl('http://localhost:3000/h', 'live')).toBe('http://localhost:3000/h');
    for (const bad of ['merchant.example', 'ftp://x.example', 'https://user:pw@x.example/', 'javascript:alert(1)']) {
      expect(() => validateWebhookUrl(bad, 'sandbox')).toThrow();
    }
    expect(() => validateWebhookUrl('http://merchant.example/h', 'live')).toThrow(/https/);
  });
});
