import type { ChargeRecord } from '../charges/charge';
import { creditsFor, multicurrencyBreakdown } from './ledger';
import { paymentOutcome } from '../charges/outcomes';

function charge(overrides: Partial<ChargeRecord> = {}): ChargeRecord {
  return {
    charge_id: 'ch_1',
    transaction_id: 'txn_1',
    merchant_id: 1000,
    mode: 'sandbox',
    reference: 'order-1',
    idempotency_key: null,
    request_fingerprint: 'fp',
    attempts: 1,
    status: 'pending',
    processor_group: 'naira',
    payment_gateway: 'naira_gateway',
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
    customer: { email: 'c@example.com', first_name: '', last_name: '', country: 'NG' },
    metadata: {},
    description: '',
    callback_url: '',
    sub_merchant_id: null,
    split: null,
    processor_reference: null,
    client_secret: null,
    publishable_key: null,
    gateway_account_id: null,
    failure_reason: null,
    completed_at: null,
    refunds: [],
    amount_refunded: 0,
    refunded: false,
    refund_version: 0,
    created_at: new Date(0),
    updated_at: new Date(0),
    ...overrides,
  };
}

describe('MulticurrencyBreakdown (spec 6.5)', () => {
  it('restates the fee in the merchant currency at the charge ratio and nets it out', () => {
    expect(multicurrencyBreakdown(charge())).toEqual({
      customer_paid: { amount: 1_543_210, currency: 'NGN' },
      merchant_gross: { amount: 1_000, currency: 'USD' },
      merchant_net: { amount: 979, currency: 'USD' }, // fee 33,148 kobo ≈ 21.48 cents → 21
      fees: {
        platform_fee: { amount: 21, currency: 'USD' },
        gateway_fee: { amount: 0, currency: 'USD' },
        total: { amount: 21, currency: 'USD' },
      },
      conversion: {
        from_currency: 'USD',
        to_currency: 'NGN',
        rate: 1543.21,
        rate_decimal: '1543.21',
        surcharge_percent: 0,
      },
    });
  });

  it('omits conversion and keeps customer_paid = merchant_gross when currencies match', () => {
    const same = charge({
      amount: { amount: 500_000, currency: 'NGN' },
      total: { amount: 500_000, currency: 'NGN' },
      conversion: null,
      fee_details: { base_amount: 500_000, transaction_fee: 17_500, total_amount: 500_000, customer_pays_fees: false },
    });
    const b = multicurrencyBreakdown(same);
    expect(b.conversion).toBeUndefined();
    expect(b.customer_paid).toEqual(b.merchant_gross);
    expect(b.merchant_net.amount).toBe(482_500);
  });
});

describe('wallet credits', () => {
  const now = new Date(0);
  const c = charge({
    amount: { amount: 500_000, currency: 'NGN' },
    total: { amount: 500_000, currency: 'NGN' },
    conversion: null,
    fee_details: { base_amount: 500_000, transaction_fee: 17_500, total_amount: 500_000, customer_pays_fees: false },
  });

  it('credits a plain merchant its net in its pricing currency, once per charge', () => {
    const outcome = paymentOutcome(c, 'succeeded', null, now);
    const [entry, ...rest] = creditsFor(outcome, 'sandbox', null, 'evt_1', now);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      merchant_id: 1000,
      amount: { amount: 482_500, currency: 'NGN' },
      kind: 'credit',
      reason: 'payment',
    });
    expect(entry!.idempotency_key).toBe('ch_1:1000:payment');
    // Another delivery of the same payment (different event id) yields the same key.
    expect(creditsFor(outcome, 'sandbox', null, 'evt_2', now)[0]!.idempotency_key).toBe(entry!.idempotency_key);
  });

  it('marketplace: operator gets amount minus platform fee, active sub-merchant gets total minus commission', () => {
    const split = charge({ ...c, sub_merchant_id: 2000 });
    const outcome = paymentOutcome(split, 'succeeded', null, now);
    const entries = creditsFor(
      outcome,
      'sandbox',
      { active: true, commission_rate: '0.0800', commission_source: 'merchant' },
      'evt',
      now,
    );
    expect(entries.map((e) => [e.merchant_id, e.reason, e.amount.amount, e.amount.currency])).toEqual([
      [1000, 'marketplace_operator', 482_500, 'NGN'],
      [2000, 'marketplace_split', 460_000, 'NGN'],
    ]);
    expect(entries[1]!.conversion_details).toEqual({
      source: 'marketplace_split',
      marketplace_id: 1000,
      charge_currency: 'NGN',
      gross_product_amount: 500_000,
      commission_rate: '0.0800',
      commission_amount: 40_000,
      net_credited: 460_000,
      cart_identifier: 'order-1',
    });
    const skipped = creditsFor(
      outcome,
      'sandbox',
      { active: false, commission_rate: '0', commission_source: 'none' },
      'evt',
      now,
    );
    expect(skipped.map((e) => e.merchant_id)).toEqual([1000]);
  });

  it('never writes a negative or zero credit, whatever a fee leaves of the payment', () => {
    const tiny = charge({
      amount: { amount: 30, currency: 'USD' },
      total: { amount: 30, currency: 'USD' },
      conversion: null,
      fee_details: { base_amount: 30, transaction_fee: 31, total_amount: 30, customer_pays_fees: false },
    });
    expect(creditsFor(paymentOutcome(tiny, 'succeeded', null, now), 'sandbox', null, 'evt', now)).toEqual([]);
  });
});
