import { createHash } from 'node:crypto';
import { Counter } from 'prom-client';
import { PlatformError, RemoteCallError, type Mode, type PlatformMetrics } from '@ppay/kernel';

export interface ApiKeyPrincipal {
  keyId: string;
  merchantId: number;
  mode: Mode;
  apiVersion: string;
}

interface Entry {
  principal: ApiKeyPrincipal | null;
  expiresAt: number;
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
  private readonly entries = new Map<string, Entry>();
  private readonly byKeyId = new Map<string, string>();
  private readonly inFlight = new Map<string, Promise<ApiKeyPrincipal | null>>();
  private readonly lookups: Counter<'result'>;

  constructor(
    private readonly options: ApiKeyCacheOptions,
    private readonly lookup: (apiKey: string) => Promise<ApiKeyPrincipal>,
    metrics: PlatformMetrics,
    private readonly now: () => number = Date.now,
  ) {
    this.lookups = new Counter({
      name: 'ppay_gateway_apikey_cache_lookups_total',
      help: 'API key authentications by cache result (hit, miss, negative_hit)',
      labelNames: ['result'],
      registers: [metrics.registry],
    });
  }

  async authenticate(apiKey: string): Promise<ApiKeyPrincipal> {
    const cacheKey = createHash('sha256').update(apiKey).digest('base64url');
    const entry = this.entries.get(cacheKey);
    if (entry && entry.expiresAt > this.now()) {
      this.lookups.inc({ result: entry.principal ? 'hit' : 'negative_hit' });
      if (!entry.principal) throw new PlatformError('INVALID_API_KEY');
      return entry.principal;
    }
    this.lookups.inc({ result: 'miss' });
    let pending = this.inFlight.get(cacheKey);
    if (!pending) {
      pending = this.resolve(cacheKey, apiKey).finally(() => this.inFlight.delete(cacheKey));
      this.inFlight.set(cacheKey, pending);
    }
    const principal = await pending;
    if (!principal) throw new PlatformError('INVALID_API_KEY');
    return principal;
  }

  /** Called for every apikeys.* event: the next request re-reads the key. */
  evictKeyId(keyId: string): void {
    const cacheKey = this.byKeyId.get(keyId);
    if (cacheKey) this.entries.delete(cacheKey);
    this.byKeyId.delete(keyId);
  }

  clear(): void {
    this.entries.clear();
    this.byKeyId.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private async resolve(cacheKey: string, apiKey: string): Promise<ApiKeyPrincipal | null> {
    let principal: ApiKeyPrincipal | null;
    try {
      principal = await this.lookup(apiKey);
    } catch (err) {
      const invalid =
        (err instanceof RemoteCallError && err.errorCode === 'INVALID_API_KEY') ||
        (err instanceof PlatformError && err.code === 'INVALID_API_KEY');
      if (!invalid) throw err; // webhooks unavailable: not the partner's fault, nothing cached
      principal = null;
    }
    this.store(cacheKey, principal);
    return principal;
  }

  private store(cacheKey: string, principal: ApiKeyPrincipal | null): void {
    const ttl = principal ? this.options.ttlMs : this.options.negativeTtlMs;
    if (ttl <= 0) return;
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(cacheKey, { principal, expiresAt: this.now() + ttl });
    if (principal) this.byKeyId.set(principal.keyId, cacheKey);
  }
}
