import {
  money,
  normaliseCountry,
  normaliseCurrency,
  PlatformError,
  withinTolerance,
  type ErrorCode,
  type Mode,
} from '@ppay/kernel';
import {
  newCharge,
  previewConversion,
  UNKNOWN_COUNTRY,
  type ChargePreview,
  type ChargeRecord,
  type Conversion,
} from './charge';
import { feeBreakdown, type FeeSchedule } from './fees';
import { requirePaymentBasics, requirePositiveAmount, type PaymentRequestBasics } from './payment-request';
import type { ChargeRepository, FxConverter, MerchantDirectory, ProcessorRegistry, SplitResolver } from './ports';
import { PROCESSOR_IDS, processorGroupFor } from './processors';

/** A charge request after the gateway resolved aliases (spec 4.1); presence still matters. */
export interface ChargeRequest extends PaymentRequestBasics {
  total_amount?: number;
  total_currency?: string;
  converted_total_amount?: number;
  converted_total_currency?: string;
  description?: string;
  reference?: string;
  callback_url?: string;
  preview?: boolean;
  sub_merchant_id?: number;
}

export type ChargeOutcome =
  { kind: 'preview'; preview: ChargePreview } | { kind: 'charge'; charge: ChargeRecord; replayed: boolean };

const INFRASTRUCTURE_CODES = new Set<ErrorCode>(['INTERNAL', 'SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT']);

export interface ChargeServiceOptions {
  feeSchedule: FeeSchedule;
  /** Allowed difference between the partner's and the server's conversion, as a fraction (spec 8: 1%). */
  tolerance: string;
  /** How long a request that lost the race for a reference waits for the winner to initialise. */
  referenceWaitMs?: number;
}

type ValidCharge = ReturnType<typeof validateChargeShape>;

/** Presence and type rules of spec 7.1, in the order a partner would fix them (docs/decisions.md 18). */
function validateChargeShape(r: ChargeRequest) {
  const basics = requirePaymentBasics(r);
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
  requirePositiveAmount(basics.amount, 'amount');
  requirePositiveAmount(r.total_amount, 'total_amount');
  const hasConvertedAmount = r.converted_total_amount !== undefined && r.converted_total_amount !== null;
  const hasConvertedCurrency = Boolean(r.converted_total_currency?.trim());
  if (hasConvertedAmount !== hasConvertedCurrency) {
    throw new PlatformError('CONVERTED_PAIR_INCOMPLETE', undefined, {
      param: hasConvertedAmount ? 'converted_total_currency' : 'converted_total_amount',
    });
  }
  if (hasConvertedCurrency && normaliseCurrency(r.converted_total_currency) !== basics.currency) {
    throw new PlatformError('CONVERTED_CURRENCY_MISMATCH', undefined, { param: 'converted_total_currency' });
  }
  return {
    amount: money(basics.amount, basics.currency),
    total: money(r.total_amount, totalCurrency),
    convertedAmount: hasConvertedAmount ? r.converted_total_amount : undefined,
    email: basics.email,
  };
}

