import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseDecimal, PlatformError } from '@ppay/kernel';
import bundledTable from '../data/rates-2026-11-01.json';
import { BundledRateSource, divideToSignificant, HttpRateSource, parseRateTable } from './rates';

const bundled = new BundledRateSource(parseRateTable(bundledTable, 'bundled'));

describe('exact cross rates', () => {
  it('divides on BigInt and rounds half up to 10 significant digits', () => {
    const div = (a: string, b: string) => divideToSignificant(parseDecimal(a), parseDecimal(b));
    expect(div('1', '3')).toEqual({ units: 3333333333n, scale: 10 });
    expect(div('2', '3')).toEqual({ units: 6666666667n, scale: 10 });
    expect(div('1', '1532.45')).toEqual({ units: 6525498385n, scale: 13 }); // 0.0006525498385
    expect(div('25385', '1')).toEqual({ units: 25385n, scale: 0 });
    // 9.99999999995 rounds up into the next decade: 10.00000000 → "10"
    expect(div('9.99999999995', '1')).toEqual({ units: 10n, scale: 0 });
    expect(div('123456789012345', '1')).toEqual({ units: 123456789000000n, scale: 0 });
  });

  it('quotes every platform currency from the dated table', async () => {
    expect(bundled.id).toBe('bundled:2026-11-01');
    for (const c of [
      'NGN',
      'GHS',
      'KES',
      'ZAR',
      'TZS',
      'XAF',
      'XOF',
      'USD',
      'EUR',
      'GBP',
      'CAD',
      'AUD',
      'JPY',
      'KRW',
      'VND',
    ]) {
      expect(bundled.currencies()).toContain(c);
    }
    expect(await bundled.quote('USD', 'NGN')).toEqual({
      rate: '1532.45',
      source: 'bundled:2026-11-01',
      as_of: '2026-11-01',
    });
    expect((await bundled.quote('NGN', 'USD')).rate).toBe('0.0006525498385');
    expect((await bundled.quote('EUR', 'NGN')).rate).toBe('1777.784223');
    expect((await bundled.quote('JPY', 'KRW')).rate).toBe('9.14013784');
    // The CFA francs follow the EUR peg exactly.
    expect((await bundled.quote('EUR', 'XAF')).rate).toBe('655.957');
    expect((await bundled.quote('XAF', 'XOF')).rate).toBe('1');
  });

  it('answers UNSUPPORTED_CURRENCY "Unable to convert from X to Y" for a currency it has no rate for', async () => {
    await expect(bundled.quote('USD', 'PEN')).rejects.toMatchObject({
      code: 'UNSUPPORTED_CURRENCY',
      message: 'Unable to convert from USD to PEN',
    });
  });

  it('parses feeds with a date or a unix timestamp and skips unusable entries', () => {
    const t = parseRateTable(
      { base: 'eur', timestamp: 1_793_491_200, rates: { USD: 1.16, XXX1: 2, NGN: '0', GHS: 'x' } },
      't',
    );
    expect(t.base).toBe('EUR');
    expect(t.as_of).toBe('2026-11-01T00:00:00.000Z');
    expect([...t.rates.keys()].sort()).toEqual(['EUR', 'USD']);
    expect(() => parseRateTable({ rates: {} }, 't')).toThrow(/base/);
    expect(() => parseRateTable({ base: 'USD', rates: {} }, 't')).toThrow(/date/);
  });
});

describe('HttpRateSource (live feed) against a local server', () => {
  let server: Server;
  let url: string;
  let status = 200;
  let body: unknown = { base: 'USD', date: '2026-11-20', rates: { NGN: 1600.5, GHS: '12.5', EUR: 0.9 } };
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/latest?base=USD`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    status = 200;
    body = { base: 'USD', date: '2026-11-20', rates: { NGN: 1600.5, GHS: '12.5', EUR: 0.9 } };
  });

  it('maps the feed, reports live:<host>, sends the API key and caches for the TTL', async () => {
    let now = 1_000_000;
    const source = new HttpRateSource({
      url,
      apiKey: 'k_123',
      ttlMs: 60_000,
      timeoutMs: 2_000,
      maxStaleMs: 0,
      now: () => now,
    });
    expect(source.id).toBe(`live:${new URL(url).host}`);
    expect(await source.quote('USD', 'NGN')).toEqual({ rate: '1600.5', source: source.id, as_of: '2026-11-20' });
    expect((await source.quote('GHS', 'NGN')).rate).toBe('128.04');
    expect((await source.quote('EUR', 'USD')).rate).toBe('1.111111111');
    expect(seen).toHaveLength(1);
    expect(seen[0].authorization).toBe('Bearer k_123');

    body = { base: 'USD', date: '2026-11-21', rates: { NGN: '1610' } };
    now += 59_000;
    expect((await source.quote('USD', 'NGN')).rate).toBe('1600.5'); // still cached
    now += 2_000;
    expect(await source.quote('USD', 'NGN')).toMatchObject({ rate: '1610', as_of: '2026-11-21' });
    expect(seen).toHaveLength(2);
    await expect(source.quote('USD', 'GHS')).rejects.toMatchObject({ code: 'UNSUPPORTED_CURRENCY' });
  });

  it('uses the last table while within maxStale when the feed fails, then fails with 503', async () => {
    let now = 0;
    const source = new HttpRateSource({ url, ttlMs: 1_000, timeoutMs: 2_000, maxStaleMs: 10_000, now: () => now });
    expect((await source.quote('USD', 'NGN')).rate).toBe('1600.5');
    expect(seen[0].authorization).toBeUndefined();
    status = 500;
    now = 5_000;
    expect((await source.quote('USD', 'NGN')).rate).toBe('1600.5');
    now = 20_000;
    const err = await source.quote('USD', 'NGN').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('rejects a malformed feed body', async () => {
    body = { rates: { NGN: 1 } };
    const source = new HttpRateSource({ url, ttlMs: 1_000, timeoutMs: 2_000, maxStaleMs: 0 });
    await expect(source.quote('USD', 'NGN')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
