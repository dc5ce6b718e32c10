import { money } from '@ppay/kernel';
import type { RefundIntent } from '../ports';
import { refundKey } from './stripe-payments.adapter';
import { gateway, scriptedStripe, stripeError, type Script } from './stripe.test-util';

/** Live refunds through the real library against a scripted Stripe (see stripe.test-util). */
const REFUND: RefundIntent = {
  refund_id: 're_ours_1',
  charge_id: 'ch_unit_1',
  merchant_id: 1001,
  mode: 'live',
  processor_reference: 'pi_123',
  amount: money(1_000, 'USD'),
  reason: 'damaged in transit',
  refund_reference: null,
  asked_before: false,
};
const stripeRefund = (status: string, extra: Record<string, unknown> = {}) => ({
  status: 200,
  json: { id: 're_stripe_1', object: 'refund', amount: 1_000, currency: 'usd', status, ...extra },
});
const form = (body: string) => Object.fromEntries(new URLSearchParams(body));

async function withStripe(script: Script, run: (s: Awaited<ReturnType<typeof scriptedStripe>>) => Promise<void>) {
  const stripe = await scriptedStripe(script);
  try {
    await run(stripe);
  } finally {
    await stripe.close();
  }
}

describe('Stripe card gateway: refunds', () => {
  it('offers refunds to the registry', async () => {
    await withStripe(
      () => stripeRefund('pending'),
      async (stripe) => expect(gateway(stripe.settings()).adapter.features).toContain('refunds'),
    );
  });

  it('creates one Refund of the PaymentIntent under a key of our refund, with our metadata and no reason', async () => {
    await withStripe(
      () => stripeRefund('pending'),
      async (stripe) => {
        const { adapter, calls } = gateway(stripe.settings());
        expect(await adapter.refund(REFUND)).toEqual({ status: 'pending', processor_reference: 're_stripe_1' });
        const [create] = stripe.seen;
        expect(create).toMatchObject({ method: 'POST', path: '/v1/refunds' });
        expect(create!.headers['idempotency-key']).toBe(refundKey('re_ours_1'));
        expect(create!.headers['idempotency-key']).toBe('ppay_re_ours_1_refund');
        expect(form(create!.body)).toEqual({
          payment_intent: 'pi_123',
          amount: '1000',
          'metadata[refund_id]': 're_ours_1',
          'metadata[charge_id]': 'ch_unit_1',
          'metadata[merchant_id]': '1001',
          'metadata[mode]': 'live',
        });
        expect(calls).toEqual(['refunds.create:ok']);
      },
    );
  });

  it.each([
    ['succeeded', { status: 'succeeded', processor_reference: 're_stripe_1' }],
    ['requires_action', { status: 'pending', processor_reference: 're_stripe_1' }],
    ['failed', { status: 'failed', failure_reason: 'expired_or_canceled_card' }],
    ['canceled', { status: 'failed', failure_reason: 'canceled' }],
  ])("answers Stripe's %s as %j", async (status, answer) => {
    const extra = status === 'failed' ? { failure_reason: 'expired_or_canceled_card' } : {};
    await withStripe(
      () => stripeRefund(status, extra),
      async (stripe) => expect(await gateway(stripe.settings()).adapter.refund(REFUND)).toEqual(answer),
    );
  });

  it('reads a refund whose Stripe id is known back rather than creating it again', async () => {
    await withStripe(
      () => stripeRefund('succeeded'),
      async (stripe) => {
        const answer = await gateway(stripe.settings()).adapter.refund({
          ...REFUND,
          refund_reference: 're_stripe_1',
          asked_before: true,
        });
        expect(answer).toEqual({ status: 'succeeded', processor_reference: 're_stripe_1' });
        expect(stripe.seen.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/refunds/re_stripe_1']);
      },
    );
  });

  it('asked again without an answer, finds the refund by our metadata before any create (keys expire)', async () => {
    const listed = (refundId: string) => ({
      status: 200,
      json: {
        object: 'list',
        has_more: false,
        url: '/v1/refunds',
        data: [{ ...stripeRefund('succeeded').json, metadata: { refund_id: refundId } }],
      },
    });
    await withStripe(
      (req) => (req.method === 'GET' ? listed('re_ours_1') : stripeRefund('pending')),
      async (stripe) => {
        const answer = await gateway(stripe.settings()).adapter.refund({ ...REFUND, asked_before: true });
        expect(answer).toEqual({ status: 'succeeded', processor_reference: 're_stripe_1' });
        expect(stripe.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
          'GET /v1/refunds?payment_intent=pi_123&limit=100',
        ]);
      },
    );
    // Not among them (the earlier attempt never reached Stripe): created under its key.
    await withStripe(
      (req) => (req.method === 'GET' ? listed('re_someone_else') : stripeRefund('pending')),
      async (stripe) => {
        const answer = await gateway(stripe.settings()).adapter.refund({ ...REFUND, asked_before: true });
        expect(answer).toEqual({ status: 'pending', processor_reference: 're_stripe_1' });
        expect(stripe.seen.map((r) => r.method)).toEqual(['GET', 'POST']);
        expect(stripe.seen[1]!.headers['idempotency-key']).toBe(refundKey('re_ours_1'));
      },
    );
  });

  it("retries Stripe's 503 itself under the same key, then answers SERVICE_UNAVAILABLE (nothing happened)", async () => {
    await withStripe(
      () => stripeError(503, 'api_error'),
      async (stripe) => {
        const { adapter, calls } = gateway(stripe.settings({ maxNetworkRetries: 1, timeoutMs: 2_000 }));
        await expect(adapter.refund(REFUND)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
        expect(stripe.seen.map((r) => r.headers['idempotency-key'])).toEqual([
          refundKey('re_ours_1'),
          refundKey('re_ours_1'),
        ]);
        expect(calls).toEqual(['refunds.create:unavailable']);
      },
    );
  });

  it('no answer in time is an unknown outcome (UPSTREAM_TIMEOUT), never a failed refund', async () => {
    await withStripe(
      () => ({ status: 0, hang: true }),
      async (stripe) => {
        const { adapter, calls } = gateway(stripe.settings({ timeoutMs: 150 }));
        await expect(adapter.refund(REFUND)).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
        expect(calls).toEqual(['refunds.create:timeout']);
      },
    );
  });

  it('a refusal (already refunded at Stripe, a bad parameter) is our bug: INTERNAL, not a decline', async () => {
    await withStripe(
      () => stripeError(400, 'invalid_request_error', { code: 'charge_already_refunded' }),
      async (stripe) => {
        await expect(gateway(stripe.settings()).adapter.refund(REFUND)).rejects.toMatchObject({ code: 'INTERNAL' });
      },
    );
  });

  it('refuses a sandbox refund or one without a PaymentIntent, without calling Stripe', async () => {
    await withStripe(
      () => stripeRefund('pending'),
      async (stripe) => {
        const { adapter } = gateway(stripe.settings());
        await expect(adapter.refund({ ...REFUND, mode: 'sandbox' })).rejects.toMatchObject({ code: 'INTERNAL' });
        await expect(adapter.refund({ ...REFUND, processor_reference: null })).rejects.toMatchObject({
          code: 'INTERNAL',
        });
        expect(stripe.seen).toHaveLength(0);
      },
    );
  });
});
