import { outboxEvent, PlatformError, SUBJECTS, type Mode, type OutboxEntry, type PaymentOutcome } from '@ppay/kernel';
import type { ChargeRecord } from './charges';
import { multicurrencyBreakdown } from './ledger';

export interface OutcomeRepository {
  findForMerchant(merchantId: number, mode: Mode, chargeId: string): Promise<ChargeRecord | null>;
  /** pending → final status with the event in the same write; null when the charge is no longer pending. */
  complete(
    chargeId: string,
    status: 'succeeded' | 'failed',
    failureReason: string | null,
    completedAt: Date,
    event: OutboxEntry,
  ): Promise<ChargeRecord | null>;
}

export function paymentOutcome(
  charge: ChargeRecord,
  status: 'succeeded' | 'failed',
  failureReason: string | null,
  completedAt: Date,
): PaymentOutcome {
  return {
    charge_id: charge.id,
    transaction_id: charge.transaction_id,
    merchant_id: charge.merchant_id,
    status,
    payment_type: 'one_time',
    gateway: charge.payment_gateway,
    reference: charge.reference,
    amount: { amount: charge.fee.total_amount, currency: charge.currency },
    total: { amount: charge.total_amount, currency: charge.total_currency },
    transaction_fee: { amount: charge.fee.transaction_fee, currency: charge.currency },
    customer_pays_fees: charge.fee.customer_pays_fees,
    breakdown: multicurrencyBreakdown(charge),
    customer: charge.customer,
    sub_merchant_id: charge.sub_merchant_id,
    failure_reason: failureReason,
    completed_at: completedAt.toISOString(),
  };
}

/**
 * Drives a charge to its final state and emits payment.succeeded / payment.failed through the
 * charge's outbox. Final states are final: repeating the same outcome returns the charge unchanged,
 * asking for the other one is a conflict.
 */
export class OutcomeService {
  constructor(
    private readonly charges: OutcomeRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The sandbox helper behind POST /sandbox/charges/{id}/succeed|fail (and the checkout page). */
  async simulate(
    merchantId: number,
    mode: Mode,
    chargeId: string,
    outcome: 'succeed' | 'fail',
    reason?: string,
  ): Promise<ChargeRecord> {
    if (mode !== 'sandbox') {
      throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
    }
    const charge = await this.charges.findForMerchant(merchantId, mode, chargeId);
    if (!charge) throw new PlatformError('CHARGE_NOT_FOUND', undefined, { param: 'charge_id' });
    const target = outcome === 'succeed' ? 'succeeded' : 'failed';
    if (charge.status === target) return charge;
    if (charge.status !== 'pending') {
      throw new PlatformError('CONFLICT', `Charge is already ${charge.status}`, { param: 'charge_id' });
    }
    const completedAt = this.now();
    const failureReason = target === 'failed' ? reason || 'declined' : null;
    const subject = target === 'succeeded' ? SUBJECTS.paymentSucceeded : SUBJECTS.paymentFailed;
    const event = outboxEvent(subject, paymentOutcome(charge, target, failureReason, completedAt), {
      merchantId: charge.merchant_id,
      mode: charge.mode,
    });
    const completed = await this.charges.complete(charge.id, target, failureReason, completedAt, event);
    if (completed) return completed;
    // Someone else finished it between our read and write: report what it became.
    const now = await this.charges.findForMerchant(merchantId, mode, chargeId);
    if (now?.status === target) return now;
    throw new PlatformError('CONFLICT', `Charge is already ${now?.status ?? 'gone'}`, { param: 'charge_id' });
  }
}
