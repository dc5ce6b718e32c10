import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  connectNats,
  createLogger,
  leaseBucket,
  PlatformMetrics,
  runUnderLease,
  type NatsContext,
  type RunningLease,
} from '@ppay/runtime';
import { eventually } from '../support/platform';
import { testInfraUrls } from '../support/infra';

/** Leases over the real JetStream KV: one holder at a time, handed over on stop, death and theft. */
describe('kernel: runUnderLease', () => {
  const log = createLogger('lease-test', 'silent');
  const TTL = 1_500;
  const contexts: NatsContext[] = [];
  const leases: RunningLease[] = [];
  let bucket: string;

  /** One "replica": its own connection, and a log of when its work ran. */
  const replica = async (name: string, running: Set<string>) => {
    const ctx = await connectNats(testInfraUrls().natsUrl, name, log);
    contexts.push(ctx);
    const lease = await runUnderLease(
      ctx,
      {
        name: 'wallet-writers',
        bucket,
        holderId: `replica-${name}:${process.pid}:x`, // another "host" each: never presumed dead
        ttlMs: TTL,
        start: async () => {
          running.add(name);
          return { stop: async () => void running.delete(name) };
        },
      },
      log,
      new PlatformMetrics(name),
    );
    leases.push(lease);
    return { ctx, lease };
  };

  beforeEach(() => {
    bucket = `lease_test_${randomBytes(4).toString('hex')}`;
  });
  afterEach(async () => {
    for (const lease of leases.splice(0)) await lease.stop().catch(() => undefined);
    for (const ctx of contexts.splice(0)) await ctx.nc.close().catch(() => undefined);
  });

  it('runs the work on one replica only, and hands it over at once on a graceful stop', async () => {
    const running = new Set<string>();
    const a = await replica('a', running);
    const b = await replica('b', running);
    expect(await eventually(async () => running.size === 1, 5_000)).toBe(true);
    await new Promise((r) => setTimeout(r, TTL * 2)); // renewals keep it where it is
    expect(running.size).toBe(1);
    expect([a.lease.held, b.lease.held].filter(Boolean)).toHaveLength(1);
    const [holder, standby] = a.lease.held ? [a, b] : [b, a];
    const handedAt = Date.now();
    await holder.lease.stop();
    expect(await eventually(async () => standby.lease.held, 5_000, 50)).toBe(true);
    // The key was deleted on stop: the standby took it on its next try (TTL/3), not after the TTL.
    expect(Date.now() - handedAt).toBeLessThan(TTL);
    expect([...running]).toEqual([standby === a ? 'a' : 'b']);
  });

  it('moves the work to a standby when the holder dies without a word (key expires after the TTL)', async () => {
    const running = new Set<string>();
    const a = await replica('a', running);
    expect(await eventually(async () => a.lease.held, 5_000, 50)).toBe(true);
    const b = await replica('b', running);
    await new Promise((r) => setTimeout(r, TTL / 2));
    expect(b.lease.held).toBe(false);
    // kill -9 as NATS sees it: the connection drops, nothing renews or deletes the key.
    await a.ctx.nc.close();
    const diedAt = Date.now();
    expect(await eventually(async () => b.lease.held, 10_000, 50)).toBe(true);
    expect(Date.now() - diedAt).toBeLessThan(TTL * 2.5);
    expect(running.has('b')).toBe(true);
  });

  it('takes over at once from a holder on this host whose process is gone (a restart after kill -9)', async () => {
    const running = new Set<string>();
    const ctx = await connectNats(testInfraUrls().natsUrl, 'seed', log);
    contexts.push(ctx);
    const kv = await leaseBucket(ctx, 60_000, bucket); // a TTL that would keep a dead holder for a minute
    await kv.put('wallet-writers', `${hostname()}:2147483646:dead`);
    const restarted = await runUnderLease(
      ctx,
      { name: 'wallet-writers', bucket, ttlMs: TTL, start: async () => ({ stop: async () => undefined }) },
      log,
      new PlatformMetrics('restarted'),
    );
    leases.push(restarted);
    expect(await eventually(async () => restarted.held, 2_000, 20)).toBe(true);
    // A holder on another host is never presumed dead: only its TTL frees the key.
    await restarted.stop();
    await kv.put('wallet-writers', 'other-host:1:alive');
    const standby = await replica('b', running);
    await new Promise((r) => setTimeout(r, TTL));
    expect(standby.lease.held).toBe(false);
  });

  it('stops the work when another holder took the key (its renewal compare-and-set fails)', async () => {
    const running = new Set<string>();
    const a = await replica('a', running);
    expect(await eventually(async () => a.lease.held, 5_000, 50)).toBe(true);
    const kv = await leaseBucket(a.ctx, TTL, bucket);
    await kv.put('wallet-writers', 'someone-else');
    expect(await eventually(async () => !a.lease.held, 5_000, 50)).toBe(true);
    expect(running.size).toBe(0);
  });
});
