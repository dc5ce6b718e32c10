import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KV } from 'nats';
import type { Logger } from './logger';
import type { PlatformMetrics } from './metrics';
import type { NatsContext } from './nats';

/** The JetStream KV bucket that holds every lease; its TTL is how long a dead holder keeps one. */
export const LEASE_BUCKET = 'ppay_leases';
export const DEFAULT_LEASE_TTL_MS = 10_000;

/** What runs only while its replica holds the lease (e.g. the consumers that write one hot wallet). */
export interface LeasedWork {
  stop(): Promise<void>;
}

export interface LeaseOptions {
  /** The lease's key: one holder per name across every replica of every service. */
  name: string;
  ttlMs?: number;
  /** `host:pid:nonce` of this holder (default: this process); tests play several replicas in one process. */
  holderId?: string;
  /** The KV bucket (default LEASE_BUCKET); its TTL is fixed when it is first created. */
  bucket?: string;
  start(): Promise<LeasedWork>;
}

export interface RunningLease {
  readonly held: boolean;
  /** Stops the work and hands the lease back at once (a graceful shutdown needs no TTL wait). */
  stop(): Promise<void>;
}

/** The bucket a lease lives in, created on first use; a bucket-wide TTL expires a holder that died. */
export async function leaseBucket(ctx: NatsContext, ttlMs = DEFAULT_LEASE_TTL_MS, bucket = LEASE_BUCKET): Promise<KV> {
  return ctx.js.views.kv(bucket, { ttl: ttlMs, history: 1 });
}

/** True when the KV refused a write because the key moved on (another holder, or it expired). */
function isRevisionConflict(err: unknown): boolean {
  const code = (err as { api_error?: { err_code?: number } } | undefined)?.api_error?.err_code;
  return code === 10071;
}

/** `host:pid:nonce` of a process on this host that is no longer running (or whose pid is now ours). */
function diedHere(holder: string): boolean {
  const [host, pidText] = holder.split(':');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true; // a restarted container reuses its pid: the holder was our predecessor
  try {
    process.kill(pid, 0);
    return false; // alive (or reused by another process: then wait for the TTL, as for any holder)
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * A process restarted after a kill -9 on the same host (the launcher, a container restart) need not
 * wait out its predecessor's TTL: when the holder's pid is gone, the key is deleted at the revision read.
 */
async function releaseIfHolderDiedHere(kv: KV, name: string): Promise<boolean> {
  const entry = await kv.get(name).catch(() => null);
  if (!entry || entry.operation !== 'PUT' || !diedHere(entry.string())) return false;
  await kv.delete(name, { previousSeq: entry.revision }).catch(() => undefined);
  return true;
}

/**
 * Runs `start()` on exactly one replica at a time (at most briefly two, see below) and moves it to
 * another replica when the holder dies. For work that is correct on any number of replicas but slow
 * when they contend (e.g. two ledger consumers retrying each other's compare-and-set on one wallet on
 * a database that runs one write at a time): the lease is for throughput, never for safety.
 *
 * The holder renews every TTL/3 with a compare-and-set on the key's revision. It steps down when the
 * revision moved (someone else holds it) or when it could not renew for 0.8 × TTL, so a holder cut off
 * from NATS stops before its key expires. A holder paused for longer than the TTL (GC, SIGSTOP) may
 * overlap the next one until its first renewal fails; the work stays correct then, only slower.
 * A standby tries to take the lease every TTL/3: after a kill -9 the work resumes within ~1.3 × TTL, or
 * at once when the process restarted on the same host finds its predecessor's pid gone.
 */
export async function runUnderLease(
  ctx: NatsContext,
  options: LeaseOptions,
  log: Logger,
  metrics: PlatformMetrics,
): Promise<RunningLease> {
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const kv = await leaseBucket(ctx, ttlMs, options.bucket);
  const holder = options.holderId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const labels = { lease: options.name };
  let revision = 0;
  let lastRenewal = 0;
  let work: LeasedWork | undefined;
  let stopped = false;
  let wake: (() => void) | undefined;

  const stepDown = async (why: string) => {
    log.warn({ lease: options.name, why }, 'lease lost: stopping its work');
    const current = work;
    work = undefined;
    revision = 0;
    metrics.leaseHeld.set(labels, 0);
    await current?.stop().catch((err: unknown) => log.warn({ err, lease: options.name }, 'leased work stop failed'));
  };

  const tick = async () => {
    if (work) {
      try {
        revision = await kv.update(options.name, holder, revision);
        lastRenewal = Date.now();
      } catch (err) {
        if (isRevisionConflict(err)) await stepDown('another replica holds it');
        else if (Date.now() - lastRenewal > 0.8 * ttlMs) await stepDown('could not renew before it expires');
      }
      return;
    }
    try {
      revision = await kv.create(options.name, holder);
    } catch (err) {
      if (!isRevisionConflict(err)) {
        log.debug({ err, lease: options.name }, 'lease not taken: NATS unavailable');
        return;
      }
      if (!(await releaseIfHolderDiedHere(kv, options.name))) return; // held by another replica
      try {
        revision = await kv.create(options.name, holder);
      } catch {
        return; // another standby was quicker
      }
    }
    lastRenewal = Date.now();
    metrics.leaseHeld.set(labels, 1);
    metrics.leaseAcquired.inc(labels);
    log.info({ lease: options.name, holder }, 'lease taken: starting its work');
    try {
      work = await options.start();
    } catch (err) {
      log.error({ err, lease: options.name }, 'leased work failed to start; handing the lease back');
      metrics.leaseHeld.set(labels, 0);
      await kv.delete(options.name, { previousSeq: revision }).catch(() => undefined);
      revision = 0;
    }
  };

  const loop = (async () => {
    while (!stopped) {
      await tick();
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, ttlMs / 3).unref();
      });
    }
  })();

  metrics.leaseHeld.set(labels, 0);
  return {
    get held() {
      return work !== undefined;
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      if (!work) return;
      const current = work;
      work = undefined;
      await current.stop().catch((err: unknown) => log.warn({ err, lease: options.name }, 'leased work stop failed'));
      await kv.delete(options.name, { previousSeq: revision }).catch(() => undefined);
      metrics.leaseHeld.set(labels, 0);
    },
  };
}
