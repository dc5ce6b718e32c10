import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStripeMockProcess } from '@ppay/devstack';
import {
  stripeSettings,
  type StripeSettings,
} from '../../services/payments/src/processors/stripe/stripe-config.adapter';

/** One request as it reached stripe-mock, through the recording proxy. */
export interface StripeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The form-encoded body, decoded (`metadata[charge_id]` keys as Stripe's library sends them). */
  form: Record<string, string>;
  status: number;
}

export interface StripeMock {
  /** What STRIPE_API_BASE is set to: the recording proxy in front of stripe-mock. */
  url: string;
  requests: StripeRequest[];
  /** stripe-mock's own log (it logs each request and the status it answered). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts Stripe's official mock on free loopback ports (built and cached per machine by
 * scripts/stripe-mock.sh when missing), behind a proxy that records every request with its headers:
 * stripe-mock checks each request against Stripe's API description but does not log headers, and the
 * contract tests assert the Idempotency-Key and metadata the connector sends.
 */
/**
 * Fields laid over stripe-mock's answer to one request (its fixtures are fixed: a Refund is always
 * `succeeded`, where a real card refund usually starts `pending`); undefined leaves the answer as is.
 */
export type StripeAnswerPatch = (request: Omit<StripeRequest, 'status'>) => Record<string, unknown> | undefined;

export async function startStripeMock(options: { patch?: StripeAnswerPatch } = {}): Promise<StripeMock> {
  const mock = await startStripeMockProcess();
  const httpPort = mock.port;
  const output = mock.output;

  const requests: StripeRequest[] = [];
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = http.request(
        { host: '127.0.0.1', port: httpPort, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const seen = {
            method: req.method ?? '',
            path: req.url ?? '',
            headers: req.headers,
            form: Object.fromEntries(new URLSearchParams(body.toString('utf8'))),
          };
          requests.push({ ...seen, status: answer.statusCode ?? 0 });
          const patch = answer.statusCode === 200 ? options.patch?.(seen) : undefined;
          if (!patch) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            return;
          }
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const patched = Buffer.from(
              JSON.stringify({ ...JSON.parse(Buffer.concat(parts).toString('utf8')), ...patch }),
            );
            // The body is re-sent whole: its own length, never the upstream's length or chunking.
            const headers = { ...answer.headers, 'content-length': String(patched.length) };
            delete headers['transfer-encoding'];
            res.writeHead(200, headers).end(patched);
          });
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyPort = (proxy.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    requests,
    log: output,
    async stop() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await mock.stop();
    },
  };
}

/**
 * Keys for stripe-mock, made at run time: it takes any `sk_test_…` key, and no key that looks real is
 * committed. `live` is one it refuses (it accepts test keys only).
 */
export function testStripeKeys() {
  const part = () => randomBytes(12).toString('hex');
  return {
    secretKey: `sk_test_${part()}`,
    liveSecretKey: `sk_live_${part()}`,
    publishableKey: `pk_test_${part()}`,
    webhookSecret: `whsec_${part()}`,
  };
}

/** A Stripe event as Stripe sends it (created now): its envelope around the object as of the event. */
export function stripeEventJson(id: string, type: string, object: Record<string, unknown>): string {
  return JSON.stringify({ id, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object } });
}

/**
 * The connector's settings for a contract test against `mock`: test keys (KEYS, from testStripeKeys),
 * a generous timeout and no network retries, so every request the mock records is one the connector made.
 */
export function stripeMockSettings(
  mock: Pick<StripeMock, 'url'>,
  keys: ReturnType<typeof testStripeKeys>,
): StripeSettings {
  return stripeSettings({
    STRIPE_SECRET_KEY: keys.secretKey,
    STRIPE_PUBLISHABLE_KEY: keys.publishableKey,
    STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
    STRIPE_API_BASE: mock.url,
    STRIPE_TIMEOUT_MS: 5_000,
    STRIPE_MAX_NETWORK_RETRIES: 0,
  })!;
}
