import Stripe from 'stripe';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startStripeMock, testStripeKeys, type StripeMock } from '../support/stripe-mock';

/**
 * A live card charge end to end on the platform configured for Stripe (stripe-mock behind
 * STRIPE_API_BASE): the partner gets what Stripe's form needs, and Stripe's signed event, posted to
 * the inbound route, settles the charge, credits the live wallet and lands in the event log, once.
 */
const KEYS = testStripeKeys();
const WEBHOOK_SECRET = KEYS.webhookSecret;

describe('live card payments on Stripe', () => {
  let mock: StripeMock;
  let t: TestPlatform;

  beforeAll(async () => {
    // A real card refund starts pending at Stripe (stripe-mock's fixture says succeeded).
    mock = await startStripeMock({
      patch: (r) => (r.method === 'POST' && r.path === '/v1/refunds' ? { status: 'pending' } : undefined),
    });
    t = await startTestPlatform('stripe-payments', {
      envFor: {
        payments: {
          STRIPE_SECRET_KEY: KEYS.secretKey,
          STRIPE_PUBLISHABLE_KEY: KEYS.publishableKey,
          STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
          STRIPE_API_BASE: mock.url,
          STRIPE_MAX_NETWORK_RETRIES: '0',
        },
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await mock?.stop();
  });

  const partner = (key: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });
  const postEvent = (payload: string, signature: string) =>
    http(t.url, 'POST', '/api/v1/processors/stripe/webhooks', {
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      rawBody: payload,
    });

  it('a live USD charge is a PaymentIntent; its signed success settles it and credits the live wallet once', async () => {
    const m = await t.merchant({ country: 'US', currency: 'USD' });
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': m.user_token },
      body: { type: 'live' },
    });
    expect(live.status).toBe(201);
    const key = live.body.data.api_key as string;

    const created = await partner(key, 'POST', '/payments/charge', {
      amount: 2_500,
      currency: 'USD',
      total_amount: 2_500,
      total_currency: 'USD',
      customer: { email: 'buyer@example.com' },
    });
    expect(created.status).toBe(200);
    const charge = created.body.data;
    expect(charge).toMatchObject({
      payment_gateway: 'card_gateway',
      publishable_key: KEYS.publishableKey,
      gateway_account_id: expect.stringMatching(/^acct_/),
      client_secret: expect.stringMatching(/^pi_\w+_secret_\w+$/),
    });
    // The event Stripe would send for it: the PaymentIntent it made, with what it was asked for and our metadata.
    const create = mock.requests.find(
      (r) => r.path === '/v1/payment_intents' && r.form['metadata[charge_id]'] === charge.charge_id,
    )!;
    expect(create).toMatchObject({ method: 'POST', status: 200 });
    // stripe-mock's fixture ids are not tied to its client secret: the id the charge recorded is the one.
    const stored = await (await t.db('payments')).collection('charges').findOne({ _id: charge.charge_id });
    const paymentIntent = stored!.processor_reference as string;
    expect(paymentIntent).toMatch(/^pi_/);
    const asked = { amount: Number(create.form.amount), currency: create.form.currency! };
    const payload = JSON.stringify({
      id: 'evt_e2e_succeeded',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: paymentIntent,
          object: 'payment_intent',
          amount: asked.amount,
          currency: asked.currency,
          status: 'succeeded',
          metadata: { charge_id: charge.charge_id, merchant_id: String(m.merchant_id), mode: 'live' },
          last_payment_error: null,
        },
      },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });

    const forged = await postEvent(payload, Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_x' }));
    expect([forged.status, forged.body.error?.code]).toEqual([400, 'PROCESSOR_SIGNATURE_INVALID']);
    const tampered = await postEvent(payload.replace(`"amount":${asked.amount}`, '"amount":1'), signature);
    expect(tampered.status).toBe(400);

    const first = await postEvent(payload, signature);
    expect([first.status, first.body]).toEqual([200, { received: true, outcome: 'received' }]);
    const settled = async () => (await partner(key, 'GET', `/payments/charges/${charge.charge_id}`)).body.data;
    expect(await eventually(async () => (await settled()).status === 'succeeded', 10_000)).toBe(true);
    expect((await settled()).gateway_reference).toBe(paymentIntent);

    const credited = async () => (await t.walletBalances(m.merchant_id, 'live')).find((b) => b.currency === 'USD');
    expect(await eventually(async () => (await credited())?.transaction_count === 1, 10_000)).toBe(true);
    const wallet = (await credited())!;
    expect(wallet.balance).toBeGreaterThan(0);
    // Live money only: the merchant's sandbox wallets are untouched.
    expect((await t.walletBalances(m.merchant_id, 'sandbox')).filter((b) => b.transaction_count > 0)).toEqual([]);

    const events = async () =>
      (await partner(key, 'GET', '/events?type=payment.succeeded')).body.data.events as { data: unknown }[];
    expect(await eventually(async () => (await events()).length === 1, 10_000)).toBe(true);
    expect(JSON.stringify((await events())[0])).toContain(charge.charge_id);

    // Stripe delivers again: acknowledged, no second effect.
    const again = await postEvent(payload, signature);
    expect([again.status, again.body.outcome]).toEqual([200, 'duplicate']);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await credited()).toEqual(wallet);
    expect(await events()).toHaveLength(1);
  });

  /** A merchant with a live key and a live USD charge that Stripe's signed event settled. */
  async function settledLiveCharge(amount: number) {
    const m = await t.merchant({ country: 'US', currency: 'USD' });
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': m.user_token },
      body: { type: 'live' },
    });
    const key = live.body.data.api_key as string;
    const created = await partner(key, 'POST', '/payments/charge', {
      amount,
      currency: 'USD',
      total_amount: amount,
      total_currency: 'USD',
      customer: { email: 'buyer@example.com' },
    });
    expect(created.status).toBe(200);
    const chargeId = created.body.data.charge_id as string;
    const stored = await (
      await t.db('payments')
    )
      .collection<{
        _id: string;
        processor_reference: string;
        refunds: { refund_id: string; processor_reference: string }[];
      }>('charges')
      .findOne({ _id: chargeId });
    const payload = JSON.stringify({
      id: `evt_paid_${chargeId}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: stored!.processor_reference,
          object: 'payment_intent',
          amount,
          currency: 'usd',
          status: 'succeeded',
          metadata: { charge_id: chargeId, merchant_id: String(m.merchant_id), mode: 'live' },
          last_payment_error: null,
        },
      },
    });
    expect((await postEvent(payload, sign(payload))).status).toBe(200);
    const credits = async () => (await ledger(chargeId)).filter((e) => e.kind === 'credit');
    expect(await eventually(async () => (await credits()).length > 0, 10_000)).toBe(true);
    return { m, key, chargeId, paymentIntent: stored!.processor_reference };
  }
  const sign = (payload: string) => Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  const ledger = async (chargeId: string) =>
    (await t.db('payments')).collection('ledger_entries').find({ charge_id: chargeId }).toArray();

  it('a live refund is a Stripe Refund, pending until its signed event settles it: reversed once, logged', async () => {
    const { m, key, chargeId, paymentIntent } = await settledLiveCharge(4_000);
    const posted = await http(t.url, 'POST', `/api/v1/partner/payments/charges/${chargeId}/refunds`, {
      headers: { 'x-api-key': key, 'idempotency-key': 'live-refund-1' },
      body: { amount: 1_000, reason: 'damaged' },
    });
    expect([posted.status, posted.body.error, posted.body.data?.status, posted.body.data?.amount]).toEqual([
      200,
      undefined,
      'pending',
      1_000,
    ]);
    const refundId = posted.body.data.refund_id as string;
    const create = mock.requests.find((r) => r.path === '/v1/refunds' && r.form['metadata[refund_id]'] === refundId)!;
    expect(create).toMatchObject({ method: 'POST', status: 200 });
    expect(create.form).toMatchObject({ payment_intent: paymentIntent, amount: '1000' });
    expect(create.headers['idempotency-key']).toBe(`ppay_${refundId}_refund`);
    const stored = await (
      await t.db('payments')
    )
      .collection<{
        _id: string;
        processor_reference: string;
        refunds: { refund_id: string; processor_reference: string }[];
      }>('charges')
      .findOne({ _id: chargeId });
    const reference = stored!.refunds.find((r) => r.refund_id === refundId)!.processor_reference;
    expect(reference).toMatch(/^re_/);
    // Nothing is reversed while Stripe has not settled it.
    await new Promise((r) => setTimeout(r, 500));
    expect((await ledger(chargeId)).filter((e) => e.kind === 'debit')).toEqual([]);

    const payload = JSON.stringify({
      id: `evt_refund_${refundId}`,
      object: 'event',
      type: 'refund.updated',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: reference,
          object: 'refund',
          amount: 1_000,
          currency: 'usd',
          status: 'succeeded',
          payment_intent: paymentIntent,
          failure_reason: null,
          metadata: { refund_id: refundId, charge_id: chargeId, merchant_id: String(m.merchant_id), mode: 'live' },
        },
      },
    });
    const first = await postEvent(payload, sign(payload));
    expect([first.status, first.body.outcome]).toEqual([200, 'received']);
    const refunds = async () => (await partner(key, 'GET', `/payments/charges/${chargeId}/refunds`)).body.data;
    expect(await eventually(async () => (await refunds()).refunds[0]?.status === 'succeeded', 10_000)).toBe(true);
    expect((await refunds()).amount_refunded).toBe(1_000);
    const debits = async () => (await ledger(chargeId)).filter((e) => e.kind === 'debit');
    expect(await eventually(async () => (await debits()).length > 0, 10_000)).toBe(true);
    expect((await debits()).map((d) => d.reason)).toEqual(['refund']);
    const logged = async () =>
      (await partner(key, 'GET', '/events?type=payment.refunded')).body.data.events as { data: unknown }[];
    expect(await eventually(async () => (await logged()).length === 1, 10_000)).toBe(true);
    expect(JSON.stringify((await logged())[0])).toContain(refundId);

    // Stripe delivers again: acknowledged, nothing reversed twice.
    const again = await postEvent(payload, sign(payload));
    expect([again.status, again.body.outcome]).toEqual([200, 'duplicate']);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await debits()).toHaveLength(1);
    expect(await logged()).toHaveLength(1);
  });
});
