import { newCharge, type ChargeRecord } from './charge';
import type { ChargeRequest } from './charges';
import type { FeeBreakdown } from './fees';

/** A one-time charge request of NGN 5,000.00, priced in NGN (no conversion). */
export const NGN_CHARGE: ChargeRequest = {
  amount: 500_000,
  currency: 'NGN',
  total_amount: 500_000,
  total_currency: 'NGN',
  customer: { email: 'c@example.com' },
};

/** Fee details in one currency; the merchant absorbs the fee (total = base) unless told otherwise. */
export function testFees(
  currency: string,
  base: number,
  fee: number,
  total = base,
  customerPays = false,
): FeeBreakdown {
  const m = (amount: number) => ({ amount, currency });
  return { base: m(base), fee: m(fee), total: m(total), customer_pays_fees: customerPays };
}

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
      fee_details: testFees('NGN', 10_000, 350),
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
    fee_details: testFees('NGN', 1_543_210, 33_148),
    ...overrides,
  });
}
