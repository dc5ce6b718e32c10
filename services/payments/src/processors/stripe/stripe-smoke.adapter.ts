import { randomBytes } from 'node:crypto';
import { redactKeys, stripeApiSettings, stripeClient } from '@ppay/stripe-support';
import { money } from '@ppay/kernel';
import type { StripeSettings } from './stripe-config.adapter';
import { StripeCardGateway } from './stripe-payments.adapter';

/**
 * `npm run smoke:stripe`: an operator's proof that their Stripe test keys work with this connector.
 * With STRIPE_SECRET_KEY=sk_test_… it creates a PaymentIntent exactly as a live charge does (the
 * gateway's own call), confirms it with Stripe's test card `pm_card_visa`, reads it back as the
 * reconciler does, refunds it, and prints both objects as read back. It needs the internet (or
 * STRIPE_API_BASE pointing at stripe-mock), so CI never runs it. Live keys are refused: it moves money.
 */

const TEST_KEY = /^(sk|rk)_test_[A-Za-z0-9_]{8,240}$/;

/** Why the key cannot be used for the smoke test, or null. Never quotes the key. */
export function smokeKeyProblem(key: string | undefined): string | null {
  if (!key) return 'STRIPE_SECRET_KEY is not set: run with STRIPE_SECRET_KEY=sk_test_… (a test-mode secret key)';
  if (/^(sk|rk)_live_/.test(key)) {
    return 'STRIPE_SECRET_KEY is a live key: the smoke test takes a real card payment, so it only runs with a test key (sk_test_…)';
  }
  if (!TEST_KEY.test(key)) return 'STRIPE_SECRET_KEY is not a Stripe secret key (sk_test_… or rk_test_…)';
  return null;
}

export function smokeSettings(env: NodeJS.ProcessEnv): StripeSettings {
  const regions = stripeApiSettings({
    STRIPE_SECRET_KEY: env.STRIPE_SECRET_KEY!,
    // Only handed back in the answer, never sent to Stripe.
    STRIPE_PUBLISHABLE_KEY: env.STRIPE_PUBLISHABLE_KEY ?? 'pk_test_not_set_for_the_smoke_test',
    STRIPE_API_BASE: env.STRIPE_API_BASE ?? 'https://api.stripe.com',
    STRIPE_TIMEOUT_MS: 20_000,
    STRIPE_MAX_NETWORK_RETRIES: 2,
  })!;
  return {
    ...regions.US,
    webhookSecrets: [],
    accountId: env.STRIPE_ACCOUNT_ID ?? null,
    regions,
  };
}

async function smoke(settings: StripeSettings, out: (line: string) => void): Promise<void> {
  const client = stripeClient(settings);
  const calls: string[] = [];
  const gateway = new StripeCardGateway(client, settings, {
    call: (operation, outcome) => calls.push(`${operation}:${outcome}`),
    authFailure: () => out('Stripe refused the key (authentication or permission error)'),
  });
  const chargeId = `ch_smoke_${randomBytes(8).toString('hex')}`;
  const created = await gateway.initialise({
    charge_id: chargeId,
    merchant_id: 0,
    mode: 'live',
    amount: money(1_000, 'USD'),
    customer_email: 'smoke@example.com',
    description: 'ppay smoke test (npm run smoke:stripe)',
    callback_url: '',
  });
  out(`created   ${created.processor_reference} on ${created.gateway_account_id} (charge ${chargeId})`);
  // What Stripe's embedded form does with the customer's card; a return URL because the PaymentIntent
  // allows the dashboard's payment methods, some of which redirect.
  const confirmed = await client.paymentIntents.confirm(
    created.processor_reference,
    { payment_method: 'pm_card_visa', return_url: 'https://example.com/ppay-smoke-return' },
    { idempotencyKey: `ppay_${chargeId}_smoke_confirm` },
  );
  out(`confirmed ${confirmed.id}: ${confirmed.status}`);
  const lookUp = await gateway.lookUp(created.processor_reference);
  out(`looked up ${created.processor_reference}: ${JSON.stringify(lookUp)} (what the reconciler would apply)`);
  const refund = await client.refunds.create(
    { payment_intent: created.processor_reference, metadata: { charge_id: chargeId, mode: 'live' } },
    { idempotencyKey: `ppay_${chargeId}_smoke_refund` },
  );
  out(`refunded  ${refund.id}: ${refund.status}`);
  const [intent, readRefund] = await Promise.all([
    client.paymentIntents.retrieve(created.processor_reference),
    client.refunds.retrieve(refund.id),
  ]);
  const shown = {
    payment_intent: {
      id: intent.id,
      status: intent.status,
      amount: intent.amount,
      amount_received: intent.amount_received,
      currency: intent.currency,
      metadata: intent.metadata,
      latest_charge: intent.latest_charge,
      livemode: intent.livemode,
    },
    refund: {
      id: readRefund.id,
      status: readRefund.status,
      amount: readRefund.amount,
      currency: readRefund.currency,
      payment_intent: readRefund.payment_intent,
    },
    calls,
  };
  out(JSON.stringify(shown, null, 2));
  if (intent.status !== 'succeeded' || lookUp.status !== 'succeeded') {
    throw new Error(`the PaymentIntent is ${intent.status}, not succeeded`);
  }
}

if (require.main === module) {
  const problem = smokeKeyProblem(process.env.STRIPE_SECRET_KEY);
  if (problem) {
    process.stderr.write(`smoke:stripe: ${problem}\n`);
    process.exit(64);
  }
  smoke(smokeSettings(process.env), (line) => process.stdout.write(`${line}\n`)).then(
    () => process.stdout.write('smoke:stripe: OK\n'),
    (err: unknown) => {
      const e = err as Error & { code?: string; detail?: string };
      process.stderr.write(`smoke:stripe failed: ${redactKeys(`${e.code ?? ''} ${e.message} ${e.detail ?? ''}`)}\n`);
      process.exit(1);
    },
  );
}
