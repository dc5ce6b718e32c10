import {
  addMoney,
  outboxEvent,
  PlatformError,
  requestFingerprint,
  SUBJECTS,
  type Mode,
  type Money,
  type SubscriptionFrequency,
} from '@ppay/kernel';
import type { CardResult } from '../processors/cards';
import { withinDeadline } from '../charges/deadline-race';
import {
  newCharge,
  UNKNOWN_COUNTRY,
  type ChargeRecord,
  type CustomerDetails,
  type MetadataValue,
} from '../charges/charge';
import type { PaymentMethodRecord } from './payment-method';
import { feeBreakdown, type FeeSchedule } from '../charges/fees';
import { paymentOutcome } from '../charges/payment-outcome';
import { processorGroupFor } from '../processors/processors';
import type { ChargeRepository, MerchantDirectory } from '../ports';
import type { CardProcessor, ProcessorRegistry } from '../processors/ports';
import type { PaymentMethodRepository } from './ports';

export interface OffSessionCharge {
  payment_method_id: string;
  price: Money;
  /** Derived by the caller from (subscription, period start, attempt): one charge per key, ever. */
  idempotency_key: string;
  product: { id: number | null; title: string; type: string };
  frequency: SubscriptionFrequency | null;
  metadata: Record<string, MetadataValue>;
  customer: Partial<CustomerDetails>;
  /** The customer is paying now (a first payment), so the card behaves as on the hosted page. */
  customer_present?: boolean;
  /** An installment plan's later part (issue 26): its payment events say which part of which plan. */
  installment?: {
    plan_id: string;
    number: number;
    count: number;
    /** What the plan still owes once this part is paid. */
    remaining_if_paid: Money;
  };
}

export interface OffSessionResult {
  charge: ChargeRecord;
  replayed: boolean;
}

/** The answer to ChargePaymentMethod: the charge's final status (a decline is an answer, not an error). */
export function offSessionChargeResource({ charge, replayed }: OffSessionResult) {
  return {
    charge_id: charge.charge_id,
    transaction_id: charge.transaction_id,
    status: charge.status,
    decline_code: charge.failure_reason,
    completed_at: charge.completed_at,
    replayed,
  };
}

const MAX_KEY = 200;

/**
 * Charges of saved payment methods without the customer (subscription renewals, installment parts), under
 * the rules of one-time charges (ChargeService).
 */
