import {
  isMinorUnitAmount,
  money,
  normaliseCountry,
  normaliseCurrency,
  PlatformError,
  prefixedId,
  withinTolerance,
  type ErrorCode,
  type Mode,
} from '@ppay/kernel';
import { feeBreakdown, type FeeBreakdown, type FeeSchedule } from './fees';
import { GATEWAY_IDS, gatewayGroupFor, type GatewayGroup } from './routing';
import type { FxConverter, GatewayAuthorization, GatewayRegistry, MerchantDirectory, SplitResolver } from './ports';

export type MetadataValue = string | number | boolean;

/** A charge request after the gateway resolved aliases (spec 4.1); presence still matters. */
export interface ChargeRequest {
  amount?: number;
  currency?: string;
  total_amount?: number;
  total_currency?: string;
  converted_total_amount?: number;
  converted_total_currency?: string;
  description?: string;
  reference?: string;
  callback_url?: string;
  customer?: { email?: string; first_name?: string; last_name?: string; country?: string };
  metadata?: Record<string, MetadataValue>;
  preview?: boolean;
  sub_merchant_id?: number;
}

export interface ConversionDetails {
  original_amount: number;
  original_currency: string;
  converted_amount: number;
  converted_currency: string;
  exchange_rate: number;
  source: string;
  surcharge_percent: number;
}

