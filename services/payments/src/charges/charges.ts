import {
  money,
  normaliseCountry,
  normaliseCurrency,
  PlatformError,
  requestFingerprint,
  withinTolerance,
  type Mode,
} from '@ppay/kernel';
import {
  initialisedFields,
  isRetryableFailure,
  newCharge,
  previewConversion,
  UNKNOWN_COUNTRY,
  type ChargePreview,
  type ChargeRecord,
  type Conversion,
} from './charge';
import { assertChargeable, feeBreakdown, type FeeSchedule } from './fees';
import { requirePaymentBasics, requirePositiveAmount, type PaymentRequestBasics } from './payment-request';
import { PROCESSOR_IDS, processorGroupFor } from '../processors/processors';
import { withinDeadline } from './deadline-race';
import { activeSubMerchantSplit } from './sub-merchant-split';
import type { ChargeRepository, MerchantDirectory, SplitResolver } from '../ports';
import type { PaymentIntent, ProcessorAdapter, ProcessorAuthorization, ProcessorRegistry } from '../processors/ports';
import type { FxConverter } from './ports';

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

export interface ChargeServiceOptions {
  feeSchedule: FeeSchedule;
  /** Allowed difference between the partner's and the server's conversion, as a fraction (spec 8: 1%). */
  tolerance: string;
  /** How long a request bound to an initialising charge waits for it (at most its own deadline). */
  inFlightWaitMs?: number;
  /** An initialising charge untouched this long is abandoned (a crash, or a processor that never answered). */
  staleAfterMs?: number;
}

