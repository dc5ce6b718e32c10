import {
  isCountryCode,
  normaliseCurrency,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  TtlCache,
  type Mode,
  type OutboxEntry,
} from '@ppay/kernel';
import {
  marketplaceIn,
  type AccountSettingsPatch,
  type CreateMerchantInput,
  type MarketplaceMembership,
  type MarketplaceSettings,
  type MerchantRecord,
} from './merchant';
import type { MerchantRepository } from './ports';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface MerchantServiceOptions {
  /** How long a merchant read may be served from memory; every write through this service refreshes it. */
  cacheTtlMs: number;
  cacheMaxEntries: number;
}

/**
 * Merchant records (the business, its account settings, and the marketplace fields kept on it) with a
 * read cache: every write through this service refreshes or drops the cached record.
 */
export class MerchantService {
  private readonly cache: TtlCache<number, MerchantRecord>;

  constructor(
    private readonly repo: MerchantRepository,
    private readonly options: MerchantServiceOptions = { cacheTtlMs: 30_000, cacheMaxEntries: 10_000 },
    private readonly now: () => Date = () => new Date(),
  ) {
    this.cache = new TtlCache(options.cacheMaxEntries);
  }

  async create(input: CreateMerchantInput): Promise<MerchantRecord> {
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email))
      throw new PlatformError('VALIDATION_FAILED', 'email is not a valid e-mail address', { param: 'email' });
    const country = input.country.trim().toUpperCase();
    if (!isCountryCode(country)) {
      throw new PlatformError('VALIDATION_FAILED', 'country must be an ISO 3166-1 alpha-2 code', { param: 'country' });
    }
    const currency = normaliseCurrency(input.baseline_currency);
    if (!currency) {
      throw new PlatformError('VALIDATION_FAILED', 'baseline_currency must be an ISO 4217 code', {
        param: 'baseline_currency',
      });
    }
    const record: MerchantRecord = {
      id: await this.repo.nextId(),
      email,
      business_name: input.business_name?.trim() || email.split('@')[0]!,
      country,
      baseline_currency: currency,
      is_marketplace_operator: input.is_marketplace_operator ?? false,
      owner_user_id: input.owner_user_id || prefixedId('usr'),
      customer_pays_fees: false,
      settings_version: 0,
      settings_updated_at: null,
      created_at: this.now(),
      created_by_marketplace_id: input.created_by_marketplace_id ?? null,
    };
    const event = outboxEvent(
      SUBJECTS.merchantCreated,
      {
        merchant_id: record.id,
        country: record.country,
        baseline_currency: record.baseline_currency,
        is_marketplace_operator: record.is_marketplace_operator,
        marketplace_id: null,
        business_name: record.business_name,
        customer_pays_fees: record.customer_pays_fees,
      },
      { merchantId: record.id },
    );
    await this.repo.insert(record, event);
    this.cache.set(record.id, record, this.options.cacheTtlMs);
    return record;
  }

  /** Hot path of every GET /account: served from memory at steady state. */
  async get(id: number): Promise<MerchantRecord> {
    const merchant = await this.cache.getOrLoad(
      id,
      async () => {
        const found = await this.repo.findById(id);
        if (!found) throw new PlatformError('MERCHANT_NOT_FOUND');
        return found;
      },
      () => this.options.cacheTtlMs,
    );
    return merchant;
  }

  /** A read that bypasses the cache (marketplace settings must not be 30 s stale across replicas). */
  async fresh(id: number): Promise<MerchantRecord> {
    const found = await this.repo.findById(id);
    if (!found) {
      this.cache.delete(id);
      throw new PlatformError('MERCHANT_NOT_FOUND');
    }
    this.cache.set(id, found, this.options.cacheTtlMs);
    return found;
  }

  /** The caller must be a marketplace operator (spec 4.9, 5.5); a fresh read, as for every marketplace call. */
  async requireOperator(operatorId: number): Promise<MerchantRecord> {
    const operator = await this.freshOrNull(operatorId);
    if (!operator?.is_marketplace_operator) throw new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
    return operator;
  }

  /** An operator whose marketplace is set up in `mode`. */
  async requireMarketplace(operatorId: number, mode: Mode): Promise<MerchantRecord> {
    const operator = await this.requireOperator(operatorId);
    if (!marketplaceIn(operator, mode)) throw new PlatformError('MARKETPLACE_NOT_SET_UP');
    return operator;
  }

  /** The business's record, or null when it is gone (the callers that tolerate a deleted business). */
  async freshOrNull(id: number): Promise<MerchantRecord | null> {
    return this.fresh(id).catch((err: unknown) => {
      if (err instanceof PlatformError && err.code === 'MERCHANT_NOT_FOUND') return null;
      throw err;
    });
  }

  findByEmail(email: string): Promise<MerchantRecord | null> {
    return this.repo.findByEmail(email.trim().toLowerCase());
  }

  /** Several merchants (list pages), one query. */
  async manyOf(ids: number[]): Promise<Map<number, MerchantRecord>> {
    if (!ids.length) return new Map();
    return new Map((await this.repo.findByIds([...new Set(ids)])).map((m) => [m.id, m]));
  }

  async setMarketplace(
    id: number,
    mode: Mode,
    settings: MarketplaceSettings,
    event: OutboxEntry,
  ): Promise<MerchantRecord> {
    const updated = await this.repo.setMarketplace(id, mode, settings, event);
    if (!updated) throw new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
    this.cache.set(id, updated, this.options.cacheTtlMs);
    return updated;
  }

  /**
   * Changes business settings and publishes merchants.settings_updated (payments applies them to
   * new charges and sessions). Unchanged values write nothing and publish nothing.
   */
  async updateSettings(id: number, patch: AccountSettingsPatch): Promise<MerchantRecord> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.fresh(id);
      const next = { customer_pays_fees: patch.customer_pays_fees ?? current.customer_pays_fees };
      if (next.customer_pays_fees === current.customer_pays_fees) return current;
      const version = current.settings_version + 1;
      const event = outboxEvent(
        SUBJECTS.merchantSettingsUpdated,
        { merchant_id: id, customer_pays_fees: next.customer_pays_fees, settings_version: version },
        { merchantId: id },
      );
      const updated = await this.repo.updateSettings(
        id,
        current.settings_version,
        { ...next, updated_at: this.now() },
        event,
      );
      if (updated) {
        this.cache.set(id, updated, this.options.cacheTtlMs);
        return updated;
      }
    }
    throw new PlatformError('CONFLICT', 'The settings were changed by another request at the same time; retry');
  }

  async syncMembership(id: number, mode: Mode, membership: MarketplaceMembership): Promise<boolean> {
    const written = await this.repo.syncMembership(id, mode, membership);
    this.cache.delete(id);
    return written;
  }

  /** Spec 3.5 delete: "clear marketplace references" of one mode on the business record. */
  async clearMembership(id: number, mode: Mode): Promise<void> {
    await this.repo.clearMembership(id, mode);
    this.cache.delete(id);
  }

  /** Drops a merchant from this replica's read cache (deleted, or written by another repository). */
  forget(id: number): void {
    this.cache.delete(id);
  }
}
