import { PlatformError } from '@ppay/kernel';
import { LIVE_KEY, SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const partner = (path: string) => `/api/v1/partner${path}`;
const headers = { 'x-api-key': SANDBOX_KEY };
const ngn = (amount: number) => ({ amount, currency: 'NGN' });

/** What payments sends: proto3 optionals absent when null, evidence fields absent when unset. */
const wireDispute = {
  dispute_id: 'dp_1',
  charge_id: 'ch_1',
  amount: ngn(500_000),
  fee: ngn(250_000),
  reason: 'fraudulent',
  status: 'needs_response',
  evidence: { customer_name: 'Ada' },
  evidence_details: { has_evidence: true, fields_provided: ['customer_name'], submission_count: 0 },
  evidence_due_by: '2026-11-08T10:00:00.000Z',
  is_live: false,
  funds_withdrawn: [{ merchant_id: 1000, role: 'merchant', kind: 'dispute_withdrawal', amount: ngn(482_500) }],
  funds_reinstated: [],
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-01T10:00:00.000Z',
};

describe('dispute routes over a fake payments service', () => {
  it('answers a dispute with MoneyAmount objects and every absent field as null', async () => {
    const t = await testGateway({ payments: { GetDispute: () => wireDispute } });
    const res = await t.app.inject({ method: 'GET', url: partner('/disputes/dp_1'), headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      ...wireDispute,
      sub_merchant_id: null,
      evidence: {
        customer_name: 'Ada',
        customer_email: null,
        product_description: null,
        shipping_carrier: null,
        shipping_tracking_number: null,
        shipping_date: null,
        service_date: null,
        refund_policy: null,
        cancellation_policy: null,
        receipt_url: null,
        uncategorized_text: null,
      },
      evidence_submitted_at: null,
      closed_at: null,
    });
    expect(t.calls[0]).toMatchObject({ method: 'GetDispute', mode: 'sandbox', request: { dispute_id: 'dp_1' } });
  });

  it('lists with the filters and cursor it was given, and refuses a bad status or limit', async () => {
    const t = await testGateway({
      payments: { ListDisputes: () => ({ disputes: [wireDispute], has_more: true, next_cursor: 'abc' }) },
    });
    const res = await t.app.inject({
      method: 'GET',
      url: partner('/disputes?status=needs_response&charge_id=ch_1&from=2026-11-01T00:00:00Z&limit=5&cursor=xyz'),
      headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ has_more: true, next_cursor: 'abc', disputes: [{ dispute_id: 'dp_1' }] });
    expect(t.calls[0]!.request).toMatchObject({
      status: 'needs_response',
      charge_id: 'ch_1',
      from: '2026-11-01T00:00:00Z',
      limit: 5,
      cursor: 'xyz',
    });
    for (const q of ['status=open', 'limit=101', 'limit=0', `charge_id=${'c'.repeat(65)}`]) {
      const bad = await t.app.inject({ method: 'GET', url: partner(`/disputes?${q}`), headers });
      expect([q, bad.statusCode]).toEqual([q, 400]);
    }
  });

  it('sends evidence as fields to set and fields to clear, a draft unless submit is true', async () => {
    const t = await testGateway({ payments: { SubmitDisputeEvidence: () => wireDispute } });
    const draft = await t.app.inject({
      method: 'POST',
      url: partner('/disputes/dp_1/evidence'),
      headers,
      payload: { customer_name: 'Ada', shipping_carrier: null },
    });
    expect(draft.json()).toMatchObject({ success: true, message: 'Evidence saved' });
    expect(t.calls[0]!.request).toEqual({
      dispute_id: 'dp_1',
      evidence: { customer_name: 'Ada' },
      cleared: ['shipping_carrier'],
      submit: false,
    });
    const submitted = await t.app.inject({
      method: 'POST',
      url: partner('/disputes/dp_1/evidence'),
      headers,
      payload: { submit: true },
    });
    expect(submitted.json().message).toBe('Evidence submitted');
    expect(t.calls[1]!.request).toMatchObject({ submit: true, cleared: [] });
  });

  it('refuses unknown evidence fields and values over their bounds with 400, before calling payments', async () => {
    const t = await testGateway({ payments: { SubmitDisputeEvidence: () => wireDispute } });
    for (const payload of [{ notes: 'x' }, { shipping_carrier: 'x'.repeat(101) }, { uncategorized_text: 1 }]) {
      const res = await t.app.inject({ method: 'POST', url: partner('/disputes/dp_1/evidence'), headers, payload });
      expect(res.statusCode).toBe(400);
    }
    expect(t.calls).toEqual([]);
  });

  it('passes the service’s 409 through with its code', async () => {
    const t = await testGateway({
      payments: {
        AcceptDispute: () => {
          throw new PlatformError('DISPUTE_EVIDENCE_SUBMITTED', undefined, { param: 'dispute_id' });
        },
      },
    });
    const res = await t.app.inject({ method: 'POST', url: partner('/disputes/dp_1/accept'), headers });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'DISPUTE_EVIDENCE_SUBMITTED', type: 'state_conflict' });
  });

  it('routes the sandbox helpers for sandbox keys, and refuses live keys with 403 before the body', async () => {
    const t = await testGateway({
      payments: {
        OpenSandboxDispute: () => wireDispute,
        DecideSandboxDispute: () => ({ ...wireDispute, status: 'won' }),
        ExpireSandboxDispute: () => ({ ...wireDispute, status: 'lost' }),
      },
    });
    const open = await t.app.inject({
      method: 'POST',
      url: partner('/sandbox/charges/ch_1/dispute'),
      headers,
      payload: { reason: 'fraudulent', amount: 100 },
    });
    expect(open.json()).toMatchObject({ message: 'Dispute opened', data: { dispute_id: 'dp_1' } });
    await t.app.inject({ method: 'POST', url: partner('/sandbox/disputes/dp_1/won'), headers });
    await t.app.inject({ method: 'POST', url: partner('/sandbox/disputes/dp_1/expire'), headers });
    expect(t.calls.map((c) => [c.method, c.request])).toEqual([
      ['OpenSandboxDispute', { charge_id: 'ch_1', reason: 'fraudulent', amount: 100 }],
      ['DecideSandboxDispute', { dispute_id: 'dp_1', outcome: 'won' }],
      ['ExpireSandboxDispute', { dispute_id: 'dp_1' }],
    ]);
    const badReason = await t.app.inject({
      method: 'POST',
      url: partner('/sandbox/charges/ch_1/dispute'),
      headers,
      payload: { reason: 'bored' },
    });
    expect(badReason.statusCode).toBe(400);
    const live = await t.app.inject({
      method: 'POST',
      url: partner('/sandbox/charges/ch_1/dispute'),
      headers: { 'x-api-key': LIVE_KEY },
      payload: { reason: 'bored' },
    });
    expect(live.statusCode).toBe(403);
    expect(t.calls).toHaveLength(3);
  });
});
