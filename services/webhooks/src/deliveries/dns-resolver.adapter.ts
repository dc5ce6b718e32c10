import { Resolver } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { TtlCache } from '@ppay/kernel';
import type { LookupAll } from './ssrf';

/**
 * Webhook targets' DNS (docs/decisions.md, H2-4). `dns.lookup` is getaddrinfo on libuv's thread pool
 * (4 threads by default, shared with file and crypto work): four lookups stuck on one tenant's slow
 * authoritative server stall every other tenant's deliveries. This resolver asks DNS directly
 * (c-ares, on the event loop) with a timeout, runs at most `concurrency` queries at once (a query
 * waits for a place at most `queueTimeoutMs`), asks once per name however many deliveries want it,
 * and keeps each answer for its records' TTL. Failures are kept a second, so a burst to a dead name
 * asks once. Names under `localhost` answer loopback without asking (RFC 6761), as the system
 * resolver does; /etc/hosts is not read.
 */
export interface DnsOptions {
  /** Per try of a query (c-ares). */
  timeoutMs: number;
  tries: number;
  concurrency: number;
  queueTimeoutMs: number;
  /** Answers cached at most this long, whatever their TTL; at least 1 s. */
  maxTtlSeconds: number;
  maxEntries: number;
  /** Name servers (`host:port`); default: the system's (resolv.conf). */
  servers?: string[];
}

export const DNS_DEFAULTS: DnsOptions = {
  timeoutMs: 1_500,
  tries: 2,
  // Twice the queries of a full send pool (A and AAAA per send), with room for URL checks: the pool
  // and its per-merchant share are what keep one tenant's names from taking them all.
  concurrency: 256,
  queueTimeoutMs: 2_000,
  maxTtlSeconds: 300,
  maxEntries: 10_000,
};

const FAILURE_TTL_MS = 1_000;
const LOCALHOST = /(^|\.)localhost\.?$/i;

type Answer = { addresses: LookupAddress[]; ttlMs: number } | { error: NodeJS.ErrnoException };

export class AsyncDnsResolver {
  private readonly resolver: Resolver;
  private readonly cache: TtlCache<string, Answer>;
  private running = 0;
  private readonly queue: (() => void)[] = [];
  /** Queries sent to DNS (each name and family once per cache miss). */
  queries = 0;

  constructor(
    private readonly options: DnsOptions = DNS_DEFAULTS,
    now: () => number = Date.now,
  ) {
    this.resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries });
    if (options.servers) this.resolver.setServers(options.servers);
    this.cache = new TtlCache(options.maxEntries, now);
  }

  /** Every address of `hostname` (IPv4 first), or `family`'s only; rejects like dns.lookup does. */
  async resolve(hostname: string, family: 0 | 4 | 6 = 0): Promise<LookupAddress[]> {
    if (LOCALHOST.test(hostname)) {
      const loopback = [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
      return loopback.filter((a) => family === 0 || a.family === family);
    }
    const name = hostname.toLowerCase();
    const answer = await this.cache.getOrLoad(
      `${family}:${name}`,
      () => this.ask(name, family),
      (a) => ('error' in a ? FAILURE_TTL_MS : a.ttlMs),
    );
    if ('error' in answer) throw answer.error;
    return answer.addresses;
  }

  /** The `lookup` the SSRF guard calls (guardedLookup asks for every address). */
  readonly lookupAll: LookupAll = (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    this.resolve(hostname, family).then(
      (addresses) => callback(null, addresses),
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };

  private async ask(name: string, family: 0 | 4 | 6): Promise<Answer> {
    const asked = await Promise.allSettled([
      family === 6 ? Promise.resolve([]) : this.query(() => this.resolver.resolve4(name, { ttl: true }), 4),
      family === 4 ? Promise.resolve([]) : this.query(() => this.resolver.resolve6(name, { ttl: true }), 6),
    ]);
    const records = asked.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    if (records.length === 0) {
      const failed = asked.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      const error = (failed?.reason as NodeJS.ErrnoException | undefined) ?? notFound(name);
      return { error: error.code === 'ENODATA' ? notFound(name) : error };
    }
    const ttl = Math.min(...records.map((r) => r.ttl));
    return {
      addresses: records.map(({ address, family: f }) => ({ address, family: f })),
      ttlMs: Math.min(Math.max(ttl, 1), this.options.maxTtlSeconds) * 1000,
    };
  }

  /** One DNS query in one of the `concurrency` places; the records with their family. */
  private async query(
    send: () => Promise<{ address: string; ttl: number }[]>,
    family: 4 | 6,
  ): Promise<{ address: string; ttl: number; family: number }[]> {
    await this.place();
    this.queries++;
    try {
      return (await send()).map((r) => ({ ...r, family }));
    } finally {
      this.running--;
      this.queue.shift()?.();
    }
  }

  /** Waits for a free place (at most queueTimeoutMs); the caller holds it until `query` ends. */
  private place(): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const take = () => {
        clearTimeout(timer);
        this.running++;
        resolve();
      };
      const timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(take), 1);
        reject(Object.assign(new Error('DNS queries are all busy'), { code: 'ETIMEOUT' }));
      }, this.options.queueTimeoutMs);
      this.queue.push(take);
    });
  }
}

function notFound(name: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`queryA ENOTFOUND ${name}`), { code: 'ENOTFOUND', hostname: name });
}

/** The process's resolver for webhook targets: deliveries and webhook URL checks share its cache. */
export const webhookDns = new AsyncDnsResolver();
