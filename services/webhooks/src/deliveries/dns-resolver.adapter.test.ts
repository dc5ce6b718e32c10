import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AsyncDnsResolver, DNS_DEFAULTS, type DnsOptions } from './dns-resolver.adapter';
import { fakeDns } from './fake-dns.test-util';
import { sendWebhook } from './http-sender.adapter';

describe('AsyncDnsResolver (webhook targets, H2-4)', () => {
  let dns: Awaited<ReturnType<typeof fakeDns>>;
  const resolvers: AsyncDnsResolver[] = [];
  beforeAll(async () => {
    dns = await fakeDns({
      'fast.test': { addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'], ttl: 30 },
      'short.test': { addresses: ['93.184.215.15'], ttl: 2 },
      'v6only.test': { addresses: ['2606:2800:21f:cb07::1'] },
      'receiver.test': { addresses: ['127.0.0.1'] },
      ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`slow${i}.tenant.test`, { hang: true }])),
    });
  });
  afterAll(() => dns.close());

  let clock = 0;
  const resolver = (options: Partial<DnsOptions> = {}) => {
    const r = new AsyncDnsResolver(
      { ...DNS_DEFAULTS, timeoutMs: 300, tries: 1, servers: [dns.server], ...options },
      () => clock,
    );
    resolvers.push(r);
    return r;
  };

  it('answers every A and AAAA address, IPv4 first, or one family', async () => {
    const r = resolver();
    expect(await r.resolve('FAST.test')).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    expect(await r.resolve('v6only.test')).toEqual([{ address: '2606:2800:21f:cb07::1', family: 6 }]);
    expect(await r.resolve('fast.test', 4)).toEqual([{ address: '93.184.215.14', family: 4 }]);
    await expect(r.resolve('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('one tenant’s hanging name server does not hold up other names, and its lookups time out', async () => {
    const r = resolver();
    let slowSettled = 0;
    const slow = Array.from({ length: 40 }, (_, i) =>
      r
        .resolve(`slow${i}.tenant.test`)
        .catch((e: unknown) => e)
        .finally(() => slowSettled++),
    );
    const fast = await r.resolve('fast.test');
    expect(fast).toHaveLength(2);
    // Answered while every hanging lookup was still waiting (ordering, not wall time: CI machines vary).
    expect(slowSettled).toBe(0);
    const failures = await Promise.all(slow);
    expect(failures.every((e) => (e as { code?: string }).code === 'ETIMEOUT')).toBe(true);
  });

  it('keeps an answer for its TTL (one query for many lookups), then asks again', async () => {
    const r = resolver();
    const asked = () => dns.queries.filter((q) => q.startsWith('short.test/')).length;
    const before = asked();
    await Promise.all(Array.from({ length: 10 }, () => r.resolve('short.test')));
    await r.resolve('short.test');
    expect(asked() - before).toBe(2); // A and AAAA, once
    clock += 1_900;
    await r.resolve('short.test');
    expect(asked() - before).toBe(2);
    clock += 200; // past the record's 2 s
    await r.resolve('short.test');
    expect(asked() - before).toBe(4);
  });

  it('runs at most `concurrency` queries at once; a query waits for a place at most queueTimeoutMs', async () => {
    const r = resolver({ concurrency: 2, queueTimeoutMs: 100 });
    const hanging = r.resolve('slow0.tenant.test').catch((e: unknown) => e); // both places, 300 ms
    const queued = await r.resolve('fast.test').catch((e: unknown) => e);
    expect(queued).toMatchObject({ code: 'ETIMEOUT' });
    await hanging;
    expect(await r.resolve('short.test', 4)).toEqual([{ address: '93.184.215.15', family: 4 }]);
  });

  it('answers loopback for localhost names without asking DNS', async () => {
    const r = resolver();
    const before = dns.queries.length;
    expect(await r.resolve('localhost')).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(await r.resolve('api.localhost', 6)).toEqual([{ address: '::1', family: 6 }]);
    expect(dns.queries.length).toBe(before);
  });

  it('delivers through it, the SSRF guard judging the resolved address', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const agent = new http.Agent();
    const send = (allowPrivateTargets: boolean) =>
      sendWebhook({
        url: `http://receiver.test:${port}/hook`,
        body: '{}',
        headers: {},
        allowPrivateTargets,
        agent,
        dns: resolver(),
      });
    try {
      expect(await send(true)).toMatchObject({ status: 200, success: true });
      expect(await send(false)).toMatchObject({ error_class: 'blocked_target', success: false });
    } finally {
      agent.destroy();
      server.close();
    }
  });
});
