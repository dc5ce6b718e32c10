import { newCharge, type ChargeRecord } from './charge';
import { testFees } from './charge.test-util';

const NOW = new Date('2026-11-01T10:00:00Z');
const NGN = { amount: 500_000, currency: 'NGN' };
const basis = {
  merchant_id: 1000,
  mode: 'sandbox' as const,
  processor_group: 'naira' as const,
  payment_gateway: 'naira_gateway',
  amount: NGN,
  fee_details: testFees('NGN', 500_000, 17_500),
  customer: { email: 'c@example.com', first_name: '', last_name: '', country: 'NG' },
  metadata: { order: 42 },
  description: 'Sourdough',
};

/** What binds a new charge (status, reference, key, fingerprint) and what only some origins bring. */
const bindingOf = (c: ChargeRecord) => [c.status, c.reference, c.idempotency_key, c.request_fingerprint];
const extrasOf = (c: ChargeRecord) => [c.total, c.conversion, c.callback_url, c.sub_merchant_id, c.split];

describe('newCharge: every charge drafted in one place, from what its origin brings', () => {
  it('a one-time charge is bound to its key, reference and fingerprint, and waits for its processor', () => {
    const split = { commission_rate: '0.1', commission_source: 'merchant' };
    const usd = { amount: 333, currency: 'USD' };
    const charge = newCharge(
      {
        ...basis,
        kind: 'one_time',
        idempotency_key: 'k1',
        reference: 'order-42',
        request_fingerprint: 'fp',
        total: usd,
        conversion: null,
        callback_url: 'https://shop.example/cb',
        sub_merchant_id: 2000,
        split,
      },
      NOW,
    );
    expect(bindingOf(charge)).toEqual(['initializing', 'order-42', 'k1', 'fp']);
    expect(extrasOf(charge)).toEqual([usd, null, 'https://shop.example/cb', 2000, split]);
  });

  it('a checkout payment is bound to its session (the reference), returns to its success URL, keeps its split', () => {
    const charge = newCharge(
      {
        ...basis,
        kind: 'checkout',
        session_id: 'cs_1',
        success_url: 'https://s.example/ok',
        sub_merchant_id: 2000,
        split: { commission_rate: '0.1', commission_source: 'merchant' },
      },
      NOW,
    );
    expect(bindingOf(charge)).toEqual(['pending', 'cs_1', null, '']);
    expect(extrasOf(charge)).toEqual([
      NGN,
      null,
      'https://s.example/ok',
      2000,
      { commission_rate: '0.1', commission_source: 'merchant' },
    ]);
  });

  it('an off-session charge is bound to its key, which is also its reference', () => {
    const charge = newCharge(
      { ...basis, kind: 'off_session', idempotency_key: 'sub:1', request_fingerprint: 'fp' },
      NOW,
    );
    expect(bindingOf(charge)).toEqual(['pending', 'sub:1', 'sub:1', 'fp']);
    expect(extrasOf(charge)).toEqual([NGN, null, '', null, null]);
  });

  it('starts every charge with fresh ids and nothing from a processor, a completion or a refund', () => {
    const a = newCharge(
      { ...basis, kind: 'checkout', session_id: 'cs_1', success_url: '', sub_merchant_id: null, split: null },
      NOW,
    );
    const b = newCharge(
      { ...basis, kind: 'checkout', session_id: 'cs_1', success_url: '', sub_merchant_id: null, split: null },
      NOW,
    );
    expect(a.charge_id).toMatch(/^ch_/);
    expect(a.transaction_id).toMatch(/^txn_/);
    expect([a.charge_id, a.transaction_id]).not.toEqual([b.charge_id, b.transaction_id]);
    expect([a.merchant_id, a.mode, a.description, a.metadata]).toEqual([1000, 'sandbox', 'Sourdough', { order: 42 }]);
    const processorData = ['processor_reference', 'client_secret', 'publishable_key', 'gateway_account_id'] as const;
    expect(processorData.map((field) => a[field])).toEqual([null, null, null, null]);
    expect([a.failure_reason, a.completed_at, a.refunds, a.amount_refunded, a.refunded, a.refund_version]).toEqual([
      null,
      null,
      [],
      { amount: 0, currency: 'NGN' },
      false,
      0,
    ]);
    expect(a.amount_disputed).toEqual({ amount: 0, currency: 'NGN' });
    expect([a.attempts, a.created_at, a.updated_at]).toEqual([1, NOW, NOW]);
  });
});