export interface ChargeRecord {
  id: string;
  transaction_id: string;
  merchant_id: number;
  mode: Mode;
  reference: string | null;
  status: 'initializing' | 'pending' | 'succeeded' | 'failed';
  gateway_group: GatewayGroup;
  payment_gateway: string;
  amount: number;
  currency: string;
  total_amount: number;
  total_currency: string;
  conversion: ConversionDetails | null;
  fee: FeeBreakdown;
  customer: { email: string; first_name: string; last_name: string; country: string };
  metadata: Record<string, MetadataValue>;
  description: string;
  callback_url: string;
  sub_merchant_id: number | null;
  split: { commission_rate: string; commission_source: string } | null;
  gateway: GatewayAuthorization | null;
  failure_reason?: string | null;
  completed_at?: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ChargePreview {
  preview: true;
  payment_gateway: string;
  mode: Mode;
  is_international: boolean;
  business_country: string;
  customer_country: string;
  customer: {
    currency: string;
    base_amount: number;
    transaction_fee: number;
    total_charged: number;
    pays_fees: boolean;
  };
  business: { currency: string; priced_amount: number };
  conversion: ConversionDetails | null;
}

export interface ChargeRepository {
  /** Inserts the charge; when its reference is taken returns the charge that holds it instead. */
  insertOrGetByReference(charge: ChargeRecord): Promise<{ charge: ChargeRecord; created: boolean }>;
  findByReference(merchantId: number, mode: Mode, reference: string): Promise<ChargeRecord | null>;
  /** Sets the gateway authorization on an initializing charge (status → pending). */
  markInitialised(id: string, gateway: GatewayAuthorization): Promise<ChargeRecord>;
  markFailed(id: string, reason: string): Promise<void>;
}

export type ChargeOutcome =
  { kind: 'preview'; preview: ChargePreview } | { kind: 'charge'; charge: ChargeRecord; replayed: boolean };

const INFRASTRUCTURE_CODES = new Set<ErrorCode>(['INTERNAL', 'SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT']);

/** Unknown or missing countries are reported as "Unknown" in geography analytics (spec 4.1). */
export const UNKNOWN_COUNTRY = 'Unknown';

export interface ChargeServiceOptions {
  feeSchedule: FeeSchedule;
  /** Allowed difference between the partner's and the server's conversion, as a fraction (spec 8: 1%). */
  tolerance: string;
}

/** Spec 4.1: one-time charges, their preview, and the validation of section 7.1. */
export class ChargeService {
  constructor(
    private readonly deps: {
      merchants: MerchantDirectory;
      fx: FxConverter;
      splits: SplitResolver;
      gateways: GatewayRegistry;
      charges: ChargeRepository;
    },
    private readonly options: ChargeServiceOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(merchantId: number, mode: Mode, request: ChargeRequest): Promise<ChargeOutcome> {
    const input = this.validateShape(request);
    const reference = request.reference?.trim() || null;
    if (reference && !request.preview) {
      const existing = await this.deps.charges.findByReference(merchantId, mode, reference);
      if (existing) return { kind: 'charge', charge: existing, replayed: true };
    }
    const merchant = await this.deps.merchants.get(merchantId);
    const group = gatewayGroupFor(input.currency);
    const conversion = await this.checkAmounts(input, mode);
    const split = request.sub_merchant_id ? await this.checkSubMerchant(merchantId, request.sub_merchant_id) : null;
    const fee = feeBreakdown(
      this.options.feeSchedule,
      group,
      money(input.amount, input.currency),
      merchant.customer_pays_fees,
    );
    const customerCountry = normaliseCountry(request.customer?.country) ?? UNKNOWN_COUNTRY;

    if (request.preview) {
      return {
        kind: 'preview',
        preview: {
          preview: true,
          payment_gateway: GATEWAY_IDS[group],
          mode,
          is_international: customerCountry !== UNKNOWN_COUNTRY && customerCountry !== merchant.country,
          business_country: merchant.country,
          customer_country: customerCountry,
          customer: {
            currency: input.currency,
            base_amount: fee.base_amount,
            transaction_fee: fee.transaction_fee,
            total_charged: fee.total_amount,
            pays_fees: fee.customer_pays_fees,
          },
          business: { currency: input.totalCurrency, priced_amount: input.totalAmount },
          conversion,
        },
      };
    }

    const adapter = this.deps.gateways.adapterFor(group, mode);
    const now = this.now();
    const record: ChargeRecord = {
      id: prefixedId('ch'),
      transaction_id: prefixedId('txn'),
      merchant_id: merchantId,
      mode,
      reference,
      status: 'initializing',
      gateway_group: group,
      payment_gateway: adapter.id,
      amount: input.amount,
      currency: input.currency,
      total_amount: input.totalAmount,
      total_currency: input.totalCurrency,
      conversion,
      fee,
      customer: {
        email: input.email,
        first_name: request.customer?.first_name ?? '',
        last_name: request.customer?.last_name ?? '',
        country: customerCountry,
      },
      metadata: request.metadata ?? {},
      description: request.description ?? '',
      callback_url: request.callback_url ?? '',
      sub_merchant_id: request.sub_merchant_id ?? null,
      split: split ? { commission_rate: split.commission_rate, commission_source: split.commission_source } : null,
      gateway: null,
      created_at: now,
      updated_at: now,
    };
    // Claim the reference first, so two concurrent identical charges produce one charge.
    const claimed = await this.deps.charges.insertOrGetByReference(record);
    if (!claimed.created) return { kind: 'charge', charge: claimed.charge, replayed: true };
    try {
      const authorization = await adapter.initialise({
        charge_id: record.id,
        merchant_id: merchantId,
        mode,
        amount: money(fee.total_amount, input.currency),
        customer_email: input.email,
        description: record.description,
        callback_url: record.callback_url,
      });
      return {
        kind: 'charge',
        charge: await this.deps.charges.markInitialised(record.id, authorization),
        replayed: false,
      };
    } catch (err) {
      await this.deps.charges.markFailed(record.id, 'gateway_unavailable');
      throw err;
    }
  }

  /** Presence and type rules of spec 7.1, in the order a partner would fix them. */
  private validateShape(r: ChargeRequest) {
    if (r.amount === undefined || r.amount === null)
      throw new PlatformError('AMOUNT_REQUIRED', undefined, { param: 'amount' });
    const currency = r.currency?.trim() ? normaliseCurrency(r.currency) : undefined;
    const email = r.customer?.email?.trim();
    if (!r.currency?.trim() || !email) {
      throw new PlatformError('MISSING_REQUIRED_FIELDS', undefined, {
        param: !r.currency?.trim() ? 'currency' : 'customer.email',
        detail: 'amount, currency and customer.email are required',
      });
    }
    if (!currency)
      throw new PlatformError('UNSUPPORTED_CURRENCY', `Unknown currency ${r.currency}`, { param: 'currency' });
    if (r.total_amount === undefined || r.total_amount === null || !r.total_currency?.trim()) {
      throw new PlatformError('TOTAL_REQUIRED', undefined, {
        param: r.total_amount === undefined || r.total_amount === null ? 'total_amount' : 'total_currency',
        detail: 'total_amount and total_currency (or original_product_amount / original_product_currency) are required',
      });
    }
    const totalCurrency = normaliseCurrency(r.total_currency);
    if (!totalCurrency) {
      throw new PlatformError('UNSUPPORTED_CURRENCY', `Unknown currency ${r.total_currency}`, {
        param: 'total_currency',
      });
    }
    for (const [param, value] of [
      ['amount', r.amount],
      ['total_amount', r.total_amount],
    ] as const) {
      if (!isMinorUnitAmount(value) || value <= 0) {
        throw new PlatformError(
          'VALIDATION_FAILED',
          `${param} must be a positive integer in the currency's smallest unit`,
          {
            param,
          },
        );
      }
    }
    const hasConvertedAmount = r.converted_total_amount !== undefined && r.converted_total_amount !== null;
    const hasConvertedCurrency = Boolean(r.converted_total_currency?.trim());
    if (hasConvertedAmount !== hasConvertedCurrency) {
      throw new PlatformError('CONVERTED_PAIR_INCOMPLETE', undefined, {
        param: hasConvertedAmount ? 'converted_total_currency' : 'converted_total_amount',
      });
    }
    if (hasConvertedCurrency && normaliseCurrency(r.converted_total_currency) !== currency) {
      throw new PlatformError('CONVERTED_CURRENCY_MISMATCH', undefined, { param: 'converted_total_currency' });
    }
    return {
      amount: r.amount,
      currency,
      totalAmount: r.total_amount,
      totalCurrency,
      convertedAmount: hasConvertedAmount ? r.converted_total_amount : undefined,
      email,
    };
  }

  /**
   * Without conversion `amount` must equal `total_amount`. With conversion the service converts
   * `total_amount` itself and `amount` (and `converted_total_amount` when sent) must be within the
   * tolerance of that figure (spec 4.1, 8).
   */
  private async checkAmounts(
    input: ReturnType<ChargeService['validateShape']>,
    mode: Mode,
  ): Promise<ConversionDetails | null> {
    if (input.currency === input.totalCurrency) {
      if (input.amount !== input.totalAmount) {
        throw new PlatformError('AMOUNT_MISMATCH', undefined, {
          param: 'amount',
          detail: `without conversion amount must equal total_amount (${input.totalAmount})`,
        });
      }
      return null;
    }
    const quote = await this.deps.fx.convert(money(input.totalAmount, input.totalCurrency), input.currency, mode);
    const expected = quote.result.amount;
    if (
      input.convertedAmount !== undefined &&
      !withinTolerance(input.convertedAmount, input.amount, this.options.tolerance)
    ) {
      throw new PlatformError('CONVERTED_AMOUNT_MISMATCH', undefined, { param: 'converted_total_amount' });
    }
    if (!withinTolerance(input.amount, expected, this.options.tolerance)) {
      throw new PlatformError('AMOUNT_MISMATCH', undefined, {
        param: 'amount',
        detail: `expected about ${expected} ${input.currency} for ${input.totalAmount} ${input.totalCurrency}`,
      });
    }
    return {
      original_amount: input.totalAmount,
      original_currency: input.totalCurrency,
      converted_amount: expected,
      converted_currency: input.currency,
      exchange_rate: quote.rate,
      source: quote.source,
      surcharge_percent: quote.surcharge_percent,
    };
  }

  private async checkSubMerchant(operatorId: number, subMerchantId: number) {
    const terms = await this.deps.splits.resolve(operatorId, subMerchantId).catch((err: unknown) => {
      // An outage of marketplace is ours to report (5xx), not the partner's mistake.
      if (!(err instanceof PlatformError) || INFRASTRUCTURE_CODES.has(err.code)) throw err;
      throw new PlatformError('SUB_MERCHANT_NOT_ACTIVE', undefined, { param: 'sub_merchant_id', cause: err });
    });
    if (!terms.active) throw new PlatformError('SUB_MERCHANT_NOT_ACTIVE', undefined, { param: 'sub_merchant_id' });
    return terms;
  }
}
