import type { CallerInfo } from '@ppay/kernel';
import type { Logger, PlatformMetrics } from '@ppay/runtime';
import type { ApiKeyCache } from './auth/api-key-cache';
import type { AuthFailureLimiter } from './auth/failure-limiter';
import type { UserTokenVerifier } from './auth/user-token';
import type { Clients } from './clients';
import type { GatewayConfig } from './config';
import type { IdempotencyStore } from './http/idempotency';

declare module 'fastify' {
  interface FastifyRequest {
    caller: CallerInfo;
  }
  interface FastifyContextConfig {
    /** The 401 message of this route's spec error table, when it is not "Invalid API key". */
    authFailureMessage?: string;
  }
}

/**
 * Everything route modules and hooks need, built by main.ts (real clients) or by tests (fakes).
 * Route modules import this type, never the app module.
 */
export interface GatewayDeps {
  config: GatewayConfig;
  log: Logger;
  metrics: PlatformMetrics;
  clients: Clients;
  apiKeys: ApiKeyCache;
  userTokens: UserTokenVerifier;
  idempotency: IdempotencyStore;
  authFailures: AuthFailureLimiter;
  /** What /ready reports: false while the gateway cannot honour key revocations (its change feed is down). */
  readiness: () => { ready: boolean; reasons: string[] };
}

export const PARTNER_PREFIX = '/api/v1/partner';
export const DASHBOARD_PREFIX = '/api/v1/marketplace';
export const ADMIN_PREFIX = '/api/v1/admin';
