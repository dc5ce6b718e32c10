import { EMPTY_EVIDENCE, newDispute, type DisputeRecord } from '../../disputes/dispute';
import { stripeClient } from '@ppay/stripe-support';
import { ModeDisputeProcessors } from '../../disputes/dispute-processors';
import { SandboxDisputeProcessors } from '../../disputes/sandbox-disputes.adapter';
import { disputeCloseKey, evidenceSubmitKey, StripeDisputeProcessor, stripeEvidence } from './stripe-disputes.adapter';
import { scriptedStripe, stripeError, type Script } from './stripe.test-util';

/**
 * The live side of disputes on Stripe through the real library, against a scripted Stripe: evidence
 * mapped to Stripe's fields and submitted, acceptance closing the dispute, each under its key.
 */
function liveDispute(changes: Partial<DisputeRecord> = {}): DisputeRecord {
  const d = newDispute(
    {
      charge_id: 'ch_live_1',
      merchant_id: 1000,
      sub_merchant_id: null,
      mode: 'live',
      amount: { amount: 2_500, currency: 'USD' },
      reason: 'fraudulent',
      source: 'processor',
      processor: { reference: 'du_123', evidence_due_by: new Date('2026-12-31T00:00:00Z') },
    },
    new Date('2026-12-01T10:00:00Z'),
  );
  return { ...d, dispute_id: 'dp_unit_1', status: 'needs_response', ...changes };
}

const EVIDENCE = {
  ...EMPTY_EVIDENCE,
  customer_name: 'Ada Lovelace',
  customer_email: 'ada@example.com',
  product_description: 'A brass calculating engine',
  shipping_carrier: 'DHL',
  shipping_tracking_number: '1Z999',
  shipping_date: '2026-11-20',
  service_date: '2026-11-21',
  refund_policy: 'Refunds within 30 days',
  cancellation_policy: 'Cancel any time before shipping',
  receipt_url: 'https://shop.example/receipts/42',
  uncategorized_text: 'The customer signed for it.',
};

const disputeAt = (status: string) => ({ status: 200, json: { id: 'du_123', object: 'dispute', status } });

async function withStripe(script: Script, run: (t: Awaited<ReturnType<typeof setup>>) => Promise<void>) {
  const t = await setup(script);
  try {
    await run(t);
  } finally {
    await t.stripe.close();
  }
}

async function setup(script: Script) {
  const stripe = await scriptedStripe(script);
  const calls: string[] = [];
  let authFailures = 0;
  const processor = new StripeDisputeProcessor(stripeClient(stripe.settings()), {
    call: (op, outcome) => calls.push(`${op}:${outcome}`),
    authFailure: () => authFailures++,
  });
  return { stripe, processor, calls, authFailures: () => authFailures };
}

const form = (body: string) => Object.fromEntries(new URLSearchParams(body));

