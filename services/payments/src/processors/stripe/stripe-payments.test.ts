import { money } from '@ppay/kernel';
import type { PaymentIntent } from '../ports';
import { paymentIntentKey } from './stripe-payments.adapter';
import { gateway, scriptedStripe, stripeError, type Script } from './stripe.test-util';

const intent: PaymentIntent = {
  charge_id: 'ch_unit_1',
  merchant_id: 1001,
  mode: 'live',
  amount: money(2500, 'USD'),
  customer_email: 'c@example.com',
  description: 'Order 7',
  callback_url: 'https://merchant.example/cb',
};

const PI = {
  id: 'pi_123',
  object: 'payment_intent',
  client_secret: 'pi_123_secret_abc',
  status: 'requires_payment_method',
};
const ok: Script = (req) =>
  req.url === '/v1/account'
    ? { status: 200, json: { id: 'acct_platform', object: 'account' } }
    : { status: 200, json: PI };

/** The connector's mapping of Stripe's answers and errors, through the real library (see stripe.test-util). */
describe('Stripe card gateway', () => {
  it('creates one PaymentIntent per charge and answers its client secret, our publishable key and the platform account', async () => {
    const stripe = await scriptedStripe(ok);
    try {
      const { adapter, calls } = gateway(stripe.settings());
      const first = await adapter.initialise(intent);
      expect(first).toEqual({
        processor_reference: 'pi_123',
        client_secret: 'pi_123_secret_abc',
        publishable_key: 'pk_test_unit00000000',
        gateway_account_id: 'acct_platform',
      });
      await adapter.initialise(intent);
      const creates = stripe.seen.filter((r) => r.path === '/v1/payment_intents');
      expect(creates).toHaveLength(2);
      expect(creates.map((r) => r.headers['idempotency-key'])).toEqual([
        paymentIntentKey('ch_unit_1'),
        paymentIntentKey('ch_unit_1'),
      ]);
      expect(creates[0]!.headers['stripe-version']).toBe('2026-08-26.dahlia');
      const form = Object.fromEntries(new URLSearchParams(creates[0]!.body));
      expect(form).toMatchObject({
        amount: '2500',
        currency: 'usd',
        'metadata[charge_id]': 'ch_unit_1',
        'metadata[merchant_id]': '1001',
        'metadata[mode]': 'live',
        'automatic_payment_methods[enabled]': 'true',
      });
      // The platform's account is read once and kept.
      expect(stripe.seen.filter((r) => r.path === '/v1/account')).toHaveLength(1);
      expect(calls).toContain('payment_intents.create:ok');
    } finally {
      await stripe.close();
    }
  });

  it('uses a configured account id without asking Stripe, and asks again after a failed read', async () => {
    let accountReads = 0;
    const stripe = await scriptedStripe((req) => {
      if (req.url !== '/v1/account') return { status: 200, json: PI };
      accountReads++;
      return accountReads === 1 ? stripeError(500, 'api_error') : { status: 200, json: { id: 'acct_later' } };
    });
    try {
      const configured = gateway(stripe.settings({ accountId: 'acct_configured' })).adapter;
      expect((await configured.initialise(intent)).gateway_account_id).toBe('acct_configured');
      expect(accountReads).toBe(0);
      const { adapter } = gateway(stripe.settings());
      await expect(adapter.initialise(intent)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect((await adapter.initialise(intent)).gateway_account_id).toBe('acct_later');
    } finally {
      await stripe.close();
    }
  });

  it.each([
    [
      'a rate limit',
      stripeError(429, 'invalid_request_error', { code: 'rate_limit' }),
      'SERVICE_UNAVAILABLE',
      'unavailable',
    ],
    ["Stripe's 5xx", stripeError(500, 'api_error'), 'SERVICE_UNAVAILABLE', 'unavailable'],
    [
      'a card error',
      stripeError(402, 'card_error', { code: 'card_declined', decline_code: 'insufficient_funds' }),
      'UNPROCESSABLE',
      'declined',
    ],
    [
      'a refused request (our bug)',
      stripeError(400, 'invalid_request_error', { param: 'amount' }),
      'INTERNAL',
      'refused',
    ],
  ])('maps %s', async (_name, answer, code, outcome) => {
    const stripe = await scriptedStripe((req) => (req.url === '/v1/account' ? ok(req, '') : answer));
    try {
      const { adapter, calls } = gateway(stripe.settings());
      const err = await adapter.initialise(intent).catch((e: unknown) => e);
      expect(err).toMatchObject({ code });
      expect(calls).toContain(`payment_intents.create:${outcome}`);
    } finally {
      await stripe.close();
    }
  });

  it('a card error answers its decline code', async () => {
    const stripe = await scriptedStripe((req) =>
      req.url === '/v1/account'
        ? ok(req, '')
        : stripeError(402, 'card_error', { code: 'card_declined', decline_code: 'lost_card' }),
    );
    try {
      await expect(gateway(stripe.settings()).adapter.initialise(intent)).rejects.toMatchObject({
        code: 'UNPROCESSABLE',
        detail: 'lost_card',
      });
    } finally {
      await stripe.close();
    }
  });

  it('no answer in time is an unknown outcome (UPSTREAM_TIMEOUT), not a refusal', async () => {
    const stripe = await scriptedStripe((req) => (req.url === '/v1/account' ? ok(req, '') : { status: 0, hang: true }));
    try {
      const { adapter, calls } = gateway(stripe.settings({ timeoutMs: 150 }));
      await expect(adapter.initialise(intent)).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
      expect(calls).toContain('payment_intents.create:timeout');
    } finally {
      await stripe.close();
    }
  });

  it('a connection error is SERVICE_UNAVAILABLE (safe to retry with the same key)', async () => {
    const stripe = await scriptedStripe(ok);
    const settings = stripe.settings();
    await stripe.close();
    await expect(gateway(settings).adapter.initialise(intent)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it("the library retries Stripe's 5xx itself with the same idempotency key", async () => {
    let creates = 0;
    const stripe = await scriptedStripe((req) => {
      if (req.url === '/v1/account') return ok(req, '');
      creates++;
      return creates === 1 ? stripeError(503, 'api_error') : { status: 200, json: PI };
    });
    try {
      const { adapter } = gateway(stripe.settings({ maxNetworkRetries: 1, timeoutMs: 2_000 }));
      expect((await adapter.initialise(intent)).processor_reference).toBe('pi_123');
      const keys = stripe.seen.filter((r) => r.path === '/v1/payment_intents').map((r) => r.headers['idempotency-key']);
      expect(keys).toEqual([paymentIntentKey('ch_unit_1'), paymentIntentKey('ch_unit_1')]);
    } finally {
      await stripe.close();
    }
  });

  it('a refused key is a 503 that raises the alert and never shows the key', async () => {
    const stripe = await scriptedStripe(() => stripeError(401, 'invalid_request_error'));
    try {
      const { adapter, authFailures, calls } = gateway(stripe.settings());
      const err = (await adapter.initialise(intent).catch((e: unknown) => e)) as Error & {
        code: string;
        detail?: string;
      };
      expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(`${err.message} ${err.detail} ${String(err.cause)}`).not.toMatch(/sk_test/);
      expect(authFailures()).toBeGreaterThanOrEqual(1);
      expect(calls).toContain('payment_intents.create:authentication');
    } finally {
      await stripe.close();
    }
  });

  it('refuses to take a sandbox or non-card charge', async () => {
    const stripe = await scriptedStripe(ok);
    try {
      const { adapter } = gateway(stripe.settings());
      await expect(adapter.initialise({ ...intent, mode: 'sandbox' })).rejects.toMatchObject({ code: 'INTERNAL' });
      await expect(adapter.initialise({ ...intent, amount: money(2500, 'NGN') })).rejects.toMatchObject({
        code: 'INTERNAL',
      });
      expect(stripe.seen).toHaveLength(0);
    } finally {
      await stripe.close();
    }
  });
});