/** What the caller of a use case brings besides its request: its Idempotency-Key and deadline. */
export interface CallOptions {
  idempotencyKey?: string;
  deadline?: Date;
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

/**
 * Spec 4.1: one-time charges, their preview, and the validation of section 7.1.
 *
 * A charge is bound to its Idempotency-Key and its reference (unique per merchant and mode) and to
 * the fingerprint of its parameters, so a retry finds it again whatever happened to the first
 * request: a pending or final charge is answered as it is; a charge whose processor was down, or
 * that a crash left half made, is initialised again in place (the processor dedupes by charge id);
 * one whose processor has not answered yet is waited for, then reported in flight. A timeout is an
 * unknown outcome: the charge stays initializing and the processor's late answer still lands on it.
 */
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
    private readonly onBackgroundError: (err: unknown, chargeId: string) => void = () => undefined,
  ) {}

  async create(merchantId: number, mode: Mode, request: ChargeRequest, call: CallOptions = {}): Promise<ChargeOutcome> {
    const input = validateChargeShape(request);
    if (request.preview)
      return { kind: 'preview', preview: await this.preview(merchantId, mode, request, input, call) };
    const keys = { idempotencyKey: call.idempotencyKey?.trim() || null, reference: request.reference?.trim() || null };
    const fingerprint = chargeFingerprint(request);
    // A lost race for a key or reference, or a released reference, goes round once more.
    for (let round = 0; round < 3; round++) {
      const existing =
        keys.idempotencyKey || keys.reference ? await this.deps.charges.findByKeys(merchantId, mode, keys) : null;
      if (existing) {
        const resumed = await this.resume(existing, keys, fingerprint, call.deadline);
        if (resumed) return resumed;
        continue; // its reference was released for a new charge
      }
      const record = await this.build(merchantId, mode, request, input, keys, fingerprint, call.deadline);
      const made = await this.initialiseNew(record, call.deadline);
      if (!made) continue; // lost the race for the key or reference
      return { kind: 'charge', charge: made, replayed: false };
    }
    throw new PlatformError('CONFLICT', 'This charge is being changed by concurrent requests; retry', {
      param: keys.idempotencyKey ? 'Idempotency-Key' : 'reference',
    });
  }

  /** The background sweep: initializing charges nobody finished become retryable failures. */
  abandonStale(): Promise<number> {
    const now = this.now();
    return this.deps.charges.abandonStale(new Date(now.getTime() - this.staleAfterMs), now);
  }

  private get staleAfterMs(): number {
    return this.options.staleAfterMs ?? 30_000;
  }

  private async preview(
    merchantId: number,
    mode: Mode,
    request: ChargeRequest,
    input: ValidCharge,
    call: CallOptions,
  ): Promise<ChargePreview> {
    const { fee, conversion, merchant, group, customerCountry } = await this.price(
      merchantId,
      mode,
      request,
      input,
      call.deadline,
    );
    return {
      preview: true,
      payment_gateway: PROCESSOR_IDS[group],
      mode,
      is_international: customerCountry !== UNKNOWN_COUNTRY && customerCountry !== merchant.country,
      business_country: merchant.country,
      customer_country: customerCountry,
      customer: { base: fee.base, fee: fee.fee, total: fee.total, pays_fees: fee.customer_pays_fees },
      business: { price: input.total },
      conversion: previewConversion(conversion),
    };
  }

  /** Everything a charge costs and how it routes; every check of spec 7.1 that needs other services. */
  private async price(merchantId: number, mode: Mode, request: ChargeRequest, input: ValidCharge, deadline?: Date) {
    const merchant = await this.deps.merchants.get(merchantId);
    const group = processorGroupFor(input.amount.currency);
    const conversion = await this.checkAmounts(input, mode, deadline);
    const split = request.sub_merchant_id
      ? await activeSubMerchantSplit(this.deps.splits, merchantId, request.sub_merchant_id, mode, deadline)
      : null;
    assertChargeable(input.amount, 'amount');
    const fee = feeBreakdown(this.options.feeSchedule, group, input.amount, merchant.customer_pays_fees);
    const customerCountry = normaliseCountry(request.customer?.country) ?? UNKNOWN_COUNTRY;
    return { merchant, group, conversion, split, fee, customerCountry };
  }

  private async build(
    merchantId: number,
    mode: Mode,
    request: ChargeRequest,
    input: ValidCharge,
    keys: { idempotencyKey: string | null; reference: string | null },
    fingerprint: string,
    deadline?: Date,
  ): Promise<ChargeRecord> {
    const { group, conversion, split, fee, customerCountry } = await this.price(
      merchantId,
      mode,
      request,
      input,
      deadline,
    );
    const adapter = this.deps.processors.adapterFor(group, mode);
    return newCharge(
      {
        kind: 'one_time',
        merchant_id: merchantId,
        mode,
        idempotency_key: keys.idempotencyKey,
        reference: keys.reference,
        request_fingerprint: fingerprint,
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
  }

  /**
   * A request bound to an existing charge: the same parameters, or an error naming what was reused.
   * Answers the outcome, or null when the charge failed for good and gave its reference up.
   */
  private async resume(
    existing: ChargeRecord,
    keys: { idempotencyKey: string | null; reference: string | null },
    fingerprint: string,
    deadline?: Date,
  ): Promise<ChargeOutcome | null> {
    const byKey = keys.idempotencyKey !== null && existing.idempotency_key === keys.idempotencyKey;
    if (existing.request_fingerprint !== fingerprint) {
      throw byKey
        ? new PlatformError('IDEMPOTENCY_KEY_REUSED', undefined, {
            param: 'Idempotency-Key',
            detail: 'keys are single-use: send a new key for a different charge',
          })
        : new PlatformError('REFERENCE_REUSED', undefined, {
            param: 'reference',
            detail: `${existing.charge_id} holds this reference; send the same parameters, or a new reference`,
          });
    }
    let charge = existing;
    if (charge.status === 'initializing' && !this.isStale(charge))
      charge = await this.waitForInitialisation(charge, deadline);
    if (charge.status === 'initializing' && !this.isStale(charge)) {
      throw new PlatformError('IDEMPOTENCY_IN_FLIGHT', 'This charge is still being initialised; retry shortly', {
        param: byKey ? 'Idempotency-Key' : 'reference',
      });
    }
    if (charge.status === 'initializing' || isRetryableFailure(charge)) {
      const claimed = await this.deps.charges.retryInitialisation(
        charge.charge_id,
        new Date(this.now().getTime() - this.staleAfterMs),
        this.now(),
      );
      if (!claimed) return this.resume(await this.reload(charge), keys, fingerprint, deadline);
      return { kind: 'charge', charge: await this.initialise(claimed, deadline), replayed: false };
    }
    // A declined payment is final; a new request with the same reference (and no key of its own
    // binding it) makes a new charge, as a merchant retrying a declined order expects.
    if (
      charge.status === 'failed' &&
      !byKey &&
      charge.reference !== null &&
      (await this.deps.charges.releaseReference(charge.charge_id, charge.reference))
    ) {
      return null;
    }
    return { kind: 'charge', charge, replayed: true };
  }

  private isStale(c: ChargeRecord): boolean {
    return c.updated_at.getTime() <= this.now().getTime() - this.staleAfterMs;
  }

  private async reload(c: ChargeRecord): Promise<ChargeRecord> {
    const fresh = await this.deps.charges.findForMerchant(c.merchant_id, c.mode, c.charge_id);
    if (!fresh) throw new PlatformError('CONFLICT', 'The charge changed while it was being read; retry');
    return fresh;
  }

  private async waitForInitialisation(charge: ChargeRecord, deadline?: Date): Promise<ChargeRecord> {
    const waitMs = this.options.inFlightWaitMs ?? 5_000;
    const until = Math.min(this.now().getTime() + waitMs, (deadline?.getTime() ?? Infinity) - 200);
    let current = charge;
    while (current.status === 'initializing' && this.now().getTime() < until) {
      await this.sleep(25);
      current = await this.reload(current);
    }
    return current;
  }

  /**
   * A stored charge (a retry of one the processor never set up) asks the processor again, within the
   * caller's deadline. A definite refusal fails the charge (retryable);
   * no answer in time leaves it initializing (outcome unknown) and the late answer still lands on it.
   */
  private async initialise(record: ChargeRecord, deadline?: Date): Promise<ChargeRecord> {
    const adapter: ProcessorAdapter = this.deps.processors.adapterFor(record.processor_group, record.mode);
    const work = adapter.initialise(intentOf(record));
    const answer = await withinDeadline(work, deadline, this.now);
    if (answer.timedOut) {
      this.landLate(work, record.charge_id);
      throw unknownOutcome();
    }
    if ('error' in answer) {
      await this.afterFailure(record.charge_id, answer.error);
      throw answer.error;
    }
    const initialised = await this.deps.charges.markInitialised(record.charge_id, answer.value);
    return initialised ?? this.reload(record);
  }

  /**
   * A new charge: the processor is asked first and the charge stored once, with its answer (one write;
   * docs/architecture.md, "A new charge: one write"). Initialising moves no money and its authorization
   * reaches nobody until this request answers, so a crash before the insert leaves only an unused
   * initialisation at the processor, and the caller's retry makes the charge. When the outcome is unknown
   * (no answer by the deadline, or the processor's own timeout) the charge is stored as it stands
   * (initializing) before the caller hears so, and the processor's late answer lands on it. Null when
   * another request took the key or reference first.
   */
  private async initialiseNew(record: ChargeRecord, deadline?: Date): Promise<ChargeRecord | null> {
    const work = this.deps.processors.adapterFor(record.processor_group, record.mode).initialise(intentOf(record));
    const answer = await withinDeadline(work, deadline, this.now);
    if (answer.timedOut) {
      if (await this.deps.charges.insert({ ...record, updated_at: this.now() })) this.landLate(work, record.charge_id);
      throw unknownOutcome();
    }
    if ('error' in answer) {
      const unknown = answer.error instanceof PlatformError && answer.error.code === 'UPSTREAM_TIMEOUT';
      const failed: ChargeRecord = unknown
        ? { ...record, updated_at: this.now() }
        : { ...record, status: 'failed', failure_reason: 'processor_unavailable', updated_at: this.now() };
      if (!(await this.deps.charges.insert(failed))) return null;
      throw answer.error;
    }
    const initialised = { ...record, ...initialisedFields(answer.value, this.now()) };
    return (await this.deps.charges.insert(initialised)) ? initialised : null;
  }

  /** The processor's answer after the caller was told the outcome is unknown: it still lands on the stored charge. */
  private landLate(work: Promise<ProcessorAuthorization>, chargeId: string): void {
    void work
      .then((authorization) => this.deps.charges.markInitialised(chargeId, authorization))
      .catch((err: unknown) => this.afterFailure(chargeId, err))
      .catch((err: unknown) => this.onBackgroundError(err, chargeId));
  }

  /** A processor error that says nothing was created fails the charge (retryable); a timeout does not. */
  private async afterFailure(chargeId: string, err: unknown): Promise<void> {
    if (err instanceof PlatformError && err.code === 'UPSTREAM_TIMEOUT') return;
    await this.deps.charges.markFailed(chargeId, 'processor_unavailable');
  }

  /**
   * Without conversion `amount` must equal `total_amount`. With conversion the service converts
   * `total_amount` itself and `amount` (and `converted_total_amount` when sent) must be within the
   * tolerance of that figure (spec 4.1, 8).
   */
  private async checkAmounts(input: ValidCharge, mode: Mode, deadline?: Date): Promise<Conversion | null> {
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
    const quote = await this.deps.fx.convert(total, amount.currency, mode, deadline);
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
}

/** The request's parameters as the fingerprint sees them (the preview flag is not a parameter). */
function chargeFingerprint(request: ChargeRequest): string {
  const { preview: _preview, ...parameters } = request;
  return requestFingerprint(parameters);
}

function unknownOutcome(): PlatformError {
  return new PlatformError('UPSTREAM_TIMEOUT', 'The payment processor has not answered yet', {
    detail: 'the outcome is unknown: retry with the same Idempotency-Key or reference to get the charge',
  });
}

/** What the processor is asked to set up for a charge. */
function intentOf(record: ChargeRecord): PaymentIntent {
  return {
    charge_id: record.charge_id,
    merchant_id: record.merchant_id,
    mode: record.mode,
    amount: record.fee_details.total,
    customer_email: record.customer.email,
    description: record.description,
    callback_url: record.callback_url,
  };
}
