import {
  isCountryCode,
  normaliseCurrency,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
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

export class MerchantService {
  constructor(
    private readonly repo: MerchantRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

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
    return record;
  }

  async get(id: number): Promise<MerchantRecord> {
    const merchant = await this.repo.findById(id);
    if (!merchant) throw new PlatformError('MERCHANT_NOT_FOUND');
    return merchant;
  }
}
