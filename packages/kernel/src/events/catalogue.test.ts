import { upcast, type PaymentOutcomeV1, type PaymentOutcomeV2, type PaymentOutcomeV3 } from '.';

const ngn = (amount: number) => ({ amount, currency: 'NGN' });
const v1: PaymentOutcomeV1 = {
  charge_id: 'ch_1',
  transaction_id: 'txn_1',
  merchant_id: 7,
  status: 'succeeded',
  payment_type: 'one_time',
  gateway: 'naira_gateway',
  reference: null,
  amount: ngn(100),
  total: ngn(100),
  transaction_fee: ngn(2),
  customer_pays_fees: false,
  breakdown: {
    customer_paid: ngn(100),
    merchant_gross: ngn(100),
    merchant_net: ngn(98),
    fees: { platform_fee: ngn(2), gateway_fee: ngn(0), total: ngn(2) },
  },
  customer: { email: 'a@example.com', first_name: '', last_name: '', country: 'NG' },
  sub_merchant_id: null,
  failure_reason: null,
  completed_at: '2026-01-01T00:00:00.000Z',
};

describe('payment outcomes read from the stream are the current version (V3, issue 26)', () => {
  it('V1 and V2 gain installment: null; V3 is left as it is', () => {
    const v2: PaymentOutcomeV2 = {
      ...v1,
      session_id: 'cs_1',
      product: null,
      subscription_frequency_key: null,
      metadata: {},
    };
    expect(upcast('payments.payment.succeeded', v1)).toMatchObject({ session_id: null, installment: null });
    expect(upcast('payments.payment.failed', v2)).toEqual({ ...v2, installment: null });
    const v3: PaymentOutcomeV3 = {
      ...v2,
      payment_type: 'installment',
      installment: { plan_id: 'ip_1', number: 2, count: 3, amount_remaining: ngn(50) },
    };
    expect(upcast('payments.payment.succeeded', v3)).toBe(v3);
  });
});
