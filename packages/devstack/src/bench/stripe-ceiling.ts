import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';

/**
 * The ceiling's processor call for `bench -- charge-create-live`: the PaymentIntent create the live
 * card gateway makes per charge (services/payments/src/processors/stripe/stripe-payments.adapter.ts:
 * the same parameters, metadata and a per-charge idempotency key; the client configured as
 * stripe-client.adapter.ts configures it), made directly with the SDK and nothing around it.
 * CEILING_STRIPE_API_BASE / CEILING_STRIPE_SECRET_KEY: the stripe-mock the platform calls too.
 */
export function stripeCall(apiBase: string, secretKey: string): () => Promise<string> {
  const base = new URL(apiBase);
  const stripe = new Stripe(secretKey, {
    apiVersion: '2026-08-26.dahlia',
    timeout: 4_000,
    maxNetworkRetries: 0,
    host: base.hostname,
    port: Number(base.port),
    protocol: base.protocol === 'http:' ? 'http' : 'https',
    telemetry: false,
  });
  return async () => {
    const chargeId = `ch_${randomUUID().replace(/-/g, '')}`;
    const created = await stripe.paymentIntents.create(
      {
        amount: 2_500,
        currency: 'usd',
        automatic_payment_methods: { enabled: true },
        description: 'bench',
        metadata: { charge_id: chargeId, merchant_id: '1000', mode: 'live' },
      },
      { idempotencyKey: `ppay_${chargeId}_payment_intent` },
    );
    return created.id;
  };
}
