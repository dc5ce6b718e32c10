import { createHash } from 'node:crypto';
import { Counter } from 'prom-client';
import { PlatformError, RemoteCallError, TtlCache, type Mode, type PlatformMetrics } from '@ppay/kernel';

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
}

/**
 * Short-lived cache of authenticated keys so the steady state costs no database read per request.
 * Entries are keyed by SHA-256 of the key (the plaintext is not kept), expire after `ttlMs`, and are
 * evicted at once when the webhooks service announces a change to the key on NATS. Concurrent misses
 * for the same key share one lookup.
 */
export class ApiKeyCache {
  /** null = known-bad key (negative entry). */
  private readonly entries: TtlCache<string, ApiKeyPrincipal | null>;
  private readonly byKeyId = new Map<string, string>();
  private readonly lookups: Counter<'result'>;

  constructor(
    private readonly options: ApiKeyCacheOptions,
    private readonly lookup: (apiKey: string) => Promise<ApiKeyPrincipal>,
    metrics: PlatformMetrics,
    now: () => number = Date.now,
  ) {
    this.entries = new TtlCache(options.maxEntries, now);
    this.lookups = new Counter({
      name: 'ppay_gateway_apikey_cache_lookups_total',
      help: 'API key authentications by cache result (hit, miss, negative_hit)',
      labelNames: ['result'],
      registers: [metrics.registry],
    });
  }

  async authenticate(apiKey: string): Promise<ApiKeyPrincipal> {
    const cacheKey = createHash('sha256').update(apiKey).digest('base64url');
    const hit = this.entries.peek(cacheKey);
    this.lookups.inc({ result: hit ? (hit.value ? 'hit' : 'negative_hit') : 'miss' });
    const principal = hit
      ? hit.value
      : await this.entries.getOrLoad(
          cacheKey,
          () => this.resolve(apiKey),
          (p) => (p ? this.options.ttlMs : this.options.negativeTtlMs),
        );
    if (!principal) throw new PlatformError('INVALID_API_KEY');
    if (!hit) this.byKeyId.set(principal.keyId, cacheKey);
    return principal;
  }

  /** Called for every apikeys.* event: the next request re-reads the key. */
  evictKeyId(keyId: string): void {
    const cacheKey = this.byKeyId.get(keyId);
    if (cacheKey) this.entries.delete(cacheKey);
    this.byKeyId.delete(keyId);
  }

  get size(): number {
    return this.entries.size;
  }

  private async resolve(apiKey: string): Promise<ApiKeyPrincipal | null> {
    try {
      return await this.lookup(apiKey);
    } catch (err) {
      const invalid =
        (err instanceof RemoteCallError && err.errorCode === 'INVALID_API_KEY') ||
        (err instanceof PlatformError && err.code === 'INVALID_API_KEY');
      if (!invalid) throw err; // webhooks unavailable: not the partner's fault, nothing cached
      return null;
    }
  }
}
