import { TtlCache, type Mode, type SecretBox } from '@ppay/kernel';
import type { ApiKeyRecord } from '../api-keys/api-key';
import type { ApiKeyRepository, DeliveryKey, DeliveryKeys } from '../ports';
import { signingSecrets } from './signing';

/**
 * API keys as the fan-out and the delivery worker need them, secrets opened in memory only. Reads are
 * cached for `ttlMs` (1 s), so a burst to one merchant costs one read and one decryption, and every
 * cached read is dropped as soon as any key changes (`keysChanged`: at once on the replica that wrote
 * the change, and on every replica when the change's event is published). The TTL bounds how stale
 * a replica can be if that event is late.
 */
export class RepositoryDeliveryKeys implements DeliveryKeys {
  private readonly cache: TtlCache<string, DeliveryKey | null>;
  private readonly receiverCache = new TtlCache<string, DeliveryKey[]>(10_000);
  /** Bumped by `keysChanged`: part of every cache key, so a read that started before a change is never reused after it. */
  private generation = 0;

  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly box: SecretBox,
    private readonly ttlMs = 1_000,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.cache = new TtlCache(10_000);
  }

  receivers(merchantId: number, mode: Mode): Promise<DeliveryKey[]> {
    return this.receiverCache.getOrLoad(
      `${this.generation}:${merchantId}:${mode}`,
      async () =>
        (await this.repo.listUnrevoked(merchantId))
          .filter((k) => k.status === 'active' && k.mode === mode && k.webhook_url)
          .map((k) => this.toDeliveryKey(k)),
      () => this.ttlMs,
    );
  }

  get(keyId: string): Promise<DeliveryKey | null> {
    return this.cache.getOrLoad(
      `${this.generation}:${keyId}`,
      async () => {
        const record = await this.repo.findById(keyId);
        return record ? this.toDeliveryKey(record) : null;
      },
      () => this.ttlMs,
    );
  }

  /** Some key was created or changed (status, URL, version, secret): forget every cached read. */
  keysChanged(): void {
    this.generation++;
    this.cache.clear();
    this.receiverCache.clear();
  }

  private toDeliveryKey(k: ApiKeyRecord): DeliveryKey {
    const previous = k.previous_webhook_secret
      ? { secret: this.box.open(k.previous_webhook_secret.secret), rotated_at: k.previous_webhook_secret.rotated_at }
      : null;
    return {
      key_id: k.id,
      merchant_id: k.merchant_id,
      mode: k.mode,
      active: k.status === 'active',
      webhook_url: k.webhook_url,
      api_version: k.api_version,
      // Decided per read: the 24 h overlap ends at most one cache TTL late.
      secrets: signingSecrets(this.box.open(k.webhook_secret), previous, this.now()),
    };
  }
}
