import { newCharge, type ChargeRecord } from './charge';
import type { ChargeRequest } from './charges';

/** A one-time charge request of NGN 5,000.00, priced in NGN (no conversion). */
export const NGN_CHARGE: ChargeRequest = {
  amount: 500_000,
  currency: 'NGN',
  total_amount: 500_000,
  total_currency: 'NGN',
  customer: { email: 'c@example.com' },
};

/**
 * A charge as ChargeService drafts a one-time charge (merchant 1000, sandbox, NGN 100.00 at the naira
 * gateway, no conversion, no split), with the test's own changes on top.
 */
export function testCharge(changes: Partial<ChargeRecord> = {}, now = new Date(0)): ChargeRecord {
  const draft = newCharge(
    {
      kind: 'one_time',
      merchant_id: 1000,
      mode: 'sandbox',
      idempotency_key: null,
      reference: null,
      request_fingerprint: 'f',
      processor_group: 'naira',
      payment_gateway: 'naira_gateway',
      amount: { amount: 10_000, currency: 'NGN' },
      total: { amount: 10_000, currency: 'NGN' },
      conversion: null,
      fee_details: { base_amount: 10_000, transaction_fee: 350, total_amount: 10_000, customer_pays_fees: false },
      customer: { email: 'c@example.com', first_name: '', last_name: '', country: 'NG' },
      metadata: {},
      description: '',
      callback_url: '',
      sub_merchant_id: null,
      split: null,
    },
    now,
  );
  return { ...draft, ...changes };
}

/** A charge priced at USD 10.00 and paid as NGN 15,432.10 (a conversion; the merchant absorbs the fee). */
export function convertedCharge(overrides: Partial<ChargeRecord> = {}): ChargeRecord {
  return testCharge({
    charge_id: 'ch_1',
    transaction_id: 'txn_1',
    reference: 'order-1',
    request_fingerprint: 'fp',
    status: 'pending',
    amount: { amount: 1_543_210, currency: 'NGN' },
    total: { amount: 1_000, currency: 'USD' },
    conversion: {
      original: { amount: 1_000, currency: 'USD' },
      converted: { amount: 1_543_210, currency: 'NGN' },
      rate: 1543.21,
      rate_decimal: '1543.21',
      source: 'bundled:2026-11-01',
      surcharge_percent: 0,
    },
    fee_details: {
      base_amount: 1_543_210,
      transaction_fee: 33_148,
      total_amount: 1_543_210,
      customer_pays_fees: false,
    },
    ...overrides,
  });
}