/** Spec 4.1: one-time charges, their preview, and the validation of section 7.1. */
export class ChargeService {
  constructor(
    private readonly deps: {
      merchants: MerchantDirectory;
      fx: FxConverter;
      splits: SplitResolver;
      processors: ProcessorRegistry;
      charges: ChargeRepository;
    },
    private readonly options: ChargeServiceOptions,
    private readonly now: () => Date = () => new Date(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  async create(merchantId: number, mode: Mode, request: ChargeRequest): Promise<ChargeOutcome> {
    const input = validateChargeShape(request);
    const reference = request.reference?.trim() || null;
    if (reference && !request.preview) {
      const existing = await this.deps.charges.findByReference(merchantId, mode, reference);
      if (existing) return { kind: 'charge', charge: await this.settled(existing), replayed: true };
    }
    const merchant = await this.deps.merchants.get(merchantId);
    const group = processorGroupFor(input.amount.currency);
    const conversion = await this.checkAmounts(input, mode);
    const split = request.sub_merchant_id ? await this.checkSubMerchant(merchantId, request.sub_merchant_id) : null;
    const fee = feeBreakdown(this.options.feeSchedule, group, input.amount, merchant.customer_pays_fees);
    const customerCountry = normaliseCountry(request.customer?.country) ?? UNKNOWN_COUNTRY;

    if (request.preview) {
      return {
        kind: 'preview',
        preview: {
          preview: true,
          payment_gateway: PROCESSOR_IDS[group],
          mode,
          is_international: customerCountry !== UNKNOWN_COUNTRY && customerCountry !== merchant.country,
          business_country: merchant.country,
          customer_country: customerCountry,
          customer: {
            currency: input.amount.currency,
            base_amount: fee.base_amount,
            transaction_fee: fee.transaction_fee,
            total_charged: fee.total_amount,
            pays_fees: fee.customer_pays_fees,
          },
          business: { currency: input.total.currency, priced_amount: input.total.amount },
          conversion: previewConversion(conversion),
        },
      };
    }

    const adapter = this.deps.processors.adapterFor(group, mode);
    const record = newCharge(
      {
        merchant_id: merchantId,
        mode,
        reference,
        status: 'initializing',
        processor_group: group,
        payment_gateway: adapter.id,
        amount: input.amount,
        total: input.total,
        conversion,
        fee_details: fee,
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
      },
      this.now(),
    );
    // Claim the reference first, so two concurrent identical charges produce one charge.
    const claimed = await this.deps.charges.insertOrGetByReference(record);
    if (!claimed.created) return { kind: 'charge', charge: await this.settled(claimed.charge), replayed: true };
    try {
      const authorization = await adapter.initialise({
        charge_id: record.charge_id,
        merchant_id: merchantId,
        mode,
        amount: money(fee.total_amount, input.amount.currency),
        customer_email: input.email,
        description: record.description,
        callback_url: record.callback_url,
      });
      return {
        kind: 'charge',
        charge: await this.deps.charges.markInitialised(record.charge_id, authorization),
        replayed: false,
      };
    } catch (err) {
      await this.deps.charges.markFailed(record.charge_id, 'gateway_unavailable');
      throw err;
    }
  }

  /**
   * A charge found by its reference, once the request that created it has finished initialising
   * (a concurrent twin answers with the winner's processor data rather than a half-made charge).
   */
  private async settled(charge: ChargeRecord): Promise<ChargeRecord> {
    const deadline = this.now().getTime() + (this.options.referenceWaitMs ?? 5_000);
    let current = charge;
    while (current.status === 'initializing' && this.now().getTime() < deadline) {
      await this.sleep(25);
      current =
        (await this.deps.charges.findByReference(charge.merchant_id, charge.mode, charge.reference ?? '')) ?? current;
    }
    return current;
  }

  /**
   * Without conversion `amount` must equal `total_amount`. With conversion the service converts
   * `total_amount` itself and `amount` (and `converted_total_amount` when sent) must be within the
   * tolerance of that figure (spec 4.1, 8).
   */
  private async checkAmounts(input: ValidCharge, mode: Mode): Promise<Conversion | null> {
    const { amount, total } = input;
    if (amount.currency === total.currency) {
      if (amount.amount !== total.amount) {
        throw new PlatformError('AMOUNT_MISMATCH', undefined, {
          param: 'amount',
          detail: `without conversion amount must equal total_amount (${total.amount})`,
        });
      }
      return null;
    }
    const quote = await this.deps.fx.convert(total, amount.currency, mode);
    if (
      input.convertedAmount !== undefined &&
      !withinTolerance(input.convertedAmount, amount.amount, this.options.tolerance)
    ) {
      throw new PlatformError('CONVERTED_AMOUNT_MISMATCH', undefined, { param: 'converted_total_amount' });
    }
    if (!withinTolerance(amount.amount, quote.result.amount, this.options.tolerance)) {
      throw new PlatformError('AMOUNT_MISMATCH', undefined, {
        param: 'amount',
        detail: `expected about ${quote.result.amount} ${amount.currency} for ${total.amount} ${total.currency}`,
      });
    }
    return {
      original: total,
      converted: quote.result,
      rate: quote.rate,
      rate_decimal: quote.rate_decimal,
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
