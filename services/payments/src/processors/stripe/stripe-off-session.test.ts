import { money } from '@ppay/kernel';
import { stripeClient } from '@ppay/stripe-support';
import type { SavedCardPayment } from '../cards';
import { StripeOffSessionCharger } from './stripe-off-session.adapter';
import { LIVE_CARD, offSessionStripe } from './stripe-off-session.test-util';
import { paymentIntentKey } from './stripe-payments.adapter';
import type { StripeSettings } from './stripe-config.adapter';
import { scriptedStripe, SECRET, stripeError, type Script } from './stripe.test-util';

const CREATED = new Date('2026-12-01T10:00:00Z');
const payment: SavedCardPayment = {
  charge_id: 'ch_renewal_1',
  group: 'card',
  mode: 'live',
  amount: money(2_600, 'USD'),
  merchant_id: 1001,
  created_at: CREATED,
  asked_before: false,
};

function charger(settings: StripeSettings) {
  const calls: string[] = [];
  let authFailures = 0;
  const adapter = new StripeOffSessionCharger(stripeClient(settings), {
    call: (op, outcome) => calls.push(`${op}:${outcome}`),
    authFailure: () => authFailures++,
  });
  return { adapter, calls, authFailures: () => authFailures };
}

async function withStripe<T>(script: Script, run: (s: Awaited<ReturnType<typeof scriptedStripe>>) => Promise<T>) {
  const stripe = await scriptedStripe(script);
  try {
    return await run(stripe);
  } finally {
    await stripe.close();
  }
}

const intentAnswer = (changes: Record<string, unknown>) => ({
  status: 200,
  json: { id: 'pi_off_1', object: 'payment_intent', amount: 2_600, currency: 'usd', metadata: {}, ...changes },
});

