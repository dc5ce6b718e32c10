import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter } from 'prom-client';
import { PlatformError } from '@ppay/kernel';
import { type PlatformMetrics } from '@ppay/runtime';
import type { GatewayConfig } from '../config';

/** Who a request is counted against (docs/decisions.md "Rate limits"). */
export type LimitClass = 'live' | 'sandbox' | 'dashboard' | 'anonymous';

export function limitClassOf(req: FastifyRequest): LimitClass {
  const caller = req.caller;
  if (caller?.auth === 'api_key') return caller.mode === 'live' ? 'live' : 'sandbox';
  if (caller?.auth === 'user_token' || caller?.auth === 'admin') return 'dashboard';
  return 'anonymous';
}

/** Probes are never limited: an orchestrator must always see the real state. */
const UNLIMITED_PATHS = new Set(['/health', '/ready']);

/**
 * Requests per second, per merchant and mode for API keys (Stripe's live/test split), per merchant
 * for the dashboard user, per client IP for anonymous pages (hosted checkout). Counted in each
 * gateway process; a limit of 0 switches the class off. Runs as a route preValidation hook, so after
 * authentication (scope hooks run first) and before validation and Idempotency-Key handling: a 429 is
 * never stored as a request's idempotent answer.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  config: GatewayConfig,
  metrics: PlatformMetrics,
): Promise<void> {
  const perSecond: Record<LimitClass, number> = {
    live: config.RATE_LIMIT_LIVE_PER_SECOND,
    sandbox: config.RATE_LIMIT_SANDBOX_PER_SECOND,
    dashboard: config.RATE_LIMIT_DASHBOARD_PER_SECOND,
    anonymous: config.RATE_LIMIT_ANONYMOUS_PER_SECOND,
  };
  const limited = new Counter({
    name: 'ppay_gateway_rate_limited_total',
    help: 'Requests refused with 429 by the gateway rate limiter, by limit class',
    labelNames: ['class'],
    registers: [metrics.registry],
  });
  // The key starts with the class, so the class is worked out once per request (in keyGenerator).
  const classOfKey = (key: string) => key.slice(0, key.indexOf(':')) as LimitClass;
  await app.register(rateLimit, {
    global: true,
    hook: 'preValidation',
    timeWindow: 1_000,
    keyGenerator: (req) => {
      const cls = limitClassOf(req);
      return `${cls}:${cls === 'anonymous' ? req.ip : (req.caller.merchantId ?? req.caller.userId)}`;
    },
    allowList: (req, key) => UNLIMITED_PATHS.has(req.url) || perSecond[classOfKey(key)] === 0,
    max: (_req, key) => perSecond[classOfKey(key)],
    onExceeded: (_req, key) => limited.inc({ class: classOfKey(key) }),
    errorResponseBuilder: (req, context) =>
      new PlatformError('RATE_LIMITED', undefined, {
        detail: `at most ${context.max} requests per second for this ${describe(limitClassOf(req))}; retry after ${context.after}`,
      }),
  });
}

function describe(cls: LimitClass): string {
  switch (cls) {
    case 'live':
      return 'merchant with live keys';
    case 'sandbox':
      return 'merchant with sandbox keys';
    case 'dashboard':
      return 'merchant’s dashboard user';
    default:
      return 'client address';
  }
}
