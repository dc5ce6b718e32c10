import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PORTS, grpcAddrEnvVar, RemoteCallError } from '@ppay/runtime';
import { listen } from './listen';
import { createMerchant } from './merchants';
import { REPO_ROOT } from './paths';
import { loadOrCreateSecrets } from './secrets';
import { mintAdminToken } from './tokens';

const USAGE = `Usage: npm run merchant -- create --email EMAIL --country CC --currency CUR [--name NAME] [--marketplace] [--live]
                                   [--customer-pays-fees] [--operator OPERATOR_MERCHANT_ID [--commission PERCENT]]
       npm run merchant -- admin-token [--user USER_ID] [--expires 30m]
       npm run merchant -- listen --api-key pk_sandbox_… --forward-to http://localhost:3000/webhooks
                                   [--gateway http://localhost:8080] [--events payment.succeeded,…]

Creates a merchant on the running platform and prints one JSON line with merchant_id,
user_token (send as x-id-key), a sandbox api_key (send as X-API-Key) and its webhook_secret.
--operator creates it as an active sub-merchant of that marketplace operator (which must have
called POST /marketplace/setup); --commission sets its own rate in percent (default: the
marketplace default). The line then carries marketplace_id (null otherwise).
--customer-pays-fees turns on the business setting that adds the transaction fee to what the
customer pays (PATCH /api/v1/partner/account/settings changes it later).

admin-token prints one JSON line with admin_token: a platform administrator's token (x-id-key with
the admin audience ppay-admin, acr mfa and the role claim platform_admin) for the admin API, e.g.
GET /api/v1/admin/kyc/submissions. It lives at most an hour (the gateway refuses older ones).

listen streams the key's events as they happen (GET /api/v1/partner/events/stream) and forwards
each to --forward-to with the headers and signatures of a real delivery, signed with a secret made
for this session and printed once at start; one line per event: time, type, id, receiver status,
latency. Stop with Ctrl-C.

Environment: MARKETPLACE_GRPC_ADDR, WEBHOOKS_GRPC_ADDR (default: the local platform's ports),
AUTH_JWT_SECRET (default: the local platform's generated secret in PPAY_STATE_DIR, default .infra/).`;

