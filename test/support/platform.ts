import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as net from 'node:net';
import * as path from 'node:path';
import mongoose, { type Connection } from 'mongoose';
import { newRequestId, type ComponentName } from '@ppay/kernel';
import { callerToMetadata, grpcAddrEnvVar, ServiceClient } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import {
  createMerchant,
  mintAdminToken,
  Platform,
  type NewMerchant,
  type NewMerchantInput,
  type PlatformOptions,
} from '@ppay/devstack';
import { testInfraUrls, TEST_INFRA } from './infra';

/** A wallet's spec 2.9 numbers, minor units of `currency` (the wire WalletBalance carries them as Money). */
export interface WalletNumbers {
  currency: string;
  balance: number;
  total_credits: number;
  total_debits: number;
  transaction_count: number;
}

export interface TestPlatform {
  platform: Platform;
  /** Gateway base URL, e.g. http://127.0.0.1:21300 */
  url: string;
  jwtSecret: string;
  merchant(input?: Partial<NewMerchantInput>): Promise<NewMerchant>;
  /** Runs `npm run merchant -- <args>` (the built CLI) against this platform; never throws. */
  merchantCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /**
   * A merchant's wallet balances, read from payments over gRPC as the marketplace service does: the
   * spec 2.9 numbers (formatted_balance, available and reserved are asserted through the HTTP API).
   */
  walletBalances(merchantId: number, mode?: 'sandbox' | 'live'): Promise<WalletNumbers[]>;
  /** A platform administrator's token (x-id-key with role platform_admin), as `npm run merchant -- admin-token`. */
  adminToken(userId?: string): Promise<string>;
  /** Direct read access to a service's own database, for assertions about what is stored. */
  db(service: ComponentName): Promise<Connection>;
  stop(): Promise<void>;
}

const MERCHANT_CLI = path.resolve(__dirname, '..', '..', 'packages', 'devstack', 'dist', 'merchant-cli.js');

const UNLIMITED_RATES = {
  RATE_LIMIT_LIVE_PER_SECOND: '0',
  RATE_LIMIT_SANDBOX_PER_SECOND: '0',
  RATE_LIMIT_DASHBOARD_PER_SECOND: '0',
  RATE_LIMIT_ANONYMOUS_PER_SECOND: '0',
};

const SLOT_SPAN = 60; // gateway +0/+1, services +10..+15 and +20..+25; a second replica of any of them +30
const SLOTS = 200; // ports 21000–32999

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port range derived from the suite name (stable across runs), moved on to the next slot when
 * something already listens there — e.g. another suite run by a parallel job.
 */
async function freePortBase(suite: string): Promise<number> {
  const start = createHash('sha256').update(suite).digest().readUInt16BE(0) % SLOTS;
  for (let i = 0; i < SLOTS; i++) {
    const base = 21000 + ((start + i) % SLOTS) * SLOT_SPAN;
    const probes = [base, base + 1, base + 10, base + 15, base + 20, base + 25];
    if ((await Promise.all(probes.map(portFree))).every(Boolean)) return base;
  }
  throw new Error('no free port range for the test platform');
}

/**
 * Starts the real platform — six service processes and the gateway — on ports derived from the
 * suite name, with databases prefixed per run so suites never see each other's data.
 */
export async function startTestPlatform(
  suite: string,
  overrides: Partial<PlatformOptions> = {},
  infra: { mongoUri: string; natsUrl: string; logDir?: string } = testInfraUrls(),
): Promise<TestPlatform> {
  const { mongoUri, natsUrl } = infra;
  const portBase = await freePortBase(suite);
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
    logDir: path.join(infra.logDir ?? path.join(TEST_INFRA.dir, 'logs'), suite),
    logLevel: process.env.TEST_LOG_LEVEL ?? 'info',
    ...overrides,
    envFor: {
      ...overrides.envFor,
      // Suites burst far above a partner's limits; rate-limits.test.ts sets its own.
      gateway: { ...UNLIMITED_RATES, ...overrides.envFor?.gateway },
    },
  });
  await platform.start();
  const connections: Connection[] = [];
  let payments: ServiceClient<types.payments.PaymentsServiceClient> | undefined;
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
    merchantCli: (args) =>
      new Promise((resolve) => {
        const env = {
          ...process.env,
          [grpcAddrEnvVar('marketplace')]: platform.grpcAddress('marketplace'),
          [grpcAddrEnvVar('webhooks')]: platform.grpcAddress('webhooks'),
          AUTH_JWT_SECRET: secrets.AUTH_JWT_SECRET,
        };
        execFile(process.execPath, [MERCHANT_CLI, ...args], { env }, (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        });
      }),
    adminToken: (userId = 'usr_platform_admin') => mintAdminToken(userId, { secret: secrets.AUTH_JWT_SECRET }),
    async walletBalances(merchantId, mode = 'sandbox') {
      payments ??= new ServiceClient(
        'payments',
        loadPlatformProto().ppay.payments.v1.PaymentsService,
        platform.grpcAddress('payments'),
        { deadlineMs: 5_000 },
      );
      const res = await payments.call(
        'GetWalletBalances',
        { merchant_id: merchantId, mode },
        callerToMetadata({ requestId: newRequestId(), auth: 'internal' }),
      );
      return res.balances.map((b) => ({
        currency: b.balance!.currency,
        balance: b.balance!.amount,
        total_credits: b.total_credits!.amount,
        total_debits: b.total_debits!.amount,
        transaction_count: b.transaction_count,
      }));
    },
    async db(service) {
      const dbName = `${dbPrefix}ppay_${service.replace(/-/g, '_')}`;
      const conn = await mongoose.createConnection(mongoUri, { dbName }).asPromise();
      connections.push(conn);
      return conn;
    },
    async stop() {
      payments?.close();
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
