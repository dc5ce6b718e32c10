import { addMoney, subtractMoney, type Money, type PaymentRefunded } from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import { refundResource, type RefundRecord } from './refund';

/*
 * A charge's refund state: what it captured, what its refunds hold, and how it reads and announces
 * its refunds. Refunds live inside the charge document (docs/architecture.md, "Refund, then ledger debits").
 */

/** What the customer paid (fee included when they paid it): the most that can ever be refunded. */
export function capturedAmount(charge: Pick<ChargeRecord, 'fee_details'>): Money {
  return charge.fee_details.total;
}

/** Succeeded plus pending refunds: what is no longer available to refund. */
export function committedAmount(charge: Pick<ChargeRecord, 'refunds' | 'fee_details'>): Money {
  return charge.refunds
    .filter((r) => r.status !== 'failed')
    .reduce((sum, r) => addMoney(sum, r.amount), { ...capturedAmount(charge), amount: 0 });
}

/**
 * What may still be refunded: the capture minus succeeded and pending refunds minus what a dispute
 * holds (its amount while open or lost; nothing after a win).
 */
export function refundableAmount(charge: Pick<ChargeRecord, 'refunds' | 'fee_details' | 'amount_disputed'>): Money {
  return subtractMoney(subtractMoney(capturedAmount(charge), committedAmount(charge)), charge.amount_disputed);
}

/** GET /payments/charges/{id}/refunds: the charge's refund state and its refunds, oldest first. */
export function chargeRefundsResource(charge: ChargeRecord) {
  return {
    charge_id: charge.charge_id,
    amount_captured: capturedAmount(charge),
    amount_refunded: charge.amount_refunded,
    refunded: charge.refunded,
    refunds: charge.refunds.map((r) => refundResource(charge.charge_id, r)),
  };
}

/** payments.payment.refunded for a refund that just succeeded (`charge` is the charge after it). */
export function refundedEvent(charge: ChargeRecord, refund: RefundRecord, at: Date): PaymentRefunded {
  return {
    charge_id: charge.charge_id,
    transaction_id: charge.transaction_id,
    merchant_id: charge.merchant_id,
    sub_merchant_id: charge.sub_merchant_id,
    reference: charge.reference,
    gateway: charge.payment_gateway,
    amount_captured: capturedAmount(charge),
    amount_refunded: charge.amount_refunded,
    refunded: charge.refunded,
    refund: {
      refund_id: refund.refund_id,
      amount: refund.amount,
      status: 'succeeded',
      reason: refund.reason,
      refunded_before: refund.refunded_before?.amount ?? 0,
      created_at: refund.created_at.toISOString(),
    },
    metadata: charge.metadata,
    refunded_at: at.toISOString(),
  };
}