export class OffSessionChargeService {
  constructor(
    private readonly deps: {
      methods: PaymentMethodRepository;
      charges: ChargeRepository;
      merchants: MerchantDirectory;
      cards: CardProcessor;
      processors: ProcessorRegistry;
    },
    private readonly options: {
      feeSchedule: FeeSchedule;
      /** A pending charge untouched this long is repeated in place by the next call with its key. */
      staleAfterMs?: number;
      /** How long a repeat waits for a pending charge (at most its caller's deadline). */
      inFlightWaitMs?: number;
    },
    private readonly now: () => Date = () => new Date(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    private readonly onBackgroundError: (err: unknown, chargeId: string) => void = () => undefined,
  ) {}

  /**
   * Charges a saved method off-session and answers the charge's final status, under the rules of one-time
   * charges (ChargeService): the charge is bound to its idempotency key (unique per merchant and mode; the
   * key is also its reference, so a renewal's charge names its subscription and period) and to the
   * fingerprint of the request, so a repeat — a retry after a crash, a redelivery, a second scheduler —
   * finds the same charge and never makes a second one; a different request with a used key is
   * IDEMPOTENCY_KEY_REUSED. A final charge is answered as it is. A pending one is waited for while its
   * caller may still be at it, then reported in flight (IDEMPOTENCY_IN_FLIGHT); once stale (a crash, a
   * timeout) it is claimed and the processor is asked again in place (processors dedupe by charge id; one
   * whose idempotency keys expire looks for the payment it made first, docs/decisions.md S37). No
   * answer within the caller's deadline is an unknown outcome (UPSTREAM_TIMEOUT): the charge stays pending
   * and the processor's late answer still completes it.
   */
  async charge(
    merchantId: number,
    mode: Mode,
    r: OffSessionCharge,
    call: { deadline?: Date } = {},
  ): Promise<OffSessionResult> {
    const key = r.idempotency_key.trim();
    if (!key || key.length > MAX_KEY) {
      throw new PlatformError('VALIDATION_FAILED', `idempotency_key must be 1 to ${MAX_KEY} characters`, {
        param: 'idempotency_key',
      });
    }
    const method = await this.deps.methods.findForMerchant(merchantId, mode, r.payment_method_id);
    if (!method) throw new PlatformError('PAYMENT_METHOD_NOT_FOUND', undefined, { param: 'payment_method_id' });
    const { idempotency_key: _key, ...parameters } = r;
    const fingerprint = requestFingerprint(parameters);
    const keys = { idempotencyKey: key, reference: key };
    // A lost race for the key goes round once more.
    for (let round = 0; round < 3; round++) {
      const existing = await this.deps.charges.findByKeys(merchantId, mode, keys);
      if (existing) {
        const resumed = await this.resume(existing, fingerprint, method, r, call.deadline);
        if (resumed) return resumed;
        continue; // claimed by a concurrent repeat meanwhile: read it again
      }
      const draft = await this.draft(merchantId, mode, key, fingerprint, method, r);
      if (!(await this.deps.charges.insert(draft))) continue;
      return { charge: await this.settle(draft, method, r, call.deadline), replayed: false };
    }
    throw new PlatformError('CONFLICT', 'This charge is being changed by concurrent requests; retry', {
      param: 'idempotency_key',
    });
  }

  /** A repeat bound to an existing charge; null when a concurrent repeat claimed it first. */
  private async resume(
    existing: ChargeRecord,
    fingerprint: string,
    method: PaymentMethodRecord,
    r: OffSessionCharge,
    deadline?: Date,
  ): Promise<OffSessionResult | null> {
    if (existing.request_fingerprint !== fingerprint) {
      throw new PlatformError('IDEMPOTENCY_KEY_REUSED', undefined, {
        param: 'idempotency_key',
        detail: `${existing.charge_id} holds this key; keys are single-use`,
      });
    }
    let charge = existing;
    if (charge.status === 'pending' && !this.isStale(charge)) charge = await this.waitWhilePending(charge, deadline);
    if (charge.status !== 'pending') return { charge, replayed: true };
    if (!this.isStale(charge)) {
      throw new PlatformError('IDEMPOTENCY_IN_FLIGHT', 'This charge is still being processed; retry shortly', {
        param: 'idempotency_key',
      });
    }
    const claimed = await this.deps.charges.reclaimPending(charge.charge_id, this.staleBefore(), this.now());
    if (!claimed) return null;
    return { charge: await this.settle(claimed, method, r, deadline), replayed: false };
  }

  private async draft(
    merchantId: number,
    mode: Mode,
    key: string,
    fingerprint: string,
    method: PaymentMethodRecord,
    r: OffSessionCharge,
  ): Promise<ChargeRecord> {
    const merchant = await this.deps.merchants.get(merchantId);
    const group = processorGroupFor(r.price.currency);
    const fee = feeBreakdown(this.options.feeSchedule, group, r.price, merchant.customer_pays_fees);
    return newCharge(
      {
        kind: 'off_session',
        merchant_id: merchantId,
        mode,
        idempotency_key: key,
        request_fingerprint: fingerprint,
        processor_group: group,
        payment_gateway: this.deps.processors.adapterFor(group, mode).id,
        amount: r.price,
        fee_details: fee,
        customer: {
          email: r.customer.email || method.customer_email,
          first_name: r.customer.first_name ?? '',
          last_name: r.customer.last_name ?? '',
          country: r.customer.country || UNKNOWN_COUNTRY,
        },
        metadata: r.metadata,
        description: r.product.title,
      },
      this.now(),
    );
  }

  /** Asks the processor within the caller's deadline and completes the pending charge with its answer. */
  private async settle(
    charge: ChargeRecord,
    method: PaymentMethodRecord,
    r: OffSessionCharge,
    deadline?: Date,
  ): Promise<ChargeRecord> {
    const work = this.deps.cards
      .chargeSaved(
        {
          charge_id: charge.charge_id,
          group: charge.processor_group,
          mode: charge.mode,
          amount: charge.fee_details.total,
          merchant_id: charge.merchant_id,
          created_at: charge.created_at,
          // Reclaimed after a timeout or a crash: the processor may hold a payment for it already (S37).
          asked_before: charge.attempts > 1,
        },
        method.card,
        { customerPresent: r.customer_present ?? false },
      )
      .then((result) => this.complete(charge, r, result));
    const answer = await withinDeadline(work, deadline, this.now);
    if (answer.timedOut) {
      // The late answer still lands on the charge; a repeat with the same key then reads it.
      work.catch((err: unknown) => this.onBackgroundError(err, charge.charge_id));
      throw new PlatformError('UPSTREAM_TIMEOUT', 'The payment processor has not answered yet', {
        detail: 'the outcome is unknown: retry with the same idempotency_key to get the charge',
      });
    }
    if ('error' in answer) throw answer.error;
    return answer.value;
  }

  private async complete(charge: ChargeRecord, r: OffSessionCharge, result: CardResult): Promise<ChargeRecord> {
    const at = this.now();
    const status = result.approved ? 'succeeded' : 'failed';
    const reason = result.approved ? null : result.decline_code;
    const plan = r.installment;
    const outcome = {
      ...paymentOutcome(charge, status, reason, at),
      payment_type: plan ? ('installment' as const) : ('subscription' as const),
      product: r.product,
      subscription_frequency_key: r.frequency,
      installment: plan
        ? {
            plan_id: plan.plan_id,
            number: plan.number,
            count: plan.count,
            // A declined part is still owed.
            amount_remaining: result.approved ? plan.remaining_if_paid : addMoney(plan.remaining_if_paid, r.price),
          }
        : null,
    };
    const event = outboxEvent(result.approved ? SUBJECTS.paymentSucceeded : SUBJECTS.paymentFailed, outcome, {
      merchantId: charge.merchant_id,
      mode: charge.mode,
    });
    // The processor's payment id, so its refunds, disputes and events find this charge (S38).
    const completed = await this.deps.charges.complete(
      charge.charge_id,
      status,
      reason,
      at,
      event,
      result.processor_reference ?? null,
    );
    if (completed) return completed;
    // Completed concurrently by a repeat of this call: answer with what it became.
    const now = await this.deps.charges.findForMerchant(charge.merchant_id, charge.mode, charge.charge_id);
    if (!now || now.status === 'pending') throw new PlatformError('CONFLICT', 'The charge is being processed');
    return now;
  }

  private isStale(c: ChargeRecord): boolean {
    return c.updated_at.getTime() <= this.staleBefore().getTime();
  }

  private staleBefore(): Date {
    return new Date(this.now().getTime() - (this.options.staleAfterMs ?? 30_000));
  }

  private async waitWhilePending(charge: ChargeRecord, deadline?: Date): Promise<ChargeRecord> {
    const waitMs = this.options.inFlightWaitMs ?? 5_000;
    const until = Math.min(this.now().getTime() + waitMs, (deadline?.getTime() ?? Infinity) - 200);
    let current = charge;
    while (current.status === 'pending' && this.now().getTime() < until && !this.isStale(current)) {
      await this.sleep(25);
      const fresh = await this.deps.charges.findForMerchant(current.merchant_id, current.mode, current.charge_id);
      if (!fresh) break;
      current = fresh;
    }
    return current;
  }
}
