import { money, type Mode } from '@ppay/kernel';
import { stripeClient, stripeWebhooks } from '@ppay/stripe-support';
import {
  stripeSettings,
  type StripeSettings,
} from '../../services/payments/src/processors/stripe/stripe-config.adapter';
import {
  cancelKey,
  paymentIntentKey,
  refundKey,
  StripeCardGateway,
} from '../../services/payments/src/processors/stripe/stripe-payments.adapter';
import { StaticProcessorRegistry } from '../../services/payments/src/processors/sandbox-processors.adapter';
import { checkoutSessionKey } from '../../services/payments/src/processors/stripe/stripe-checkout.adapter';
import { EMPTY_EVIDENCE, newDispute } from '../../services/payments/src/disputes/dispute';
import {
  disputeCloseKey,
  evidenceSubmitKey,
  StripeDisputeProcessor,
} from '../../services/payments/src/processors/stripe/stripe-disputes.adapter';
import { startStripeMock, stripeMockSettings, testStripeKeys, type StripeMock } from '../support/stripe-mock';

/**
 * Contract tests of every call the Stripe connector makes, against Stripe's official mock (stripe-mock
 * v0.203.0: each request checked against Stripe's API description, answers in real object shapes).
 * It keeps no state, so these prove the requests and the mapping of answers; flows are unit tests.
 */
const KEYS = testStripeKeys();
let mock: StripeMock;
let settings: StripeSettings;

beforeAll(async () => {
  mock = await startStripeMock();
  settings = stripeMockSettings(mock, KEYS);
});
afterAll(() => mock?.stop());

const intent = (chargeId: string, currency = 'USD', mode: Mode = 'live') => ({
  charge_id: chargeId,
  merchant_id: 4242,
  mode,
  amount: money(1999, currency),
  customer_email: 'buyer@example.com',
  description: 'Contract test order',
  callback_url: 'https://merchant.example/cb',
});

