import { PlatformError } from '@ppay/kernel';
import { SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const url = (chargeId = 'ch_1') => `/api/v1/partner/payments/charges/${chargeId}/refunds`;
const headers = { 'x-api-key': SANDBOX_KEY };

/** What payments sends: proto3 optionals absent when null, the amount as Money. */
const wireRefund = {
  refund_id: 're_1',
  charge_id: 'ch_1',
  amount: { amount: 2500, currency: 'NGN' },
  status: 'succeeded',
  reason: 'damaged',
  created_at: '2026-11-01T10:00:00.000Z',
};
/** The REST refund partners see: flat amount and currency. */
const restRefund = { ...wireRefund, amount: 2500, currency: 'NGN' };

describe('refund routes over a fake payments service', () => {
  it('passes amount, reason and the Idempotency-Key through and answers the refund (absent optionals as null)', async () => {
    const t = await testGateway({ payments: { CreateRefund: () => ({ refund: wireRefund, replayed: false }) } });
    const res = await t.app.inject({
      method: 'POST',
      url: url(),
      headers: { ...headers, 'idempotency-key': 'rf-1' },
      payload: { amount: 2500, reason: 'damaged' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      data: { ...restRefund, failure_reason: null },
    });
    expect(t.calls[0]).toMatchObject({
      service: 'payments',
      method: 'CreateRefund',
      merchantId: '1000',
      mode: 'sandbox',
      request: {
        charge_id: 'ch_1',
        amount: { amount: 2500, currency: '' },
        reason: 'damaged',
        idempotency_key: 'rf-1',
      },
    });
  });

  it('takes no body for a full refund', async () => {
    const t = await testGateway({ payments: { CreateRefund: () => ({ refund: wireRefund, replayed: false }) } });
    const res = await t.app.inject({ method: 'POST', url: url(), headers });
    expect(res.statusCode).toBe(200);
    expect(t.calls[0]!.request).toMatchObject({ charge_id: 'ch_1', amount: undefined });
  });

  it('replays the stored answer for the same Idempotency-Key, and refuses the key with another body (422)', async () => {
    let n = 0;
    const t = await testGateway({
      payments: { CreateRefund: () => ({ refund: { ...wireRefund, refund_id: `re_${++n}` }, replayed: false }) },
    });
    const send = (amount: number) =>
      t.app.inject({
        method: 'POST',
        url: url(),
        headers: { ...headers, 'idempotency-key': 'same' },
        payload: { amount },
      });
    const first = await send(2500);
    const second = await send(2500);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().data.refund_id).toBe(first.json().data.refund_id);
    expect(t.calls).toHaveLength(1);
    expect((await send(10)).statusCode).toBe(422);
  });

  it('refuses bad bodies before calling payments', async () => {
    const t = await testGateway({ payments: {} });
    for (const payload of [{ amount: 0 }, { amount: -5 }, { amount: 1.5 }, { reason: 'x'.repeat(501) }, { extra: 1 }]) {
      const res = await t.app.inject({ method: 'POST', url: url(), headers, payload });
      expect(res.statusCode).toBe(400);
    }
    const long = await t.app.inject({ method: 'POST', url: url('c'.repeat(65)), headers, payload: {} });
    expect(long.statusCode).toBe(400);
    expect(t.calls).toHaveLength(0);
  });

  it('maps the refund errors: over-refund and not refundable 400, unknown charge 404', async () => {
    const errors: Record<string, PlatformError> = {
      ch_over: new PlatformError('REFUND_EXCEEDS_CHARGE', undefined, { param: 'amount' }),
      ch_pending: new PlatformError('CHARGE_NOT_REFUNDABLE', undefined, { param: 'charge_id' }),
      ch_done: new PlatformError('CHARGE_ALREADY_REFUNDED', undefined, { param: 'charge_id' }),
      ch_other: new PlatformError('CHARGE_NOT_FOUND', undefined, { param: 'charge_id' }),
    };
    const t = await testGateway({
      payments: {
        CreateRefund: (req: { charge_id: string }) => {
          throw errors[req.charge_id]!;
        },
      },
    });
    const statusOf = async (id: string) =>
      (await t.app.inject({ method: 'POST', url: url(id), headers, payload: { amount: 1 } })).statusCode;
    expect(await statusOf('ch_over')).toBe(400);
    expect(await statusOf('ch_pending')).toBe(400);
    expect(await statusOf('ch_done')).toBe(400);
    expect(await statusOf('ch_other')).toBe(404);
  });

  it('lists a charge’s refunds with its totals', async () => {
    const t = await testGateway({
      payments: {
        ListRefunds: () => ({
          charge_id: 'ch_1',
          amount_captured: { amount: 10_000, currency: 'NGN' },
          amount_refunded: { amount: 2500, currency: 'NGN' },
          refunded: false,
          refunds: [
            wireRefund,
            { ...wireRefund, refund_id: 're_2', status: 'failed', failure_reason: 'declined_by_processor' },
          ],
        }),
      },
    });
    const res = await t.app.inject({ method: 'GET', url: url(), headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      currency: 'NGN',
      amount_captured: 10_000,
      amount_refunded: 2500,
      refunded: false,
      refunds: [
        { refund_id: 're_1', amount: 2500, currency: 'NGN', failure_reason: null },
        { refund_id: 're_2', reason: 'damaged', failure_reason: 'declined_by_processor' },
      ],
    });
    expect(t.calls[0]).toMatchObject({ method: 'ListRefunds', request: { charge_id: 'ch_1' } });
  });
});
