import * as http from 'node:http';
import { stripeClient } from '@ppay/stripe-support';
import type { AddressInfo } from 'node:net';
import { stripeSettings, type StripeSettings } from './stripe-config.adapter';
import { StripeCardGateway } from './stripe-payments.adapter';

/**
 * A scripted in-process Stripe for the connector's unit tests: the real library talks HTTP to it, so
 * Stripe's real error bodies and statuses go through the library's own error classes.
 */
export type Script = (req: http.IncomingMessage, body: string) => { status: number; json?: unknown; hang?: boolean };

export const SECRET = 'sk_test_unit0000000000secret';

export async function scriptedStripe(script: Script) {
  const seen: { method: string; path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const answer = script(req, body);
      if (answer.hang) return;
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json ?? {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    settings: (over: Partial<StripeSettings> = {}): StripeSettings => ({
      ...stripeSettings({
        STRIPE_SECRET_KEY: SECRET,
        STRIPE_PUBLISHABLE_KEY: 'pk_test_unit00000000',
        STRIPE_WEBHOOK_SECRET: 'whsec_unit00000000',
        STRIPE_API_BASE: `http://127.0.0.1:${port}`,
        STRIPE_TIMEOUT_MS: 300,
        STRIPE_MAX_NETWORK_RETRIES: 0,
      })!,
      ...over,
    }),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Stripe's error body (the message quotes part of the key, as Stripe's does). */
export const stripeError = (status: number, type: string, extra: Record<string, unknown> = {}) => ({
  status,
  json: { error: { type, message: `Invalid API Key provided: ${SECRET.slice(0, 8)}****`, ...extra } },
});

/** The gateway on the real library, with its calls and auth alerts recorded. */
export function gateway(settings: StripeSettings) {
  const calls: string[] = [];
  let authFailures = 0;
  const adapter = new StripeCardGateway(stripeClient(settings), settings, {
    call: (op, outcome) => calls.push(`${op}:${outcome}`),
    authFailure: () => authFailures++,
  });
  return { adapter, calls, authFailures: () => authFailures };
}

/** A Stripe event as Stripe sends it: its envelope around the object as of the event. */
export function stripeEventJson(id: string, type: string, object: Record<string, unknown>): string {
  return JSON.stringify({ id, object: 'event', type, created: 1_764_583_200, data: { object } });
}

/** The Checkout Session id a `GET /v1/checkout/sessions/{id}` asks for, or null for any other request. */
export function retrievedSessionId(req: http.IncomingMessage): string | null {
  const m = req.method === 'GET' ? /^\/v1\/checkout\/sessions\/([^/?]+)/.exec(req.url ?? '') : null;
  return m ? decodeURIComponent(m[1]!) : null;
}

/**
 * Stripe's answer to reading a completed Checkout Session back with its intent's card expanded (what
 * the connector asks): mode `payment` with its PaymentIntent (kept for off-session use when `saved`),
 * or mode `setup` with its SetupIntent (the card only kept); `customer` is the one Checkout made.
 */
export function completedCheckoutSession(o: {
  id: string;
  intent: string;
  mode?: 'payment' | 'setup';
  saved?: boolean;
  customer?: string | null;
  card?: { brand: string; last4: string };
}) {
  const mode = o.mode ?? 'payment';
  const customer = o.customer === undefined ? (o.saved || mode === 'setup' ? 'cus_checkout_1' : null) : o.customer;
  const method = {
    id: `pm_${o.intent}`,
    object: 'payment_method',
    type: 'card',
    customer,
    card: o.card ?? { brand: 'visa', last4: '4242' },
  };
  const intent =
    mode === 'setup'
      ? { id: o.intent, object: 'setup_intent', status: 'succeeded', payment_method: method }
      : {
          id: o.intent,
          object: 'payment_intent',
          status: 'succeeded',
          setup_future_usage: o.saved ? 'off_session' : null,
          payment_method: method,
        };
  return {
    status: 200,
    json: {
      id: o.id,
      object: 'checkout.session',
      mode,
      status: 'complete',
      customer,
      payment_intent: mode === 'payment' ? intent : null,
      setup_intent: mode === 'setup' ? intent : null,
    },
  };
}