const ADMIN_TOKEN_LIFETIMES = /^\d{1,5}[smh]$/;
const seconds = (lifetime: string) =>
  Number(lifetime.slice(0, -1)) * { s: 1, m: 60, h: 3600 }[lifetime.slice(-1) as 's' | 'm' | 'h'];

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      country: { type: 'string' },
      currency: { type: 'string' },
      name: { type: 'string' },
      marketplace: { type: 'boolean', default: false },
      live: { type: 'boolean', default: false },
      'customer-pays-fees': { type: 'boolean', default: false },
      operator: { type: 'string' },
      commission: { type: 'string' },
      user: { type: 'string' },
      expires: { type: 'string' },
      'api-key': { type: 'string' },
      'forward-to': { type: 'string' },
      gateway: { type: 'string' },
      events: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const stateDir = process.env.PPAY_STATE_DIR ?? path.join(REPO_ROOT, '.infra');
  const jwtSecret = () => process.env.AUTH_JWT_SECRET ?? loadOrCreateSecrets(stateDir).AUTH_JWT_SECRET;
  if (!values.help && positionals[0] === 'admin-token') {
    const user = values.user ?? 'usr_platform_admin';
    if (
      !/^[A-Za-z0-9_.:@-]{1,128}$/.test(user) ||
      (values.expires !== undefined && !(ADMIN_TOKEN_LIFETIMES.test(values.expires) && seconds(values.expires) <= 3600))
    ) {
      process.stderr.write(
        `--user must be 1 to 128 of [A-Za-z0-9_.:@-]; --expires like 15m, 1h (an hour at most)\n\n${USAGE}\n`,
      );
      return 64;
    }
    const token = await mintAdminToken(user, { secret: jwtSecret(), expiresIn: values.expires });
    process.stdout.write(`${JSON.stringify({ admin_token: token, user_id: user, role: 'platform_admin' })}\n`);
    return 0;
  }
  if (!values.help && positionals[0] === 'listen') return runListen(values);
  if (values.help || positionals[0] !== 'create') {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 64;
  }
  const missing = (['email', 'country', 'currency'] as const).filter((k) => !values[k]);
  if (missing.length) {
    process.stderr.write(`Missing --${missing.join(', --')}\n\n${USAGE}\n`);
    return 64;
  }
  let operator: number | undefined;
  let commission: number | undefined;
  if (values.operator !== undefined) {
    operator = Number(values.operator);
    if (!/^\d+$/.test(values.operator) || !Number.isSafeInteger(operator) || operator < 1) {
      process.stderr.write(`--operator must be a merchant id\n\n${USAGE}\n`);
      return 64;
    }
    if (values.marketplace) {
      process.stderr.write(`--operator and --marketplace exclude each other\n\n${USAGE}\n`);
      return 64;
    }
  }
  if (values.commission !== undefined) {
    commission = Number(values.commission);
    if (operator === undefined || !/^\d+(\.\d+)?$/.test(values.commission) || commission > 100) {
      process.stderr.write(`--commission needs --operator and a percentage from 0 to 100\n\n${USAGE}\n`);
      return 64;
    }
  }
  try {
    const merchant = await createMerchant(
      {
        marketplaceAddr: process.env[grpcAddrEnvVar('marketplace')] ?? `127.0.0.1:${DEFAULT_PORTS.marketplace.grpc}`,
        webhooksAddr: process.env[grpcAddrEnvVar('webhooks')] ?? `127.0.0.1:${DEFAULT_PORTS.webhooks.grpc}`,
        jwtSecret: jwtSecret(),
      },
      {
        email: values.email!,
        country: values.country!,
        currency: values.currency!,
        businessName: values.name,
        marketplace: values.marketplace,
        keyMode: values.live ? 'live' : 'sandbox',
        customerPaysFees: values['customer-pays-fees'],
        operator,
        commission,
      },
    );
    process.stdout.write(`${JSON.stringify(merchant)}\n`);
    return 0;
  } catch (err) {
    const message =
      err instanceof RemoteCallError && err.errorCode
        ? `${err.errorCode}: ${err.message}`
        : `${(err as Error).message} (is the platform running? start it with: npm start)`;
    process.stderr.write(`merchant create failed: ${message}\n`);
    return 1;
  }
}

async function runListen(values: {
  'api-key'?: string;
  'forward-to'?: string;
  gateway?: string;
  events?: string;
}): Promise<number> {
  const apiKey = values['api-key'] ?? '';
  const types = values.events ? values.events.split(',').filter(Boolean) : [];
  const problems = [
    /^pk_(sandbox|live)_[0-9A-Za-z]{32}$/.test(apiKey) ? '' : '--api-key must be an API key (pk_sandbox_…)',
    isHttpUrl(values['forward-to']) ? '' : '--forward-to must be an http(s) URL',
    values.gateway === undefined || isHttpUrl(values.gateway) ? '' : '--gateway must be an http(s) URL',
    types.every((t) => /^[a-z_.]{1,60}$/.test(t)) && types.length <= 20 ? '' : '--events: event types, comma-separated',
  ].filter(Boolean);
  if (problems.length) {
    process.stderr.write(`${problems.join('\n')}\n\n${USAGE}\n`);
    return 64;
  }
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  return listen({
    apiKey,
    forwardTo: values['forward-to']!,
    gateway: values.gateway ?? process.env.PPAY_GATEWAY_URL ?? `http://localhost:${DEFAULT_PORTS.gateway.http}`,
    types,
    signal: stop.signal,
  });
}

function isHttpUrl(value: string | undefined): boolean {
  if (!value || value.length > 2048) return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

void main().then((code) => process.exit(code));