describe('Stripe dispute processor', () => {
  it('maps every evidence field to the Stripe field that corresponds, and leaves unset ones out', () => {
    expect(stripeEvidence(EVIDENCE)).toEqual({
      customer_name: 'Ada Lovelace',
      customer_email_address: 'ada@example.com',
      product_description: 'A brass calculating engine',
      shipping_carrier: 'DHL',
      shipping_tracking_number: '1Z999',
      shipping_date: '2026-11-20',
      service_date: '2026-11-21',
      refund_policy_disclosure: 'Refunds within 30 days',
      cancellation_policy_disclosure: 'Cancel any time before shipping',
      uncategorized_text: 'The customer signed for it.\n\nReceipt: https://shop.example/receipts/42',
    });
    expect(stripeEvidence({ ...EMPTY_EVIDENCE, customer_name: 'Ada' })).toEqual({ customer_name: 'Ada' });
    expect(stripeEvidence({ ...EMPTY_EVIDENCE, receipt_url: 'https://r.example/1' })).toEqual({
      uncategorized_text: 'Receipt: https://r.example/1',
    });
  });

  it("puts the receipt in product_description when uncategorized_text has no room left under Stripe's limit", () => {
    const full = 'x'.repeat(19_990);
    const mapped = stripeEvidence({ ...EMPTY_EVIDENCE, uncategorized_text: full, receipt_url: 'https://r.example/1' });
    expect(mapped).toEqual({ uncategorized_text: full, product_description: 'Receipt: https://r.example/1' });
  });

  it('submits the evidence in one update under the dispute’s submit key, and announces no outcome', async () => {
    await withStripe(
      () => disputeAt('under_review'),
      async ({ stripe, processor, calls }) => {
        expect(await processor.submitEvidence(liveDispute({ evidence: EVIDENCE }))).toEqual({
          scheduled_outcome: null,
        });
        expect(stripe.seen).toHaveLength(1);
        const [update] = stripe.seen;
        expect(update).toMatchObject({ method: 'POST', path: '/v1/disputes/du_123' });
        expect(update!.headers['idempotency-key']).toBe(evidenceSubmitKey('dp_unit_1'));
        expect(update!.headers['idempotency-key']).toBe('ppay_dp_unit_1_submit');
        expect(form(update!.body)).toMatchObject({
          submit: 'true',
          'evidence[customer_email_address]': 'ada@example.com',
          'evidence[refund_policy_disclosure]': 'Refunds within 30 days',
          'evidence[uncategorized_text]': 'The customer signed for it.\n\nReceipt: https://shop.example/receipts/42',
        });
        expect(calls).toEqual(['disputes.update:ok']);
      },
    );
  });

  it('accepts by closing the dispute at Stripe under the dispute’s close key', async () => {
    await withStripe(
      () => disputeAt('lost'),
      async ({ stripe, processor, calls }) => {
        await processor.accept(liveDispute());
        expect(stripe.seen.map((r) => `${r.method} ${r.path} ${r.headers['idempotency-key']}`)).toEqual([
          `POST /v1/disputes/du_123/close ${disputeCloseKey('dp_unit_1')}`,
        ]);
        expect(disputeCloseKey('dp_unit_1')).toBe('ppay_dp_unit_1_close');
        expect(calls).toEqual(['disputes.close:ok']);
      },
    );
  });

  it.each([
    ["Stripe's 5xx", stripeError(503, 'api_error'), 'SERVICE_UNAVAILABLE', 0],
    ['a refused key', stripeError(401, 'invalid_request_error'), 'SERVICE_UNAVAILABLE', 1],
    ['a refused request', stripeError(400, 'invalid_request_error', { code: 'resource_missing' }), 'INTERNAL', 0],
  ])('maps %s to %s, with the key in no message', async (_what, answer, code, alerts) => {
    await withStripe(
      () => answer,
      async ({ processor, authFailures }) => {
        for (const attempt of [
          () => processor.accept(liveDispute()),
          () => processor.submitEvidence(liveDispute({ evidence: EVIDENCE })),
        ]) {
          const err = await attempt().then(
            () => null,
            (e: unknown) => e as Error & { code: string },
          );
          expect(err).toMatchObject({ code });
          expect(JSON.stringify({ ...err, message: err!.message })).not.toMatch(/sk_test/);
        }
        expect(authFailures()).toBe(alerts * 2);
      },
    );
  });

  it.each([
    ['evidence already submitted in Stripe’s dashboard', 'under_review', 'DISPUTE_EVIDENCE_SUBMITTED'],
    ['the dispute decided meanwhile', 'lost', 'DISPUTE_CLOSED'],
  ])('a refusal because of %s is the partner’s 409 %s, read back from Stripe', async (_what, status, code) => {
    const refused = stripeError(400, 'invalid_request_error', { code: 'resource_missing' });
    await withStripe(
      (req) => (req.method === 'GET' ? disputeAt(status) : refused),
      async ({ processor, calls }) => {
        await expect(processor.accept(liveDispute())).rejects.toMatchObject({ code });
        await expect(processor.submitEvidence(liveDispute({ evidence: EVIDENCE }))).rejects.toMatchObject({ code });
        expect(calls).toContain('disputes.retrieve:ok');
      },
    );
  });

  it('refuses a live dispute with no Stripe dispute to answer, calling nothing', async () => {
    await withStripe(
      () => disputeAt('lost'),
      async ({ stripe, processor }) => {
        await expect(processor.accept(liveDispute({ processor_reference: null }))).rejects.toMatchObject({
          code: 'INTERNAL',
        });
        expect(stripe.seen).toHaveLength(0);
      },
    );
  });

  it('sends live disputes to the live processor only; sandbox ones never leave, live ones without Stripe are refused', async () => {
    const live = { submitted: 0, submitEvidence: async () => (live.submitted++, { scheduled_outcome: null }) };
    const withLive = new ModeDisputeProcessors(new SandboxDisputeProcessors(0), { ...live, accept: async () => {} });
    const evidence = { ...EMPTY_EVIDENCE, uncategorized_text: 'winning_evidence' };
    expect(await withLive.forMode('sandbox').submitEvidence(liveDispute({ mode: 'sandbox', evidence }))).toEqual({
      scheduled_outcome: { status: 'won', after_ms: 0 },
    });
    await withLive.forMode('live').submitEvidence(liveDispute());
    expect(live.submitted).toBe(1);
    const without = new ModeDisputeProcessors(new SandboxDisputeProcessors(0), null);
    await expect(without.forMode('live').accept(liveDispute())).rejects.toMatchObject({
      code: 'GATEWAY_NOT_CONFIGURED',
    });
  });
});
