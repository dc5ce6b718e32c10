import { createHash } from 'node:crypto';
import { Counter } from 'prom-client';
import { PlatformError, TtlCache, type Mode } from '@ppay/kernel';
import { RemoteCallError, type PlatformMetrics } from '@ppay/runtime';

export interface ApiKeyPrincipal {
  keyId: string;
  merchantId: number;
  mode: Mode;
  apiVersion: string;
}

export interface ApiKeyCacheOptions {
  ttlMs: number;
  negativeTtlMs: number;
  maxEntries: number;
  /** Bound of the negative cache (unknown keys): its own, so guessing cannot evict valid keys. */
  maxNegativeEntries?: number;
}

/** The only shape a key can have (spec 2.1): anything else is refused without a lookup. */
export const API_KEY_FORMAT = /^pk_(sandbox|live)_[0-9A-Za-z]{32}$/;
const MAX_KEY_LENGTH = 64;

/**
 * Short-lived cache of authenticated keys so the steady state costs no database read per request.
 * Entries are keyed by SHA-256 of the key (the plaintext is not kept), expire after `ttlMs`, and are
 * evicted at once when the webhooks service announces a change to the key on NATS. Concurrent misses
 * for the same key share one lookup.
 *
 * Two races are closed: a change announced while a lookup is in flight discards that lookup's answer
 * (every eviction bumps a generation; a lookup that started before the last eviction of its key is
 * not cached and is asked again), and a key that was unknown or disabled is kept in a separate, small
 * negative cache that any status change clears, so a re-enabled key works as soon as the event lands.
 */
export class ApiKeyCache {
  private readonly entries: TtlCache<string, ApiKeyPrincipal>;
  private readonly negative: TtlCache<string, true>;
  /** keyId → cache key, to evict by key id when a key changes (bounded like the cache). */
  private readonly byKeyId = new Map<string, string>();
  /** keyId → generation of its last eviction (bounded like the cache). */
  private readonly evictedAt = new Map<string, number>();
  private generation = 0;
  private readonly lookups: Counter<'result'>;

  constructor(
    private readonly options: ApiKeyCacheOptions,
    private readonly lookup: (apiKey: string) => Promise<ApiKeyPrincipal>,
    metrics: PlatformMetrics,
    now: () => number = Date.now,
  ) {
    this.entries = new TtlCache(options.maxEntries, now);
    this.negative = new TtlCache(options.maxNegativeEntries ?? 10_000, now);
    this.lookups = new Counter({
      name: 'ppay_gateway_apikey_cache_lookups_total',
      help: 'API key authentications by cache result (hit, miss, negative_hit, malformed)',
      labelNames: ['result'],
      registers: [metrics.registry],
    });
  }

  async authenticate(apiKey: string): Promise<ApiKeyPrincipal> {
    if (apiKey.length > MAX_KEY_LENGTH || !API_KEY_FORMAT.test(apiKey)) {
      this.lookups.inc({ result: 'malformed' });
      throw new PlatformError('INVALID_API_KEY');
    }
    const cacheKey = createHash('sha256').update(apiKey).digest('base64url');
    const hit = this.entries.peek(cacheKey);
    if (hit) {
      this.lookups.inc({ result: 'hit' });
      return hit.value;
    }
    if (this.negative.peek(cacheKey)) {
      this.lookups.inc({ result: 'negative_hit' });
      throw new PlatformError('INVALID_API_KEY');
    }
    this.lookups.inc({ result: 'miss' });
    const principal = await this.entries.getOrLoad(
      cacheKey,
      () => this.resolve(apiKey, cacheKey),
      () => this.options.ttlMs,
    );
    if (!principal) throw new PlatformError('INVALID_API_KEY');
    return principal;
  }

  /** Called for every apikeys.* event: the next request re-reads the key. */
  evictKeyId(keyId: string): void {
    this.generation++;
    this.evictedAt.delete(keyId);
    this.evictedAt.set(keyId, this.generation);
    if (this.evictedAt.size > this.options.maxEntries) this.evictedAt.delete(this.evictedAt.keys().next().value!);
    const cacheKey = this.byKeyId.get(keyId);
    if (cacheKey) this.entries.delete(cacheKey);
    this.byKeyId.delete(keyId);
    // A disabled key that comes back was cached as unknown under a hash we cannot map to its id.
    this.negative.clear();
  }

  /** After a gap in the change feed nothing cached can be trusted. */
  clear(): void {
    this.generation++;
    this.entries.clear();
    this.negative.clear();
    this.byKeyId.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Entries of the key-id index (bounded by maxEntries like the cache itself). */
  get indexSize(): number {
    return this.byKeyId.size;
  }

  private async resolve(apiKey: string, cacheKey: string): Promise<ApiKeyPrincipal> {
    for (let attempt = 0; ; attempt++) {
      const started = this.generation;
      let principal: ApiKeyPrincipal;
      try {
        principal = await this.lookup(apiKey);
      } catch (err) {
        const invalid =
          (err instanceof RemoteCallError && err.errorCode === 'INVALID_API_KEY') ||
          (err instanceof PlatformError && err.code === 'INVALID_API_KEY');
        if (!invalid) throw err; // webhooks unavailable: not the partner's fault, nothing cached
        this.negative.set(cacheKey, true, this.options.negativeTtlMs);
        throw new PlatformError('INVALID_API_KEY');
      }
      const changed = (this.evictedAt.get(principal.keyId) ?? 0) > started;
      if (!changed) {
        this.byKeyId.delete(principal.keyId);
        this.byKeyId.set(principal.keyId, cacheKey);
        // Bounded like the cache: an index entry whose cache entry is gone only costs a no-op eviction.
        if (this.byKeyId.size > this.options.maxEntries) this.byKeyId.delete(this.byKeyId.keys().next().value!);
        return principal;
      }
      // The key changed while we were asking: the answer may be stale. Ask once more, then refuse to cache.
      if (attempt === 1) throw new PlatformError('SERVICE_UNAVAILABLE', undefined, { detail: 'API key changing' });
    }
  }
}
