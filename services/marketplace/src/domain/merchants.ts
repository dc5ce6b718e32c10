import {
  isCountryCode,
  normaliseCurrency,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  TtlCache,
  type OutboxEntry,
} from '@ppay/kernel';

export interface MerchantRecord {
  id: number;
  email: string;
  business_name: string;
  country: string;
  baseline_currency: string;
  is_marketplace_operator: boolean;
  owner_user_id: string;
  /** Operator's business id while this merchant is an active sub-merchant (spec 3.5 clears it). */
  marketplace_id: number | null;
  marketplace_commission_rate: string | null;
  customer_pays_fees: boolean;
  created_at: Date;
}

export interface MerchantRepository {
  nextId(): Promise<number>;
  /** ALREADY_EXISTS when the e-mail is taken. */
  insert(record: MerchantRecord, event: OutboxEntry): Promise<void>;
  findById(id: number): Promise<MerchantRecord | null>;
}

export interface CreateMerchantInput {
  email: string;
  business_name?: string;
  country: string;
  baseline_currency: string;
  is_marketplace_operator?: boolean;
  owner_user_id?: string;
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
      marketplace_id: null,
      marketplace_commission_rate: null,
      customer_pays_fees: false,
      created_at: this.now(),
    };
    const event = outboxEvent(
      SUBJECTS.merchantCreated,
      {
        merchant_id: record.id,
        country: record.country,
        baseline_currency: record.baseline_currency,
        is_marketplace_operator: record.is_marketplace_operator,
        marketplace_id: record.marketplace_id,
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
}
