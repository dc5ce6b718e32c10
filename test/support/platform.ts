import { createHash, randomBytes } from 'node:crypto';
import * as path from 'node:path';
import mongoose, { type Connection } from 'mongoose';
import {
  createMerchant,
  Platform,
  type NewMerchant,
  type NewMerchantInput,
  type PlatformOptions,
} from '@ppay/devstack';
import { testInfraUrls, TEST_INFRA } from './infra';

export interface TestPlatform {
  platform: Platform;
  /** Gateway base URL, e.g. http://127.0.0.1:21300 */
  url: string;
  jwtSecret: string;
  merchant(input?: Partial<NewMerchantInput>): Promise<NewMerchant>;
  /** Direct read access to a service's own database, for assertions about what is stored. */
  db(service: 'webhooks' | 'marketplace' | 'payments'): Promise<Connection>;
  stop(): Promise<void>;
}

/**
 * Starts the real platform — six service processes and the gateway — on ports derived from the
 * suite name, with databases prefixed per run so suites never see each other's data.
 */
export async function startTestPlatform(
  suite: string,
  overrides: Partial<PlatformOptions> = {},
): Promise<TestPlatform> {
  const { mongoUri, natsUrl } = testInfraUrls();
  const slot = createHash('sha256').update(suite).digest().readUInt16BE(0) % 80;
  const portBase = 21000 + slot * 100;
  const dbPrefix = `t${randomBytes(3).toString('hex')}_`;
  const secrets = {
    API_KEY_PEPPER: randomBytes(32).toString('base64'),
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
  };
  const platform = new Platform({
    mongoUri,
    natsUrl,
    secrets,
    portBase,
    dbPrefix,
    logDir: path.join(TEST_INFRA.dir, 'logs', suite),
    logLevel: process.env.TEST_LOG_LEVEL ?? 'info',
    ...overrides,
  });
  await platform.start();
  const connections: Connection[] = [];
  return {
    platform,
    url: platform.gatewayUrl,
    jwtSecret: secrets.AUTH_JWT_SECRET,
    merchant: (input = {}) =>
      createMerchant(
        {
          marketplaceAddr: platform.grpcAddress('marketplace'),
          webhooksAddr: platform.grpcAddress('webhooks'),
          jwtSecret: secrets.AUTH_JWT_SECRET,
        },
        {
          email: `m${randomBytes(6).toString('hex')}@example.com`,
          country: 'NG',
          currency: 'NGN',
          ...input,
        },
      ),
    async db(service) {
      const conn = await mongoose.createConnection(mongoUri, { dbName: `${dbPrefix}ppay_${service}` }).asPromise();
      connections.push(conn);
      return conn;
    },
    async stop() {
      await Promise.all(connections.map((c) => c.close()));
      await platform.stop();
    },
  };
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** fetch + JSON, returning status, headers and parsed body. */
export async function http<T = any>(
  base: string,
  method: string,
  url: string,
  options: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(base + url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (e.g. the Swagger UI page)
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Polls `check` until it returns true or the timeout passes (for effects that travel over NATS). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return check();
}