/** The off-session charge of a card saved at Stripe, through the real library (docs/decisions.md S36–S37). */
describe('Stripe off-session charges', () => {
  it('creates and confirms one PaymentIntent off-session for the saved card, under the charge id, cards only', async () => {
    const fake = offSessionStripe(() => CREATED);
    await withStripe(fake.script, async (stripe) => {
      const { adapter, calls } = charger(stripe.settings());
      expect(await adapter.chargeSaved(payment, LIVE_CARD)).toEqual({
        approved: true,
        processor_reference: 'pi_fake_1',
        card: { brand: 'visa', last4: '4242' },
      });
      const [create] = stripe.seen;
      expect(create).toMatchObject({ method: 'POST', path: '/v1/payment_intents' });
      expect(create!.headers['idempotency-key']).toBe(paymentIntentKey('ch_renewal_1'));
      expect(Object.fromEntries(new URLSearchParams(create!.body))).toEqual({
        amount: '2600',
        currency: 'usd',
        customer: 'cus_renewals',
        payment_method: 'pm_card_saved',
        'payment_method_types[0]': 'card',
        off_session: 'true',
        confirm: 'true',
        'metadata[charge_id]': 'ch_renewal_1',
        'metadata[merchant_id]': '1001',
        'metadata[mode]': 'live',
        'metadata[off_session]': 'true',
      });
      expect(stripe.seen).toHaveLength(1); // a first ask looks nothing up
      expect(calls).toEqual(['payment_intents.create:ok']);
    });
  });

  it.each([
    ['an issuer decline', { code: 'card_declined', decline_code: 'insufficient_funds' }, 'insufficient_funds'],
    [
      'a card that needs its holder to authenticate',
      { code: 'authentication_required', decline_code: 'authentication_required' },
      'authentication_required',
    ],
    ['an expired card (a code, no decline code)', { code: 'expired_card' }, 'expired_card'],
  ])('%s is a declined answer with its code and the PaymentIntent it left', async (_name, error, code) => {
    const fake = offSessionStripe(() => CREATED);
    fake.state.next = error;
    await withStripe(fake.script, async (stripe) => {
      const { adapter, calls } = charger(stripe.settings());
      expect(await adapter.chargeSaved(payment, LIVE_CARD)).toEqual({
        approved: false,
        decline_code: code,
        message: 'Your card was declined.',
        card: { brand: 'visa', last4: '4242' },
        processor_reference: 'pi_fake_1',
      });
      expect(calls).toEqual(['payment_intents.create:declined']);
    });
  });

  it.each([
    ['requires_action (authentication)', { status: 'requires_action' }, 'authentication_required'],
    [
      'requires_payment_method after a decline',
      {
        status: 'requires_payment_method',
        last_payment_error: { code: 'card_declined', decline_code: 'do_not_honor' },
      },
      'do_not_honor',
    ],
    ['canceled', { status: 'canceled', cancellation_reason: 'automatic' }, 'automatic'],
  ])('a PaymentIntent left %s is declined: nobody can pay it any more', async (_name, changes, code) => {
    await withStripe(
      () => intentAnswer(changes),
      async (stripe) => {
        const answer = await charger(stripe.settings()).adapter.chargeSaved(payment, LIVE_CARD);
        expect(answer).toMatchObject({ approved: false, decline_code: code, processor_reference: 'pi_off_1' });
      },
    );
  });

  it('a processing PaymentIntent is an unknown outcome (UPSTREAM_TIMEOUT), not an answer', async () => {
    await withStripe(
      () => intentAnswer({ status: 'processing' }),
      async (stripe) => {
        await expect(charger(stripe.settings()).adapter.chargeSaved(payment, LIVE_CARD)).rejects.toMatchObject({
          code: 'UPSTREAM_TIMEOUT',
        });
      },
    );
  });

  it('a saved method or customer Stripe no longer has is a decline no retry fixes, not our bug', async () => {
    await withStripe(
      () => stripeError(400, 'invalid_request_error', { code: 'resource_missing', param: 'payment_method' }),
      async (stripe) => {
        const { adapter, calls } = charger(stripe.settings());
        const answer = await adapter.chargeSaved(payment, LIVE_CARD);
        expect(answer).toMatchObject({ approved: false, decline_code: 'payment_method_unavailable' });
        expect(JSON.stringify(answer)).not.toContain(SECRET.slice(0, 12));
        expect(calls).toEqual(['payment_intents.create:declined']);
      },
    );
    // Any other refusal is our bug, never a decline.
    await withStripe(
      () => stripeError(400, 'invalid_request_error', { param: 'amount' }),
      async (stripe) => {
        await expect(charger(stripe.settings()).adapter.chargeSaved(payment, LIVE_CARD)).rejects.toMatchObject({
          code: 'INTERNAL',
        });
      },
    );
  });

  it.each([
    [
      'a rate limit',
      stripeError(429, 'invalid_request_error', { code: 'rate_limit' }),
      'SERVICE_UNAVAILABLE',
      'unavailable',
    ],
    ["Stripe's 5xx", stripeError(500, 'api_error'), 'SERVICE_UNAVAILABLE', 'unavailable'],
  ])('%s is SERVICE_UNAVAILABLE (nothing charged: ask again, same key)', async (_n, answer, code, outcome) => {
    await withStripe(
      () => answer,
      async (stripe) => {
        const { adapter, calls } = charger(stripe.settings());
        await expect(adapter.chargeSaved(payment, LIVE_CARD)).rejects.toMatchObject({ code });
        expect(calls).toEqual([`payment_intents.create:${outcome}`]);
      },
    );
  });

  it('no answer in time is UPSTREAM_TIMEOUT; a connection error SERVICE_UNAVAILABLE', async () => {
    await withStripe(
      () => ({ status: 0, hang: true }),
      async (stripe) => {
        const { adapter, calls } = charger(stripe.settings({ timeoutMs: 150 }));
        await expect(adapter.chargeSaved(payment, LIVE_CARD)).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
        expect(calls).toEqual(['payment_intents.create:timeout']);
      },
    );
    const stripe = await scriptedStripe(() => ({ status: 200 }));
    const settings = stripe.settings();
    await stripe.close();
    await expect(charger(settings).adapter.chargeSaved(payment, LIVE_CARD)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('a refused key is a 503 that raises the alert and never shows the key', async () => {
    await withStripe(
      () => stripeError(401, 'invalid_request_error'),
      async (stripe) => {
        const { adapter, authFailures, calls } = charger(stripe.settings());
        const err = (await adapter.chargeSaved(payment, LIVE_CARD).catch((e: unknown) => e)) as Error & {
          code: string;
          detail?: string;
        };
        expect(err.code).toBe('SERVICE_UNAVAILABLE');
        expect(`${err.message} ${err.detail}`).not.toMatch(/sk_test/);
        expect(authFailures()).toBe(1);
        expect(calls).toEqual(['payment_intents.create:authentication']);
      },
    );
  });

  describe('asked before (a reclaimed charge): the PaymentIntent it may have made is looked for first', () => {
    const again = { ...payment, asked_before: true };

    it("finds it among the customer's since the charge, by our charge id, and makes none", async () => {
      const fake = offSessionStripe(() => new Date(CREATED.getTime() + 1_000));
      await withStripe(fake.script, async (stripe) => {
        const { adapter, calls } = charger(stripe.settings());
        await adapter.chargeSaved(payment, LIVE_CARD);
        await adapter.chargeSaved({ ...payment, charge_id: 'ch_other' }, LIVE_CARD);
        fake.forgetKeys(); // a day later: a create now would be a second payment
        expect(await adapter.chargeSaved(again, LIVE_CARD)).toMatchObject({
          approved: true,
          processor_reference: 'pi_fake_1',
        });
        const list = stripe.seen[2]!;
        expect(list.method).toBe('GET');
        const query = new URL(list.path, 'http://x').searchParams;
        expect(Object.fromEntries(query)).toEqual({
          customer: 'cus_renewals',
          'created[gte]': String(CREATED.getTime() / 1000 - 600),
          limit: '100',
        });
        expect(fake.creates()).toBe(2);
        expect(calls.slice(2)).toEqual(['payment_intents.list:ok']);
      });
    });

    it('none found: it is created then, under the same key', async () => {
      const fake = offSessionStripe(() => CREATED);
      await withStripe(fake.script, async (stripe) => {
        const { adapter } = charger(stripe.settings());
        expect(await adapter.chargeSaved(again, LIVE_CARD)).toMatchObject({ approved: true });
        expect(stripe.seen.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
          'GET /v1/payment_intents',
          'POST /v1/payment_intents',
        ]);
        expect(stripe.seen[1]!.headers['idempotency-key']).toBe(paymentIntentKey('ch_renewal_1'));
      });
    });

    it('a found declined one answers its decline; one for another amount, or a full page without it, makes nothing', async () => {
      const list = (data: unknown[], hasMore = false) => ({
        status: 200,
        json: { object: 'list', url: '/v1/payment_intents', has_more: hasMore, data },
      });
      const ours = (changes: Record<string, unknown>) => ({
        id: 'pi_found',
        object: 'payment_intent',
        amount: 2_600,
        currency: 'usd',
        metadata: { charge_id: 'ch_renewal_1' },
        ...changes,
      });
      const declined = ours({
        status: 'requires_payment_method',
        last_payment_error: { code: 'authentication_required', decline_code: 'authentication_required' },
      });
      await withStripe(
        () => list([declined]),
        async (stripe) => {
          expect(await charger(stripe.settings()).adapter.chargeSaved(again, LIVE_CARD)).toMatchObject({
            approved: false,
            decline_code: 'authentication_required',
            processor_reference: 'pi_found',
          });
        },
      );
      for (const answer of [list([ours({ status: 'succeeded', amount: 999 })]), list([], true)]) {
        await withStripe(
          () => answer,
          async (stripe) => {
            await expect(charger(stripe.settings()).adapter.chargeSaved(again, LIVE_CARD)).rejects.toMatchObject({
              code: 'INTERNAL',
            });
            expect(stripe.seen.map((r) => r.method)).toEqual(['GET']);
          },
        );
      }
    });
  });

  it('refuses a sandbox payment, a card of another processor and a non-card currency before any call', async () => {
    await withStripe(
      () => ({ status: 500 }),
      async (stripe) => {
        const { adapter } = charger(stripe.settings());
        for (const [p, card] of [
          [{ ...payment, mode: 'sandbox' as const }, LIVE_CARD],
          [payment, { ...LIVE_CARD, processor: 'other' }],
          [{ ...payment, amount: money(2_600, 'NGN') }, LIVE_CARD],
        ] as const) {
          await expect(adapter.chargeSaved(p, card)).rejects.toMatchObject({ code: 'INTERNAL' });
        }
        expect(stripe.seen).toHaveLength(0);
      },
    );
  });
});
