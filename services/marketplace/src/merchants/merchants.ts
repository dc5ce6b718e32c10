import {
  isCountryCode,
  normaliseCurrency,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  TtlCache,
  type KycStatusName,
  type Mode,
  type OutboxEntry,
} from '@ppay/kernel';

/** Marketplace settings of an operator (spec 4.9 setup), kept on its own merchant document. */
export interface MarketplaceSettings {
  name: string;
  /** Decimal string (0.0800 = 8%); null = no default, commission falls back to 0. */
  default_commission_rate: string | null;
  status: 'active';
  created_at: Date;
  updated_at: Date;
}

/**
 * The sub-merchant side of a relationship in one mode, cached on the merchant document (spec 3.5).
 * Derived from the relationship document, the source of truth; `relationship_id`/`version` order
 * updates.
 */
export interface MarketplaceMembership {
  marketplace_id: number | null;
  marketplace_commission_rate: string | null;
  relationship_id: number;
  version: number;
}

/**
 * Whether a sub-merchant can be paid out in one mode, as marketplace last heard from kyc (kyc.* events).
 * kyc owns the KYC case and the payout account; this is marketplace's record of the outcome, so payout
 * operations can refuse an ineligible sub-merchant without asking kyc. `version` is the KYC case
 * version: an older event never overwrites a newer one.
 */
export interface PayoutEligibility {
  kyc_status: KycStatusName;
  payouts_enabled: boolean;
  settlement_currency: string;
  submission_id: number;
  version: number;
  updated_at: Date;
}

export type PayoutEligibilityByMode = Partial<Record<Mode, PayoutEligibility>>;

export interface MerchantRecord {
  id: number;
  email: string;
  business_name: string;
  country: string;
  baseline_currency: string;
  is_marketplace_operator: boolean;
  owner_user_id: string;
  /**
   * Per mode: the operator's business id and commission while this merchant is an active
   * sub-merchant there (spec 3.5 clears them). Absent for a mode it never joined.
   */
  membership?: Partial<Record<Mode, MarketplaceMembership>> | null;
  /** Business setting (both modes): the customer pays the transaction fee on top of the price. */
  customer_pays_fees: boolean;
  /** Grows with every settings change; orders merchants.settings_updated events for consumers. */
  settings_version: number;
  settings_updated_at: Date | null;
  created_at: Date;
  /** Per mode, set once the operator has called POST /marketplace/setup with a key of that mode. */
  marketplaces?: Partial<Record<Mode, MarketplaceSettings>> | null;
  /** Operator whose create-or-link call created this business (lets a retried create recover). */
  created_by_marketplace_id?: number | null;
  /** Per mode; absent until kyc publishes about this merchant. */
  payout_eligibility?: PayoutEligibilityByMode | null;
}

export interface MerchantRepository {
  nextId(): Promise<number>;
  /** ALREADY_EXISTS when the e-mail is taken. */
  insert(record: MerchantRecord, event: OutboxEntry): Promise<void>;
  findById(id: number): Promise<MerchantRecord | null>;
  findByEmail(email: string): Promise<MerchantRecord | null>;
  findByIds(ids: number[]): Promise<MerchantRecord[]>;
  /** Sets an operator's marketplace settings of one mode with their event; null when not an operator. */
  setMarketplace(
    id: number,
    mode: Mode,
    settings: MarketplaceSettings,
    event: OutboxEntry,
  ): Promise<MerchantRecord | null>;
  /**
   * Writes one mode's cached membership unless the document already reflects the same or a later
   * relationship version (so replays and out-of-order syncs never go backwards). True if written.
   */
  syncMembership(id: number, mode: Mode, membership: MarketplaceMembership): Promise<boolean>;
  /** Delete merchant: drops one mode's cached membership and payout eligibility (idempotent). */
  clearMembership(id: number, mode: Mode): Promise<void>;
  /** Writes one mode's payout eligibility unless the document holds the same or a newer version. */
  recordPayoutEligibility(id: number, mode: Mode, eligibility: PayoutEligibility): Promise<boolean>;
  /**
   * Writes new settings and their event if the document is still at `expectedVersion`
   * (optimistic concurrency); null when someone else changed the settings first.
   */
  updateSettings(
    id: number,
    expectedVersion: number,
    settings: AccountSettingsPatch & { updated_at: Date },
    event: OutboxEntry,
  ): Promise<MerchantRecord | null>;
}

/** The settings a merchant may change; an absent field is left as it is. */
export interface AccountSettingsPatch {
  customer_pays_fees?: boolean;
}

export interface CreateMerchantInput {
  email: string;
  business_name?: string;
  country: string;
  baseline_currency: string;
  is_marketplace_operator?: boolean;
  owner_user_id?: string;
  created_by_marketplace_id?: number;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface MerchantServiceOptions {
  /** How long a merchant read may be served from memory; every write through this service refreshes it. */
  cacheTtlMs: number;
  cacheMaxEntries: number;
}

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

  /** Drops a deleted merchant from this replica's read cache. */
  forget(id: number): void {
    this.cache.delete(id);
  }

  async recordPayoutEligibility(id: number, mode: Mode, eligibility: PayoutEligibility): Promise<boolean> {
    const written = await this.repo.recordPayoutEligibility(id, mode, eligibility);
    this.cache.delete(id);
    return written;
  }
}

/** An operator's marketplace in one mode (sandbox and live are set up separately). */
export function marketplaceIn(m: MerchantRecord, mode: Mode): MarketplaceSettings | null {
  return m.marketplaces?.[mode] ?? null;
}

/** The Merchant message (CLI bootstrap): marketplace membership as seen in `mode`. */
export function merchantResource(m: MerchantRecord, mode: Mode) {
  const membership = m.membership?.[mode];
  return {
    ...m,
    marketplace_id: membership?.marketplace_id ?? null,
    marketplace_commission_rate: membership?.marketplace_commission_rate ?? null,
  };
}

/** Spec 4.7 GET /account: the calling key's merchant, plus its mode and settings (additive fields). */
export function accountResource(m: MerchantRecord, mode: string | undefined) {
  return {
    merchant_id: m.id,
    baseline_currency: m.baseline_currency,
    mode: mode ?? '',
    is_marketplace_operator: m.is_marketplace_operator,
    customer_pays_fees: m.customer_pays_fees,
  };
}

/** GET/PATCH /account/settings; `updated_at` is null until the first change. */
export function settingsResource(m: MerchantRecord) {
  return {
    merchant_id: m.id,
    customer_pays_fees: m.customer_pays_fees,
    settings_version: m.settings_version,
    updated_at: m.settings_updated_at,
  };
}
