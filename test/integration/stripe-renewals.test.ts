import Stripe from 'stripe';
import { newRequestId } from '@ppay/kernel';
import { loadPlatformProto, type types } from '@ppay/proto';
import { callerToMetadata, ServiceClient } from '@ppay/runtime';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startStripeMock, stripeEventJson, testStripeKeys, type StripeMock } from '../support/stripe-mock';

/**
 * Live off-session charges (what subscriptions asks for a renewal or an installment part) on the platform
 * configured for Stripe, against stripe-mock (docs/decisions.md S36–S39): payments' own wiring charges a
 * payment method saved at Stripe (inserted as a live checkout will save it), records the PaymentIntent,
 * credits the live wallet once, refunds by that PaymentIntent, and Stripe's own event is a duplicate.
 */
const KEYS = testStripeKeys();

/** Saved methods whose off-session PaymentIntent the issuer wants authenticated (Stripe answers it declined). */
const NEEDS_AUTHENTICATION = 'pm_card_needs_auth';

describe('live renewals on Stripe', () => {
  let mock: StripeMock;
  let t: TestPlatform;
  let payments: ServiceClient<types.payments.PaymentsServiceClient>;

  beforeAll(async () => {
    mock = await startStripeMock({
      // stripe-mock's PaymentIntent fixture awaits a payment method and is for its own amount: what a real
      // confirmed off-session create answers is laid over it.
      patch: (r) => {
        if (r.method === 'POST' && r.path === '/v1/refunds') return { status: 'pending' };
        if (r.method !== 'POST' || r.path !== '/v1/payment_intents' || r.form.off_session !== 'true') return undefined;
        const asked = { amount: Number(r.form.amount), currency: r.form.currency };
        return r.form.payment_method === NEEDS_AUTHENTICATION
          ? {
              ...asked,
              status: 'requires_payment_method',
              last_payment_error: { type: 'card_error', code: 'authentication_required' },
            }
          : { ...asked, status: 'succeeded' };
      },
    });
    t = await startTestPlatform('stripe-renewals', {
      envFor: {
        payments: {
          STRIPE_SECRET_KEY: KEYS.secretKey,
          STRIPE_PUBLISHABLE_KEY: KEYS.publishableKey,
          STRIPE_WEBHOOK_SECRET: KEYS.webhookSecret,
          STRIPE_API_BASE: mock.url,
          STRIPE_MAX_NETWORK_RETRIES: '0',
        },
      },
    });
    payments = new ServiceClient(
      'payments',
      loadPlatformProto().ppay.payments.v1.PaymentsService,
      t.platform.grpcAddress('payments'),
      { deadlineMs: 10_000 },
    );
  });
  afterAll(async () => {
    payments?.close();
    await t?.stop();
    await mock?.stop();
  });

  /** A live merchant with a live key and a card saved at Stripe as a live checkout saves it. */
  async function liveMerchantWithSavedCard(methodReference: string) {
    const m = await t.merchant({ country: 'US', currency: 'USD' });
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': m.user_token },
      body: { type: 'live' },
    });
    const key = live.body.data.api_key as string;
    const paymentMethodId = `pm_e2e_${m.merchant_id}`;
    await (await t.db('payments')).collection('payment_methods').insertOne({
      _id: paymentMethodId as never,
      merchant_id: m.merchant_id,
      mode: 'live',
      customer_email: 'ada@example.com',
      card: {
        brand: 'visa',
        last4: '4242',
        processor: 'stripe',
        customer_reference: `cus_e2e_${m.merchant_id}`,
        method_reference: methodReference,
      },
      origin_session_id: `cs_e2e_${m.merchant_id}`,
      origin_ref: `cs_e2e_${m.merchant_id}`,
      created_at: new Date(),
    });
    return { m, key, paymentMethodId };
  }

  /** What subscriptions' renewal asks of payments (GrpcPayments.chargeSaved), as the merchant in live mode. */
  const renew = (merchantId: number, paymentMethodId: string, key: string) =>
    payments.call(
      'ChargePaymentMethod',
      {
        payment_method_id: paymentMethodId,
        price: { amount: 2_500, currency: 'USD' },
        idempotency_key: key,
        product: { title: 'Bread club', type: 'subscription' },
        subscription_frequency_key: 'monthly',
        metadata: { subscription_id: { string_value: 'sub_e2e' } },
        customer: { email: 'ada@example.com' },
        customer_present: false,
      },
      callerToMetadata({ requestId: newRequestId(), auth: 'internal', merchantId, mode: 'live' }),
    );

  const postEvent = (payload: string) =>
    http(t.url, 'POST', '/api/v1/processors/stripe/webhooks', {
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: KEYS.webhookSecret }),
      },
      rawBody: payload,
    });
  const inboxStatus = async (eventId: string) =>
    (
      await (
        await t.db('payments')
      )
        .collection<{ _id: string; status: string }>('processor_events')
        .findOne({ _id: `stripe:${eventId}` })
    )?.status;

  it('a renewal is one off-session PaymentIntent: recorded, credited once, refunded by it; its event a duplicate', async () => {
    const { m, key, paymentMethodId } = await liveMerchantWithSavedCard('pm_card_ok');
    const first = await renew(m.merchant_id, paymentMethodId, 'sub:sub_e2e:2026-12-01T10:00:00.000Z:1');
    expect(first).toMatchObject({ status: 'succeeded', replayed: false });
    const again = await renew(m.merchant_id, paymentMethodId, 'sub:sub_e2e:2026-12-01T10:00:00.000Z:1');
    expect(again).toMatchObject({ charge_id: first.charge_id, status: 'succeeded', replayed: true });
    const creates = mock.requests.filter(
      (r) => r.path === '/v1/payment_intents' && r.form['metadata[charge_id]'] === first.charge_id,
    );
    expect(creates).toHaveLength(1);
    expect(creates[0]!.form).toMatchObject({
      customer: `cus_e2e_${m.merchant_id}`,
      payment_method: 'pm_card_ok',
      off_session: 'true',
      confirm: 'true',
    });

    const charge = (
      await http(t.url, 'GET', `/api/v1/partner/payments/charges/${first.charge_id}`, {
        headers: { 'x-api-key': key },
      })
    ).body.data;
    expect(charge).toMatchObject({ status: 'succeeded', gateway_reference: expect.stringMatching(/^pi_/) });
    const paymentIntent = charge.gateway_reference as string;
    const wallet = async () => (await t.walletBalances(m.merchant_id, 'live')).find((b) => b.currency === 'USD');
    expect(await eventually(async () => (await wallet())?.transaction_count === 1, 10_000)).toBe(true);

    // Stripe's own event for it confirms what the charge recorded: nothing applied twice.
    const succeeded = stripeEventJson(`evt_renewal_${first.charge_id}`, 'payment_intent.succeeded', {
      id: paymentIntent,
      object: 'payment_intent',
      amount: Number(creates[0]!.form.amount),
      currency: 'usd',
      status: 'succeeded',
      metadata: { charge_id: first.charge_id, merchant_id: String(m.merchant_id), mode: 'live', off_session: 'true' },
      last_payment_error: null,
    });
    expect((await postEvent(succeeded)).body).toEqual({ received: true, outcome: 'received' });
    expect(
      await eventually(async () => (await inboxStatus(`evt_renewal_${first.charge_id}`)) === 'duplicate', 10_000),
    ).toBe(true);

    const refund = await http(t.url, 'POST', `/api/v1/partner/payments/charges/${first.charge_id}/refunds`, {
      headers: { 'x-api-key': key, 'idempotency-key': `renewal-refund-${first.charge_id}` },
      body: { amount: 1_000 },
    });
    expect([refund.status, refund.body.data?.status]).toEqual([200, 'pending']);
    const sent = mock.requests.find(
      (r) => r.path === '/v1/refunds' && r.form['metadata[charge_id]'] === first.charge_id,
    );
    expect(sent?.form).toMatchObject({ payment_intent: paymentIntent, amount: '1000' });
    expect((await wallet())?.transaction_count).toBe(1);
  });

  it('authentication_required: the charge fails with that code (for dunning); its payment_failed is a duplicate, never cancelled', async () => {
    const { m, key, paymentMethodId } = await liveMerchantWithSavedCard(NEEDS_AUTHENTICATION);
    const declined = await renew(m.merchant_id, paymentMethodId, 'sub:sub_e2e_auth:2026-12-01T10:00:00.000Z:1');
    expect(declined).toMatchObject({ status: 'failed', decline_code: 'authentication_required' });
    const charge = (
      await http(t.url, 'GET', `/api/v1/partner/payments/charges/${declined.charge_id}`, {
        headers: { 'x-api-key': key },
      })
    ).body.data;
    expect(charge).toMatchObject({ status: 'failed', gateway_reference: expect.stringMatching(/^pi_/) });
    const failed = stripeEventJson(`evt_renewal_failed_${declined.charge_id}`, 'payment_intent.payment_failed', {
      id: charge.gateway_reference,
      object: 'payment_intent',
      amount: 2_500,
      currency: 'usd',
      status: 'requires_payment_method',
      metadata: {
        charge_id: declined.charge_id,
        merchant_id: String(m.merchant_id),
        mode: 'live',
        off_session: 'true',
      },
      last_payment_error: { code: 'authentication_required', decline_code: 'authentication_required' },
    });
    expect((await postEvent(failed)).status).toBe(200);
    expect(
      await eventually(
        async () => (await inboxStatus(`evt_renewal_failed_${declined.charge_id}`)) === 'duplicate',
        10_000,
      ),
    ).toBe(true);
    expect(mock.requests.filter((r) => r.path.endsWith('/cancel'))).toEqual([]);
    const logged = async () =>
      (await http(t.url, 'GET', '/api/v1/partner/events?type=payment.failed', { headers: { 'x-api-key': key } })).body
        .data.events as unknown[];
    expect(await eventually(async () => (await logged()).length === 1, 10_000)).toBe(true);
  });
});
