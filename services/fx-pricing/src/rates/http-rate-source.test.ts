import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatformError } from '@ppay/kernel';
import { HttpRateSource } from './http-rate-source.adapter';

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
