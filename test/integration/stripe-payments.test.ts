import Stripe from 'stripe';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startStripeMock, stripeEventJson, testStripeKeys, type StripeMock } from '../support/stripe-mock';

/**
 * A live card charge end to end on the platform configured for Stripe (stripe-mock behind
 * STRIPE_API_BASE): the partner gets what Stripe's form needs, and Stripe's signed event, posted to
 * the inbound route, settles the charge, credits the live wallet and lands in the event log, once.
 */
const KEYS = testStripeKeys();
const WEBHOOK_SECRET = KEYS.webhookSecret;

/**
 * The PaymentIntent stripe-mock holds for a Checkout Session (its fixture's): a completed session is read
 * back before it is applied (decisions S41), so the event names the payment Stripe would.
 */
async function checkoutPaymentIntent(mock: StripeMock, sessionId: string): Promise<string> {
  const res = await fetch(`${mock.url}/v1/checkout/sessions/${sessionId}?expand[]=payment_intent`, {
    headers: { authorization: `Bearer ${KEYS.secretKey}` },
  });
  return ((await res.json()) as { payment_intent: { id: string } }).payment_intent.id;
}

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
    const payload = stripeEventJson('evt_e2e_succeeded', 'payment_intent.succeeded', {
      id: paymentIntent,
      object: 'payment_intent',
      amount: asked.amount,
      currency: asked.currency,
      status: 'succeeded',
      metadata: { charge_id: charge.charge_id, merchant_id: String(m.merchant_id), mode: 'live' },
      last_payment_error: null,
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
    const payload = stripeEventJson(`evt_paid_${chargeId}`, 'payment_intent.succeeded', {
      id: stored!.processor_reference,
      object: 'payment_intent',
      amount,
      currency: 'usd',
      status: 'succeeded',
      metadata: { charge_id: chargeId, merchant_id: String(m.merchant_id), mode: 'live' },
      last_payment_error: null,
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

    const payload = stripeEventJson(`evt_refund_${refundId}`, 'refund.updated', {
      id: reference,
      object: 'refund',
      amount: 1_000,
      currency: 'usd',
      status: 'succeeded',
      payment_intent: paymentIntent,
      failure_reason: null,
      metadata: { refund_id: refundId, charge_id: chargeId, merchant_id: String(m.merchant_id), mode: 'live' },
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

  it("a signed charge.dispute.created opens the live dispute with Stripe's due date and withdraws once", async () => {
    const { m, key, chargeId, paymentIntent } = await settledLiveCharge(2_500);
    const wallet = async () => (await t.walletBalances(m.merchant_id, 'live')).find((b) => b.currency === 'USD');
    expect(await eventually(async () => (await wallet())?.transaction_count === 1, 10_000)).toBe(true);
    const credited = (await wallet())!.balance;
    const dueBy = Math.floor(Date.now() / 1000) + 14 * 86_400;
    const payload = stripeEventJson('evt_e2e_dispute_created', 'charge.dispute.created', {
      id: 'du_e2e_1',
      object: 'dispute',
      amount: 2_500,
      currency: 'usd',
      payment_intent: paymentIntent,
      reason: 'product_not_received',
      status: 'needs_response',
      evidence_details: { due_by: dueBy, has_evidence: false, past_due: false, submission_count: 0 },
      metadata: {},
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const first = await postEvent(payload, signature);
    expect([first.status, first.body.outcome]).toEqual([200, 'received']);

    const disputes = async () =>
      (await partner(key, 'GET', `/disputes?charge_id=${chargeId}`)).body.data.disputes as Record<string, unknown>[];
    expect(await eventually(async () => (await disputes()).length === 1, 10_000)).toBe(true);
    expect((await disputes())[0]).toMatchObject({
      charge_id: chargeId,
      status: 'needs_response',
      reason: 'product_not_received',
      is_live: true,
      amount: { amount: 2_500, currency: 'USD' },
      evidence_due_by: new Date(dueBy * 1_000).toISOString(),
    });
    // The merchant's credit and the $15 fee withdrawn: two debits after the credit.
    expect(await eventually(async () => (await wallet())?.transaction_count === 3, 10_000)).toBe(true);
    const withdrawn = (await wallet())!;
    expect(withdrawn.balance).toBe(credited - credited - 1_500);
    const logged = async (type: string) =>
      ((await partner(key, 'GET', `/events?type=${type}`)).body.data.events as unknown[]).length;
    expect(await eventually(async () => (await logged('dispute.funds_withdrawn')) === 1, 10_000)).toBe(true);
    expect(await logged('dispute.created')).toBe(1);

    // Delivered again, and Stripe's own funds_withdrawn for it: nothing is opened or withdrawn twice.
    const again = await postEvent(payload, signature);
    expect([again.status, again.body.outcome]).toEqual([200, 'duplicate']);
    const funds = payload
      .replace('evt_e2e_dispute_created', 'evt_e2e_dispute_funds')
      .replace('charge.dispute.created', 'charge.dispute.funds_withdrawn');
    const second = await postEvent(
      funds,
      Stripe.webhooks.generateTestHeaderString({ payload: funds, secret: WEBHOOK_SECRET }),
    );
    expect([second.status, second.body.outcome]).toEqual([200, 'received']);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await disputes()).toHaveLength(1);
    expect(await wallet()).toEqual(withdrawn);
    expect(await logged('dispute.created')).toBe(1);
    expect(await logged('dispute.funds_withdrawn')).toBe(1);
    const inbox = await (
      await t.db('payments')
    )
      .collection<{ _id: string; status: string }>('processor_events')
      .findOne({ _id: 'stripe:evt_e2e_dispute_funds' });
    expect(inbox?.status).toBe('duplicate');
  });

  it('a live one-time session is paid on Stripe’s page; its signed completion completes it and credits the wallet once', async () => {
    const m = await t.merchant({ country: 'US', currency: 'USD' });
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': m.user_token },
      body: { type: 'live' },
    });
    const key = live.body.data.api_key as string;
    const body = {
      amount: 4_000,
      currency: 'USD',
      product_name: 'Sourdough',
      customer: { email: 'buyer@example.com' },
    };
    // A live subscription session with a free trial is a setup session at Stripe: the card kept, nothing charged.
    const sessionsAsked = () => mock.requests.filter((r) => r.path === '/v1/checkout/sessions');
    const subscription = await partner(key, 'POST', '/payments/sessions', {
      ...body,
      subscription_frequency_key: 'monthly',
      trial_days: 7,
    });
    expect(subscription.status).toBe(200);
    expect(subscription.body.data.gateway_session_id).toMatch(/^cs_/);
    expect(sessionsAsked().at(-1)).toMatchObject({
      status: 200,
      form: { mode: 'setup', customer_creation: 'always', 'setup_intent_data[metadata][mode]': 'live' },
    });

    const created = await partner(key, 'POST', '/payments/sessions', body);
    expect(created.status).toBe(200);
    const session = created.body.data;
    expect(session).toMatchObject({ mode: 'live', status: 'pending', payment_type: 'one_time' });
    const create = mock.requests.find(
      (r) => r.path === '/v1/checkout/sessions' && r.form['metadata[session_id]'] === session.session_id,
    )!;
    expect(create).toMatchObject({ method: 'POST', status: 200 });
    // The customer pays on Stripe's page, never ours; the session is Stripe's Checkout Session.
    expect(session.gateway_session_id).toMatch(/^cs_/);
    expect(session.payment_url).toMatch(/^https:\/\//);
    expect(session.payment_url).not.toContain('/checkout/cs_');
    // A link to our own page for it sends the customer to Stripe's while it is open.
    const ours = await fetch(`${t.url}/checkout/${session.session_id}`, { redirect: 'manual' });
    expect([ours.status, ours.headers.get('location')]).toEqual([303, session.payment_url]);
    const paid = { amount: Number(create.form['line_items[0][price_data][unit_amount]']), currency: 'usd' };
    expect(paid.amount).toBe(session.fee_details.total_amount);

    const payload = stripeEventJson('evt_e2e_checkout_completed', 'checkout.session.completed', {
      id: session.gateway_session_id,
      object: 'checkout.session',
      amount_total: paid.amount,
      currency: paid.currency,
      payment_status: 'paid',
      payment_intent: await checkoutPaymentIntent(mock, session.gateway_session_id),
      client_reference_id: session.session_id,
      metadata: { session_id: session.session_id, merchant_id: String(m.merchant_id), mode: 'live' },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const first = await postEvent(payload, signature);
    expect([first.status, first.body]).toEqual([200, { received: true, outcome: 'received' }]);
    const status = async () => (await partner(key, 'GET', `/payments/sessions/${session.session_id}`)).body.data;
    expect(await eventually(async () => (await status()).status === 'completed', 10_000)).toBe(true);
    const closed = await fetch(`${t.url}/checkout/${session.session_id}`, { redirect: 'manual' });
    expect(closed.status).toBe(200);
    expect(await closed.text()).toContain('data-testid="completed"');

    const credited = async () => (await t.walletBalances(m.merchant_id, 'live')).find((b) => b.currency === 'USD');
    expect(await eventually(async () => (await credited())?.transaction_count === 1, 10_000)).toBe(true);
    const wallet = (await credited())!;
    const events = async () =>
      (await partner(key, 'GET', '/events?type=payment.succeeded')).body.data.events as { data: unknown }[];
    expect(await eventually(async () => (await events()).length === 1, 10_000)).toBe(true);
    expect(JSON.stringify((await events())[0])).toContain(session.session_id);

    const again = await postEvent(payload, signature);
    expect([again.status, again.body.outcome]).toEqual([200, 'duplicate']);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await credited()).toEqual(wallet);
    expect(await events()).toHaveLength(1);

    // Another session, created twice with one Idempotency-Key (one Checkout Session), then expired by Stripe.
    const once = () =>
      http(t.url, 'POST', '/api/v1/partner/payments/sessions', {
        headers: { 'x-api-key': key, 'idempotency-key': 'e2e-checkout-expiry' },
        body,
      });
    const [made, replayed] = [await once(), await once()];
    expect(replayed.body.data.session_id).toBe(made.body.data.session_id);
    const other = made.body.data;
    expect(mock.requests.filter((r) => r.form['metadata[session_id]'] === other.session_id)).toHaveLength(1);
    const expired = stripeEventJson('evt_e2e_checkout_expired', 'checkout.session.expired', {
      id: other.gateway_session_id,
      object: 'checkout.session',
      amount_total: paid.amount,
      currency: paid.currency,
      payment_status: 'unpaid',
      payment_intent: null,
      metadata: { session_id: other.session_id, merchant_id: String(m.merchant_id), mode: 'live' },
    });
    const sent = await postEvent(
      expired,
      Stripe.webhooks.generateTestHeaderString({ payload: expired, secret: WEBHOOK_SECRET }),
    );
    expect([sent.status, sent.body.outcome]).toEqual([200, 'received']);
    const otherStatus = async () => (await partner(key, 'GET', `/payments/sessions/${other.session_id}`)).body.data;
    expect(await eventually(async () => (await otherStatus()).status === 'expired', 10_000)).toBe(true);
    expect(await events()).toHaveLength(1);
  });

  it('a live physical session holds its unit, ships through Stripe’s page and makes one order from the signed completion', async () => {
    const m = await t.merchant({ country: 'US', currency: 'USD' });
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': m.user_token },
      body: { type: 'live' },
    });
    const key = live.body.data.api_key as string;
    const usd = (amount: number) => ({ amount, currency: 'USD' });
    const made = await partner(key, 'POST', '/products', {
      title: 'Linen shirt',
      type: 'physical',
      price: usd(1_200),
      stock: 1,
      shipping: { fee: usd(250), countries: ['US', 'CA'] },
    });
    expect([made.status, made.body.error?.code]).toEqual([200, undefined]);
    const productId = made.body.data.id as number;
    const order = { product_id: productId, quantity: 1, customer: { email: 'buyer@example.com' } };
    const created = await partner(key, 'POST', '/payments/sessions', order);
    expect([created.status, created.body.error?.code]).toEqual([200, undefined]);
    const session = created.body.data;
    expect(session).toMatchObject({ mode: 'live', status: 'pending', amount: 1_450 });
    expect(session.gateway_session_id).toMatch(/^cs_/);
    const create = mock.requests.find(
      (r) => r.path === '/v1/checkout/sessions' && r.form['metadata[session_id]'] === session.session_id,
    )!;
    expect(create).toMatchObject({ method: 'POST', status: 200 });
    expect(create.form).toMatchObject({
      'line_items[0][price_data][unit_amount]': '1200',
      'shipping_options[0][shipping_rate_data][fixed_amount][amount]': '250',
      'shipping_address_collection[allowed_countries][0]': 'US',
      'shipping_address_collection[allowed_countries][1]': 'CA',
    });
    // Its one unit is held by the open session: another is refused before Stripe is asked.
    const asked = mock.requests.length;
    const second = await partner(key, 'POST', '/payments/sessions', order);
    expect([second.status, second.body.error?.code]).toEqual([409, 'STOCK_INSUFFICIENT']);
    expect(mock.requests.length).toBe(asked);

    const payload = stripeEventJson('evt_e2e_goods_completed', 'checkout.session.completed', {
      id: session.gateway_session_id,
      object: 'checkout.session',
      amount_total: 1_450,
      currency: 'usd',
      payment_status: 'paid',
      payment_intent: await checkoutPaymentIntent(mock, session.gateway_session_id),
      collected_information: {
        shipping_details: {
          name: 'Grace Hopper',
          address: {
            line1: '1 Navy Way',
            line2: null,
            city: 'Arlington',
            state: 'VA',
            postal_code: '22202',
            country: 'US',
          },
        },
      },
      metadata: { session_id: session.session_id, merchant_id: String(m.merchant_id), mode: 'live' },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    expect((await postEvent(payload, signature)).status).toBe(200);
    const orders = async () => (await partner(key, 'GET', '/orders')).body.data.orders as Record<string, unknown>[];
    expect(await eventually(async () => (await orders()).length === 1, 10_000)).toBe(true);
    expect((await orders())[0]).toMatchObject({
      status: 'paid',
      quantity: 1,
      shipping_address: { name: 'Grace Hopper', city: 'Arlington', country: 'US' },
    });
    expect((await partner(key, 'GET', `/products/${productId}`)).body.data.stock).toBe(0);
    expect((await postEvent(payload, signature)).body.outcome).toBe('duplicate');
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await orders()).toHaveLength(1);
  });
});
