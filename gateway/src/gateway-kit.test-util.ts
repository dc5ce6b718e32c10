import { createSecretKey, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import type { KV, KvEntry } from 'nats';
import { PlatformError, SecretBox } from '@ppay/kernel';
import { status as grpcStatus } from '@grpc/grpc-js';
import { PlatformMetrics, RemoteCallError, createLogger, loadConfig, type Logger } from '@ppay/runtime';
import { buildGateway } from './app';
import { ApiKeyCache, type ApiKeyPrincipal } from './auth/api-key-cache';
import { AuthFailureLimiter } from './auth/failure-limiter';
import { UserTokenVerifier } from './auth/user-token';
import type { Clients } from './clients';
import { adminTokenPolicy, gatewayConfigSchema, type GatewayConfig } from './config';
import type { GatewayDeps } from './deps';
import { IdempotencyStore } from './http/idempotency';

/**
 * The real gateway (routes, hooks, schemas, error mapping) over fake services, for `app.inject`
 * tests that run in milliseconds. Each fake service answers from a map of method → handler; a
 * method without a handler fails the test loudly.
 */
export type FakeHandler = (request: any, metadata: { get(key: string): unknown[] }) => unknown;
export type FakeServices = Partial<Record<keyof Clients, Record<string, FakeHandler>>>;

export interface ServiceCall {
  service: keyof Clients;
  method: string;
  request: any;
  merchantId: string | undefined;
  mode: string | undefined;
  /** The call's own deadline, when the route sets one (e.g. GRPC_PAYMENT_DEADLINE_MS). */
  deadlineMs?: number;
}

function fakeClients(services: FakeServices, calls: ServiceCall[]): Clients {
  const names: (keyof Clients)[] = [
    'payments',
    'fxPricing',
    'subscriptions',
    'marketplace',
    'kyc',
    'webhooks',
    'authentication',
  ];
  return Object.fromEntries(
    names.map((service) => [
      service,
      {
        target: service,
        breakerState: 'closed',
        close: () => undefined,
        async call(
          method: string,
          request: unknown,
          metadata: { get(key: string): unknown[] },
          options?: { deadlineMs?: number },
        ) {
          calls.push({
            service,
            method,
            request,
            merchantId: metadata.get('x-ppay-merchant-id')[0] as string | undefined,
            mode: metadata.get('x-ppay-mode')[0] as string | undefined,
            ...(options?.deadlineMs !== undefined && { deadlineMs: options.deadlineMs }),
          });
          const handler = services[service]?.[method];
          if (!handler) throw new Error(`unexpected call ${service}.${method}`);
          return handler(request, metadata);
        },
      },
    ]),
  ) as unknown as Clients;
}

/** Just enough of a JetStream KV bucket for the Idempotency-Key store: create, get, update, delete. */
export class MemoryKv {
  readonly entries = new Map<string, { value: Uint8Array; revision: number; operation: 'PUT' | 'DEL' }>();
  private revision = 0;
  async create(key: string, value: Uint8Array) {
    if (this.entries.get(key)?.operation === 'PUT') throw new Error('wrong last sequence');
    this.entries.set(key, { value, revision: ++this.revision, operation: 'PUT' });
    return this.revision;
  }
  async get(key: string) {
    const e = this.entries.get(key);
    return e ? ({ key, ...e } as unknown as KvEntry) : null;
  }
  async update(key: string, value: Uint8Array, revision: number) {
    const e = this.entries.get(key);
    if ((e?.revision ?? 0) !== revision) throw new Error('wrong last sequence');
    this.entries.set(key, { value, revision: ++this.revision, operation: 'PUT' });
    return this.revision;
  }
  async delete(key: string) {
    const e = this.entries.get(key);
    if (e) this.entries.set(key, { ...e, revision: ++this.revision, operation: 'DEL' });
  }
}

export interface TestGateway {
  app: FastifyInstance;
  calls: ServiceCall[];
  kv: MemoryKv;
  /** The gateway's metrics registry, to read what operators would see. */
  metrics: PlatformMetrics;
  /** A valid dashboard user token (x-id-key) for `merchantId`. */
  userToken(merchantId: number): Promise<string>;
  /** A valid dashboard token with these claims. */
  tokenWith(claims: Record<string, unknown>, subject?: string): Promise<string>;
  /**
   * A valid platform administrator's token (admin audience, `acr: mfa`, role platform_admin, issued now
   * for an hour); `claims` replace or add claims (`acr: undefined` drops it), `audience` replaces it.
   */
  adminToken(
    claims?: Record<string, unknown>,
    options?: { subject?: string; audience?: string; issuedAt?: number },
  ): Promise<string>;
}

/** API keys the fake key lookup knows: `pk_sandbox_…` of merchant 1000 and `pk_live_…` of 1000. */
export const SANDBOX_KEY = 'pk_sandbox_' + 'a'.repeat(32);
export const LIVE_KEY = 'pk_live_' + 'b'.repeat(32);
const KEYS: Record<string, ApiKeyPrincipal> = {
  [SANDBOX_KEY]: { keyId: 'key_sbx', merchantId: 1000, mode: 'sandbox', apiVersion: '2026-03-27' },
  [LIVE_KEY]: { keyId: 'key_live', merchantId: 1000, mode: 'live', apiVersion: '2026-03-27' },
};

export async function testGateway(
  services: FakeServices = {},
  env: NodeJS.ProcessEnv = {},
  log: Logger = createLogger('gateway-test', 'silent'),
): Promise<TestGateway> {
  const secret = randomBytes(32).toString('base64url');
  const config = loadConfig(gatewayConfigSchema, {
    AUTH_JWT_SECRET: secret,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    RATE_LIMIT_SANDBOX_PER_SECOND: '0',
    RATE_LIMIT_LIVE_PER_SECOND: '0',
    RATE_LIMIT_DASHBOARD_PER_SECOND: '0',
    RATE_LIMIT_ANONYMOUS_PER_SECOND: '0',
    ...env,
  }) as GatewayConfig;
  const metrics = new PlatformMetrics('gateway-test');
  const calls: ServiceCall[] = [];
  const kv = new MemoryKv();
  const deps: GatewayDeps = {
    config,
    log,
    metrics,
    clients: fakeClients(services, calls),
    apiKeys: new ApiKeyCache(
      { ttlMs: 30_000, negativeTtlMs: 2_000, maxEntries: 100 },
      async (key) => {
        const principal = KEYS[key];
        if (!principal) throw new PlatformError('INVALID_API_KEY');
        return principal;
      },
      metrics,
    ),
    userTokens: new UserTokenVerifier({
      secret,
      issuer: config.AUTH_JWT_ISSUER,
      audience: config.AUTH_JWT_AUDIENCE,
      maxAgeSeconds: config.AUTH_JWT_MAX_AGE_SECONDS,
      admin: adminTokenPolicy(config),
    }),
    authFailures: new AuthFailureLimiter(config.AUTH_FAILURES_PER_WINDOW, config.AUTH_FAILURE_WINDOW_MS, metrics),
    readiness: () => ({ ready: true, reasons: [] }),
    idempotency: new IdempotencyStore(
      kv as unknown as KV,
      new SecretBox(Buffer.from(config.SECRETS_ENCRYPTION_KEY, 'base64'), 'k1'),
      createLogger('gateway-test', 'silent'),
      metrics,
    ),
  };
  const app = await buildGateway(deps);
  await app.ready();
  return {
    app,
    calls,
    kv,
    metrics,
    userToken: (merchantId) =>
      new SignJWT({ merchant_id: merchantId })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(`usr_${merchantId}`)
        .setIssuer(config.AUTH_JWT_ISSUER)
        .setAudience(config.AUTH_JWT_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(createSecretKey(Buffer.from(secret, 'utf8'))),
    adminToken: (claims = {}, options = {}) =>
      new SignJWT(
        Object.fromEntries(
          Object.entries({ role: 'platform_admin', acr: 'mfa', ...claims }).filter(([, v]) => v !== undefined),
        ),
      )
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(options.subject ?? 'usr_admin')
        .setIssuer(config.AUTH_JWT_ISSUER)
        .setAudience(options.audience ?? config.AUTH_ADMIN_AUDIENCE)
        .setIssuedAt(options.issuedAt)
        .setExpirationTime((options.issuedAt ?? Math.floor(Date.now() / 1000)) + 3600)
        .sign(createSecretKey(Buffer.from(secret, 'utf8'))),
    tokenWith: (claims, subject = 'usr_admin') =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(subject)
        .setIssuer(config.AUTH_JWT_ISSUER)
        .setAudience(config.AUTH_JWT_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(createSecretKey(Buffer.from(secret, 'utf8'))),
  };
}

/**
 * marketplace's answers for the fake key's merchant (1000) as a marketplace operator whose active
 * sub-merchants are `subMerchantIds`: what an operator route asks before judging a request it refused
 * (auth/operator-access.ts). Any other id is RELATIONSHIP_NOT_FOUND, as marketplace answers it.
 */
export function operatorOf(...subMerchantIds: number[]): Record<string, FakeHandler> {
  return {
    GetAccount: () => ({ merchant_id: 1000, is_marketplace_operator: true }),
    DescribeSubMerchant: (req: { sub_merchant_id: number }) => {
      if (!subMerchantIds.includes(req.sub_merchant_id)) {
        throw new RemoteCallError(
          'marketplace',
          'DescribeSubMerchant',
          grpcStatus.NOT_FOUND,
          'Active merchant relationship not found',
          'RELATIONSHIP_NOT_FOUND',
        );
      }
      return {
        active: true,
        status: 'active',
        relationship_id: 1,
        marketplace_id: 1000,
        merchant: { id: req.sub_merchant_id, country: 'NG', baseline_currency: 'NGN', business_name: 'Sub' },
      };
    },
  };
}
