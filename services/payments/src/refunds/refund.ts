import { prefixedId, type Money } from '@ppay/kernel';

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/**
 * One refund of a charge, stored inside the charge document (ChargeRecord.refunds). `pending` counts
 * against what is left to refund until the processor answers; only `succeeded` counts in
 * `amount_refunded`; `failed` releases its amount.
 */
export interface RefundRecord {
  refund_id: string;
  /** The Idempotency-Key it was created with (unique within its charge), or null. */
  idempotency_key: string | null;
  request_fingerprint: string;
  /** In the charge currency. */
  amount: Money;
  reason: string | null;
  status: RefundStatus;
  failure_reason: string | null;
  /**
   * The charge's amount_refunded just before this refund succeeded (null until then). Refunds that
   * succeeded cover disjoint, adjacent slices [refunded_before, refunded_before + amount) of the
   * captured amount, which is what makes the proportional ledger reversals add up exactly.
   */
  refunded_before: Money | null;
  processor_reference: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A new refund of `amount`: pending until the processor answers. */
export function newRefund(
  fields: Pick<RefundRecord, 'idempotency_key' | 'request_fingerprint' | 'amount' | 'reason'>,
  now: Date,
): RefundRecord {
  return {
    refund_id: prefixedId('re'),
    ...fields,
    status: 'pending',
    failure_reason: null,
    refunded_before: null,
    processor_reference: null,
    created_at: now,
    updated_at: now,
  };
}

/** A refund as payments.proto's Refund: the record with its charge, without what partners never see. */
export type RefundResource = Pick<
  RefundRecord,
  'refund_id' | 'amount' | 'status' | 'reason' | 'failure_reason' | 'created_at'
> & { charge_id: string };

export function refundResource(chargeId: string, r: RefundRecord): RefundResource {
  return {
    refund_id: r.refund_id,
    charge_id: chargeId,
    amount: r.amount,
    status: r.status,
    reason: r.reason,
    failure_reason: r.failure_reason,
    created_at: r.created_at,
  };
}
