import { outboxEvent, PlatformError, SUBJECTS, type Mode, type PaymentOutcome } from '@ppay/kernel';
import type { ChargeRecord } from './charge';
import { multicurrencyBreakdown } from '../wallets/ledger';
import type { ChargeRepository } from '../ports';
import type { SessionRecord } from '../checkout/session';

/** payment.succeeded / payment.failed for a charge (spec 6.4/6.5 data, kept in canonical form). */
export function paymentOutcome(
  charge: ChargeRecord,
  status: 'succeeded' | 'failed',
  failureReason: string | null,
  completedAt: Date,
): PaymentOutcome {
  return {
    charge_id: charge.charge_id,
    transaction_id: charge.transaction_id,
    merchant_id: charge.merchant_id,
    status,
    payment_type: 'one_time',
    gateway: charge.payment_gateway,
    reference: charge.reference,
    amount: { amount: charge.fee_details.total_amount, currency: charge.amount.currency },
    total: charge.total,
    transaction_fee: { amount: charge.fee_details.transaction_fee, currency: charge.amount.currency },
    customer_pays_fees: charge.fee_details.customer_pays_fees,
    breakdown: multicurrencyBreakdown(charge),
    customer: charge.customer,
    sub_merchant_id: charge.sub_merchant_id,
    failure_reason: failureReason,
    completed_at: completedAt.toISOString(),
    session_id: null,
    product: null,
    subscription_frequency_key: null,
    metadata: charge.metadata,
  };
}

/** payment.succeeded / payment.failed for a session's charge: the charge outcome plus the session's data. */
export function sessionOutcome(s: SessionRecord, charge: ChargeRecord, at: Date): PaymentOutcome {
  const status = charge.status === 'succeeded' ? 'succeeded' : 'failed';
  return {
    ...paymentOutcome(charge, status, charge.failure_reason, at),
    payment_type: s.payment_type,
    session_id: s.session_id,
    product: { id: s.product.id, title: s.product.name, type: s.product.type },
    subscription_frequency_key: s.subscription_frequency_key,
    metadata: s.metadata,
  };
}

/**
 * Drives a charge to its final state and emits payment.succeeded / payment.failed through the
 * charge's outbox. Final states are final: repeating the same outcome returns the charge unchanged,
 * asking for the other one is a conflict.
 */
export class OutcomeService {
  constructor(
    private readonly charges: ChargeRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The sandbox helper behind POST /sandbox/charges/{id}/succeed|fail. */
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
    const completed = await this.charges.complete(charge.charge_id, target, failureReason, completedAt, event);
    if (completed) return completed;
    // Someone else finished it between our read and write: report what it became.
    const now = await this.charges.findForMerchant(merchantId, mode, chargeId);
    if (now?.status === target) return now;
    throw new PlatformError('CONFLICT', `Charge is already ${now?.status ?? 'gone'}`, { param: 'charge_id' });
  }
}
