import type { ProcessorSavedCard } from '../cards';
import type { Script } from './stripe.test-util';

/**
 * A Stripe that keeps the PaymentIntents it was asked to make, for off-session flows through the real
 * library (scriptedStripe): a create is answered once per idempotency key (a repeat gets the first
 * answer, as Stripe's keys do for a day; `forgetKeys` is that day passing), lists a customer's
 * PaymentIntents by creation time, and takes refunds. `next` is what the next new PaymentIntent does;
 * `hangNext` makes the next create take effect at Stripe with its answer never sent (a timeout).
 */
export type OffSessionOutcome =
  'succeeded' | 'processing' | 'requires_action' | { code: string; decline_code?: string; message?: string };

export interface FakeIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  customer: string;
  payment_method: string;
  status: string;
  created: number;
  metadata: Record<string, string>;
  last_payment_error: Record<string, unknown> | null;
  client_secret: string;
}

export const LIVE_CARD: ProcessorSavedCard = {
  brand: 'visa',
  last4: '4242',
  processor: 'stripe',
  customer_reference: 'cus_renewals',
  method_reference: 'pm_card_saved',
};

export function offSessionStripe(clock: () => Date) {
  const intents: FakeIntent[] = [];
  const answers = new Map<string, { status: number; json: unknown }>();
  const state: { next: OffSessionOutcome; hangNext: boolean; unavailableNext: number } = {
    next: 'succeeded',
    hangNext: false,
    unavailableNext: 0,
  };
  const requests: string[] = [];

  const create = (form: URLSearchParams) => {
    const outcome = state.next;
    const metadata: Record<string, string> = {};
    for (const [k, v] of form) {
      const m = /^metadata\[(.+)\]$/.exec(k);
      if (m) metadata[m[1]!] = v;
    }
    const id = `pi_fake_${intents.length + 1}`;
    const error =
      typeof outcome === 'object'
        ? { type: 'card_error', message: outcome.message ?? 'Your card was declined.', ...outcome }
        : null;
    const intent: FakeIntent = {
      id,
      object: 'payment_intent',
      amount: Number(form.get('amount')),
      currency: String(form.get('currency')),
      customer: String(form.get('customer')),
      payment_method: String(form.get('payment_method')),
      status: typeof outcome === 'object' ? 'requires_payment_method' : outcome,
      created: Math.floor(clock().getTime() / 1000),
      metadata,
      last_payment_error: error,
      client_secret: `${id}_secret_x`,
    };
    intents.push(intent);
    return error
      ? { status: 402, json: { error: { ...error, payment_intent: intent } } }
      : { status: 200, json: intent };
  };

  const script: Script = (req, body) => {
    const url = new URL(req.url ?? '/', 'http://stripe.local');
    requests.push(`${req.method} ${url.pathname}`);
    if (req.method === 'POST' && url.pathname === '/v1/payment_intents') {
      if (state.unavailableNext > 0) {
        state.unavailableNext--;
        return { status: 503, json: { error: { type: 'api_error', message: 'Stripe is down' } } };
      }
      const key = String(req.headers['idempotency-key']);
      const answer = answers.get(key) ?? create(new URLSearchParams(body));
      answers.set(key, answer);
      if (state.hangNext) {
        state.hangNext = false;
        return { status: 0, hang: true };
      }
      return answer;
    }
    if (req.method === 'GET' && url.pathname === '/v1/payment_intents') {
      const since = Number(url.searchParams.get('created[gte]') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 10);
      const mine = intents
        .filter((i) => i.customer === url.searchParams.get('customer') && i.created >= since)
        .reverse();
      return {
        status: 200,
        json: { object: 'list', url: '/v1/payment_intents', data: mine.slice(0, limit), has_more: mine.length > limit },
      };
    }
    if (req.method === 'POST' && url.pathname === '/v1/refunds') {
      const form = new URLSearchParams(body);
      return {
        status: 200,
        json: {
          id: `re_fake_${requests.length}`,
          object: 'refund',
          status: 'pending',
          amount: Number(form.get('amount')),
          payment_intent: form.get('payment_intent'),
          metadata: {},
        },
      };
    }
    return { status: 404, json: { error: { type: 'invalid_request_error', message: 'unknown path' } } };
  };

  return {
    script,
    intents,
    requests,
    state,
    /** Stripe's day of idempotency keys has passed: a create under an old key makes a new PaymentIntent. */
    forgetKeys: () => answers.clear(),
    creates: () => requests.filter((r) => r === 'POST /v1/payment_intents').length,
  };
}
