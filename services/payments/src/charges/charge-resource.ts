import { refundResource } from '../refunds/refund';
import type { ChargeRecord } from './charge';

/**
 * A charge as partners read it (payments.proto Charge): the spec 2.2 fields, its state and amounts,
 * its refunds and its dispute. POST /payments/charge answers the spec 2.2 subset of it (the gateway
 * schema), GET /payments/charges[/{id}] all of it.
 */
export function chargeResource(c: ChargeRecord) {
  return {
    charge_id: c.charge_id,
    payment_gateway: c.payment_gateway,
    client_secret: c.client_secret,
    publishable_key: c.publishable_key,
    gateway_account_id: c.gateway_account_id,
    gateway_reference: c.processor_reference,
    transaction_id: c.transaction_id,
    fee_details: c.fee_details,
    status: c.status,
    amount_refunded: c.amount_refunded,
    refunded: c.refunded,
    amount_disputed: c.amount_disputed,
    reference: c.reference,
    amount: c.amount,
    total: c.total,
    customer_email: c.customer.email,
    description: c.description,
    sub_merchant_id: c.sub_merchant_id,
    is_live: c.mode === 'live',
    failure_reason: c.failure_reason,
    created_at: c.created_at,
    completed_at: c.completed_at,
    refunds: c.refunds.map((r) => refundResource(c.charge_id, r)),
    dispute: c.dispute,
  };
}
