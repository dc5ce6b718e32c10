import { TtlCache, type Mode, type SecretBox } from '@ppay/kernel';
import type { ApiKeyRecord, ApiKeyRepository } from '../domain/api-keys';
import type { DeliveryKey, DeliveryKeys } from '../domain/ports';
import { signingSecrets } from '../domain/signing';

/**
 * API keys as the delivery worker needs them, secrets opened in memory only. A key read for a send
 * is cached for `ttlMs` (1 s): a burst to one receiver costs one read and one decryption, and a
 * disabled key or a new URL takes effect within a second.
 */
export class RepositoryDeliveryKeys implements DeliveryKeys {
  private readonly cache: TtlCache<string, DeliveryKey | null>;

  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly box: SecretBox,
    private readonly ttlMs = 1_000,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.cache = new TtlCache(10_000);
  }

  async receivers(merchantId: number, mode: Mode): Promise<DeliveryKey[]> {
    // Never cached: whether a key exists and is enabled decides whether a delivery is created at all.
    const keys = await this.repo.listByMerchant(merchantId);
    return keys
      .filter((k) => k.status === 'active' && k.mode === mode && k.webhook_url)
      .map((k) => this.toDeliveryKey(k));
  }

  async get(keyId: string): Promise<DeliveryKey | null> {
    const hit = this.cache.peek(keyId);
    if (hit) return hit.value;
    const record = await this.repo.findById(keyId);
    const key = record ? this.toDeliveryKey(record) : null;
    this.cache.set(keyId, key, this.ttlMs);
    return key;
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
