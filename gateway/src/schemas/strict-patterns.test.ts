import { WebhookBody } from './api-keys';
import { CURSOR_PATTERN } from './common';
import { BanksQuery } from './kyc';
import { CancelBody, FulfilBody } from './orders';

/**
 * The document states the services' own rules as patterns (docs/decisions.md, H3-16): every value a
 * pattern admits must be one the service takes, and the values it refuses ones the service refuses.
 */
const patternOf = (schema: unknown) => new RegExp((schema as { pattern: string }).pattern, 'u');

/**
 * What the webhooks service checks of a URL's form (services/webhooks/src/api-keys/api-keys.ts); which hosts
 * may receive is decided after it, by the deployment's SSRF rules (deliveries/ssrf.ts).
 */
function webhookServiceTakes(raw: string): boolean {
  if (raw === '') return true;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
}

describe('patterns of the OpenAPI document', () => {
  it('webhook_url: absolute http(s) URLs of a host name or an IP address, without credentials', () => {
    const re = patternOf(WebhookBody.properties.webhook_url);
    const taken = [
      '',
      'https://example.com/hook',
      'HTTP://a.b:8080/x?y#z',
      'http://a1.b2c.',
      'https://x.io/a@b',
      'http://localhost:3000/webhooks',
      'http://127.0.0.1:3000/webhooks',
      'https://203.0.113.5/hook',
      'https://[2001:db8::1]:8443/hook',
    ];
    const refused = [
      'ftp://a.com',
      'example.com/hook',
      'http://user:pw@a.com/',
      'http://999.1.1.1/',
      'http://xn--a.com/',
      'https://a.b:70000/',
      'https://a b.com/',
    ];
    expect(taken.filter((u) => !re.test(u))).toEqual([]);
    expect(refused.filter((u) => re.test(u))).toEqual([]);
    for (const u of taken) expect([u, webhookServiceTakes(u)]).toEqual([u, true]);
    for (const u of refused) expect([u, webhookServiceTakes(u)]).toEqual([u, false]);
  });

  it('tracking_url: absolute https URLs only (empty: none); carrier not blank once trimmed', () => {
    const re = patternOf(FulfilBody.properties.tracking_url);
    expect(['', 'https://t.co/abc', 'https://track.example.com:8443/x?n=1'].every((u) => re.test(u))).toBe(true);
    expect(['http://t.co', 'https://', 'https://999.1.1.1', 'https://a.b:70000'].some((u) => re.test(u))).toBe(false);
    const carrier = patternOf(FulfilBody.properties.carrier);
    expect(['   ', '\ufeff', '\u00a0\t'].some((c) => carrier.test(c))).toBe(false);
    expect([' a ', 'DHL'].every((c) => carrier.test(c))).toBe(true);
  });

  it('a reason has 3 characters once trimmed, as the services count them', () => {
    const re = patternOf(CancelBody.properties.reason);
    for (const r of ['ab', ' ab ', '  a  ', '\ufeffab\ufeff', '\u3000ab\u2028']) {
      expect([r, re.test(r), r.trim().length >= 3]).toEqual([r, false, false]);
    }
    for (const r of ['abc', 'a b', '  a  b  ', ' \u00a0x y\t']) {
      expect([r, re.test(r), r.trim().length >= 3]).toEqual([r, true, true]);
    }
  });

  it('banks currency: NGN, GHS, KES or ZAR in any case, or empty', () => {
    const re = patternOf(BanksQuery.properties.currency);
    expect(['', 'NGN', 'ngn', 'gHs', 'KES', 'zar'].every((c) => re.test(c))).toBe(true);
    expect(['USD', 'NG', 'NGNN', ' NG', '00'].some((c) => re.test(c))).toBe(false);
  });

  it('cursors: base64url text, as every list issues them', () => {
    const re = new RegExp(CURSOR_PATTERN, 'u');
    expect(re.test(Buffer.from('2026-01-01T00:00:00.000Z|chg_1').toString('base64url'))).toBe(true);
    expect(['0=', 'a+b', 'a/b', ' ', ''].some((c) => re.test(c))).toBe(false);
  });
});