describe('Stripe connector against stripe-mock', () => {
  it('creates a PaymentIntent stripe-mock accepts, with our idempotency key and metadata, and maps its answer', async () => {
    const outcomes: string[] = [];
    const gateway = new StripeCardGateway(stripeClient(settings), settings, {
      call: (op, outcome) => outcomes.push(`${op}:${outcome}`),
      authFailure: () => outcomes.push('auth'),
    });
    for (const currency of ['USD', 'EUR', 'GBP', 'CAD', 'AUD']) {
      const chargeId = `ch_contract_${currency}`;
      const answer = await gateway.initialise(intent(chargeId, currency));
      expect(answer.processor_reference).toMatch(/^pi_/);
      expect(answer.client_secret).toMatch(/^pi_\w+_secret_\w+$/);
      expect(answer.publishable_key).toBe(KEYS.publishableKey);
      expect(answer.gateway_account_id).toMatch(/^acct_/);
      const create = mock.requests.filter((r) => r.path === '/v1/payment_intents').pop()!;
      expect(create.status).toBe(200);
      expect(create.headers['idempotency-key']).toBe(paymentIntentKey(chargeId));
      expect(create.headers['stripe-version']).toBe('2026-08-26.dahlia');
      expect(create.form).toMatchObject({
        amount: '1999',
        currency: currency.toLowerCase(),
        'metadata[charge_id]': chargeId,
        'metadata[merchant_id]': '4242',
        'metadata[mode]': 'live',
      });
    }
    // Every call stripe-mock saw was accepted: the account once, a PaymentIntent per charge (the account
    // is read alongside the first create, so in either order).
    expect(mock.requests.map((r) => `${r.method} ${r.path} ${r.status}`).sort()).toEqual([
      'GET /v1/account 200',
      ...Array(5).fill('POST /v1/payment_intents 200'),
    ]);
    expect(outcomes.filter((o) => !o.endsWith(':ok'))).toEqual([]);
    expect(mock.log()).not.toMatch(/status=4\d\d/);
  });

  it('cancels a failed PaymentIntent as stripe-mock accepts it, with our idempotency key', async () => {
    const outcomes: string[] = [];
    const gateway = new StripeCardGateway(stripeClient(settings), settings, {
      call: (op, outcome) => outcomes.push(`${op}:${outcome}`),
      authFailure: () => outcomes.push('auth'),
    });
    const { processor_reference } = await gateway.initialise(intent('ch_contract_cancel'));
    const answer = await gateway.abandon({
      charge_id: 'ch_contract_cancel',
      processor_reference,
      failure_id: 'evt_contract_failed',
    });
    // stripe-mock answers its PaymentIntent fixture; a 200 to a cancel is Stripe's "it is canceled".
    expect(answer).toBe('cancelled');
    const cancel = mock.requests.pop()!;
    expect(`${cancel.method} ${cancel.path} ${cancel.status}`).toBe(
      `POST /v1/payment_intents/${processor_reference}/cancel 200`,
    );
    expect(cancel.headers['idempotency-key']).toBe(cancelKey('ch_contract_cancel', 'evt_contract_failed'));
    expect(cancel.form).toEqual({ cancellation_reason: 'abandoned' });
    expect(outcomes).toContain('payment_intents.cancel:ok');
    expect(outcomes.filter((o) => !o.endsWith(':ok'))).toEqual([]);
  });

  it('refunds a PaymentIntent as stripe-mock accepts it, with our idempotency key and metadata', async () => {
    const outcomes: string[] = [];
    const gateway = new StripeCardGateway(stripeClient(settings), settings, {
      call: (op, outcome) => outcomes.push(`${op}:${outcome}`),
      authFailure: () => outcomes.push('auth'),
    });
    const { processor_reference } = await gateway.initialise(intent('ch_contract_refund'));
    const request = {
      refund_id: 're_contract_1',
      charge_id: 'ch_contract_refund',
      merchant_id: 4242,
      mode: 'live' as const,
      processor_reference,
      amount: money(500, 'USD'),
      reason: 'damaged',
      refund_reference: null,
      asked_before: false,
    };
    const answer = await gateway.refund(request);
    // stripe-mock answers its Refund fixture (its status is the fixture's): a Stripe refund id either way.
    expect(answer).toMatchObject({ processor_reference: expect.stringMatching(/^re_/) });
    const create = mock.requests.pop()!;
    expect(`${create.method} ${create.path} ${create.status}`).toBe('POST /v1/refunds 200');
    expect(create.headers['idempotency-key']).toBe(refundKey('re_contract_1'));
    expect(create.form).toEqual({
      payment_intent: processor_reference,
      amount: '500',
      'metadata[refund_id]': 're_contract_1',
      'metadata[charge_id]': 'ch_contract_refund',
      'metadata[merchant_id]': '4242',
      'metadata[mode]': 'live',
    });
    // Asked again: the refund is read back by its id, or looked up among the PaymentIntent's refunds.
    const reference = (answer as { processor_reference: string }).processor_reference;
    expect(await gateway.refund({ ...request, refund_reference: reference, asked_before: true })).toMatchObject({
      processor_reference: expect.stringMatching(/^re_/),
    });
    expect(mock.requests.pop()).toMatchObject({ method: 'GET', path: `/v1/refunds/${reference}`, status: 200 });
    await gateway.refund({ ...request, asked_before: true });
    const [list] = mock.requests.slice(-2);
    expect(list).toMatchObject({
      method: 'GET',
      path: `/v1/refunds?payment_intent=${processor_reference}&limit=100`,
      status: 200,
    });
    expect(outcomes.filter((o) => !o.endsWith(':ok'))).toEqual([]);
    expect(mock.log()).not.toMatch(/status=4\d\d/);
  });

  it('creates a Checkout Session stripe-mock accepts, with our idempotency key, metadata and expiry', async () => {
    const outcomes: string[] = [];
    const gateway = new StripeCardGateway(stripeClient(settings), settings, {
      call: (op, outcome) => outcomes.push(`${op}:${outcome}`),
      authFailure: () => outcomes.push('auth'),
    });
    const expiresAt = new Date(Date.now() + 45 * 60_000);
    const answer = await gateway.initialiseCheckout({
      session_id: 'cs_contract_1',
      merchant_id: 4242,
      mode: 'live',
      amount: money(1999, 'EUR'),
      customer_email: 'buyer@example.com',
      description: 'Contract test order',
      success_url: 'https://merchant.example/thanks?session_id=cs_contract_1',
      cancel_url: 'https://merchant.example/cart?session_id=cs_contract_1',
      expires_at: expiresAt,
      purpose: 'pay',
    });
    // stripe-mock answers its fixture: a Checkout Session id and a URL to send the customer to.
    expect(answer.processor_reference).toMatch(/^cs_/);
    expect(answer.payment_url).toMatch(/^https:\/\//);
    expect(answer.expires_at).toEqual(new Date(Math.ceil(expiresAt.getTime() / 1000) * 1000));
    const create = mock.requests.pop()!;
    expect(`${create.method} ${create.path} ${create.status}`).toBe('POST /v1/checkout/sessions 200');
    expect(create.headers['idempotency-key']).toBe(checkoutSessionKey('cs_contract_1'));
    expect(create.form).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][currency]': 'eur',
      'line_items[0][price_data][unit_amount]': '1999',
      'line_items[0][quantity]': '1',
      client_reference_id: 'cs_contract_1',
      expires_at: String(Math.ceil(expiresAt.getTime() / 1000)),
      'metadata[session_id]': 'cs_contract_1',
      'payment_intent_data[metadata][session_id]': 'cs_contract_1',
      'payment_intent_data[metadata][merchant_id]': '4242',
    });
    expect(outcomes).toEqual(['checkout.sessions.create:ok']);
  });

  it('reads a PaymentIntent back as stripe-mock accepts it (what a refused cancel is answered with)', async () => {
    const client = stripeClient(settings);
    const read = await client.paymentIntents.retrieve('pi_contract_read');
    expect(read).toMatchObject({ object: 'payment_intent', status: expect.any(String) });
    expect(mock.requests.pop()).toMatchObject({
      method: 'GET',
      path: '/v1/payment_intents/pi_contract_read',
      status: 200,
    });
  });

  it('submits dispute evidence and closes a dispute as stripe-mock accepts them, with our idempotency keys', async () => {
    const outcomes: string[] = [];
    const processor = new StripeDisputeProcessor(stripeClient(settings), {
      call: (op, outcome) => outcomes.push(`${op}:${outcome}`),
      authFailure: () => outcomes.push('auth'),
    });
    const dispute = {
      ...newDispute(
        {
          charge_id: 'ch_contract_dispute',
          merchant_id: 4242,
          sub_merchant_id: null,
          mode: 'live',
          amount: money(1999, 'USD'),
          reason: 'fraudulent',
          source: 'processor',
          processor: { reference: 'du_contract_1', evidence_due_by: new Date('2026-12-31T00:00:00Z') },
        },
        new Date(),
      ),
      status: 'needs_response' as const,
      evidence: {
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
      },
    };
    expect(await processor.submitEvidence(dispute)).toEqual({ scheduled_outcome: null });
    const update = mock.requests.pop()!;
    expect(`${update.method} ${update.path} ${update.status}`).toBe('POST /v1/disputes/du_contract_1 200');
    expect(update.headers['idempotency-key']).toBe(evidenceSubmitKey(dispute.dispute_id));
    expect(update.form).toMatchObject({
      submit: 'true',
      'evidence[customer_name]': 'Ada Lovelace',
      'evidence[customer_email_address]': 'ada@example.com',
      'evidence[cancellation_policy_disclosure]': 'Cancel any time before shipping',
      'evidence[shipping_date]': '2026-11-20',
    });
    await processor.accept(dispute);
    const close = mock.requests.pop()!;
    expect(`${close.method} ${close.path} ${close.status}`).toBe('POST /v1/disputes/du_contract_1/close 200');
    expect(close.headers['idempotency-key']).toBe(disputeCloseKey(dispute.dispute_id));
    expect(outcomes).toEqual(['disputes.update:ok', 'disputes.close:ok']);
  });

  it('looks a PaymentIntent up for the reconciler as stripe-mock accepts it, and maps its state', async () => {
    const outcomes: string[] = [];
    const gateway = new StripeCardGateway(stripeClient(settings), settings, {
      call: (op, outcome) => outcomes.push(`${op}:${outcome}`),
      authFailure: () => outcomes.push('auth'),
    });
    const answer = await gateway.lookUp('pi_contract_lookup');
    expect(mock.requests.pop()).toMatchObject({
      method: 'GET',
      path: '/v1/payment_intents/pi_contract_lookup',
      status: 200,
    });
    // stripe-mock's fixture is a PaymentIntent awaiting its payment method: not final, so pending.
    expect(answer).toEqual({ status: 'pending' });
    expect(outcomes).toEqual(['payment_intents.retrieve:ok']);
  });

  it('a key stripe-mock refuses is a 503 with the alert, and the key is never shown', async () => {
    let alerts = 0;
    // stripe-mock accepts only test keys: a live key is its wrong key.
    const wrong = { ...settings, secretKey: KEYS.liveSecretKey };
    const gateway = new StripeCardGateway(stripeClient(wrong), wrong, {
      call: () => undefined,
      authFailure: () => alerts++,
    });
    const err = (await gateway.initialise(intent('ch_contract_auth')).catch((e: unknown) => e)) as Error & {
      code: string;
      detail?: string;
    };
    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect(`${err.message} ${err.detail ?? ''}`).not.toMatch(/sk_live/);
    expect(alerts).toBeGreaterThan(0);
  });

  it('signs and verifies an event as Stripe does (the library the inbound route uses)', () => {
    const payload = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: {} } });
    const webhooks = stripeWebhooks();
    const header = webhooks.generateTestHeaderString({ payload, secret: settings.webhookSecrets[0]! });
    expect(webhooks.constructEvent(payload, header, settings.webhookSecrets[0]!, 300).id).toBe('evt_1');
  });

  it('without a secret key nothing is configured: live card charges answer GATEWAY_NOT_CONFIGURED', () => {
    expect(
      stripeSettings({ STRIPE_API_BASE: mock.url, STRIPE_TIMEOUT_MS: 1_000, STRIPE_MAX_NETWORK_RETRIES: 0 }),
    ).toBeNull();
    const registry = new StaticProcessorRegistry({ timeoutMs: 1_000, resetTimeoutMs: 1_000, cardPublishableKey: 'pk' });
    expect(() => registry.adapterFor('card', 'live')).toThrow(
      expect.objectContaining({ code: 'GATEWAY_NOT_CONFIGURED' }),
    );
  });
});
