import { spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import autocannon from 'autocannon';
import { createMerchant, type NewMerchant } from '../merchants';
import { infraDown, infraUp, Platform } from '../platform';
import { REPO_ROOT } from '../paths';
import { loadOrCreateSecrets } from '../secrets';
import { benchInfraOptions, benchPortBase } from './bench-infra';
import { approveRaceBench, balanceBench } from './money';
import { renewalsBench, subscriptionsListBench } from './subscriptions';
import { runWebhooksBench } from './webhooks';

/**
 * `npm run bench -- <case>`: measures a case through the real stack (gateway → gRPC → service) and a
 * bare Fastify baseline returning the same body, in the same run, and prints both and their ratio.
 * All traffic goes to 127.0.0.1, bounded by duration.
 */
interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface BenchCase {
  description: string;
  target: number;
  /** gRPC hops one request makes inside the platform (for the transport ceiling). */
  hops: number;
  merchant: { country: string; currency: string; marketplace?: boolean };
  request(m: NewMerchant, gatewayUrl: string): Promise<BenchRequest>;
}

const CASES: Record<string, BenchCase> = {
  account: {
    description: 'GET /api/v1/partner/account with a warm API-key cache',
    target: 0.5,
    hops: 1, // gateway → marketplace
    merchant: { country: 'NG', currency: 'NGN' },
    request: async (m) => ({ method: 'GET', path: '/api/v1/partner/account', headers: { 'x-api-key': m.api_key } }),
  },
  'payout-banks': {
    description: 'GET /api/v1/partner/marketplace/payout/banks?currency=NGN (operator key; list served from memory)',
    target: 0.4,
    hops: 1, // gateway → kyc (the operator flag is cached there for 30 s)
    merchant: { country: 'NG', currency: 'NGN', marketplace: true },
    request: async (m) => ({
      method: 'GET',
      path: '/api/v1/partner/marketplace/payout/banks?currency=NGN',
      headers: { 'x-api-key': m.api_key },
    }),
  },
  'charge-preview': {
    description: 'POST /api/v1/partner/payments/charge, preview: true, USD price charged in NGN (conversion + fees)',
    target: 0.4,
    hops: 2, // gateway → payments → fx-pricing
    merchant: { country: 'US', currency: 'USD' },
    async request(m, gatewayUrl) {
      // The amount a partner would send: the platform's own conversion of the price (spec 4.1 flow).
      const calc = await fetch(`${gatewayUrl}/api/v1/partner/pricing/calculate?amount=2500&target_currency=NGN`, {
        headers: { 'x-api-key': m.api_key },
      });
      const { data } = (await calc.json()) as { data: { local: { amount: number } } };
      return {
        method: 'POST',
        path: '/api/v1/partner/payments/charge',
        headers: { 'x-api-key': m.api_key },
        body: JSON.stringify({
          amount: data.local.amount,
          currency: 'NGN',
          total_amount: 2500,
          total_currency: 'USD',
          customer: { email: 'bench@example.com', country: 'Nigeria' },
          metadata: { order_id: 'bench-1' },
          preview: true,
        }),
      };
    },
  },
};

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  total: number;
}

async function measure(url: string, req: BenchRequest, seconds: number, connections: number): Promise<Figures> {
  const result = await autocannon({
    url,
    method: req.method,
    headers: { ...req.headers, ...(req.body ? { 'content-type': 'application/json' } : {}) },
    body: req.body,
    connections,
    duration: seconds,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

/** Starts a bench helper process and resolves once it prints its first line ("ready"). */
function startHelper(script: string, args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(__dirname, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${script} ${args.join(' ')} exited with ${code}`)));
  });
}

const BASELINE_PORT = 18999;
const CEILING_PORT = 18990;

/** Bare Fastify → bare grpc-js, one unary call per hop, answering the same body. */
async function startCeiling(hops: number, body: unknown, req: BenchRequest): Promise<ChildProcess[]> {
  const env = { CEILING_BODY: JSON.stringify(body), CEILING_METHOD: req.method, CEILING_URL: req.path };
  const grpcPort = (hop: number) => String(CEILING_PORT + hop);
  const children = [await startHelper('transport-ceiling.js', ['leaf', grpcPort(hops)], env)];
  for (let hop = hops - 1; hop >= 1; hop--) {
    children.push(
      await startHelper('transport-ceiling.js', ['relay', grpcPort(hop), `127.0.0.1:${grpcPort(hop + 1)}`], env),
    );
  }
  children.push(
    await startHelper('transport-ceiling.js', ['front', String(CEILING_PORT), `127.0.0.1:${grpcPort(1)}`], env),
  );
  return children;
}

const fmt = (f: Figures) =>
  `${f.rps.toFixed(0).padStart(8)} req/s   p50 ${String(f.p50).padStart(4)} ms   p99 ${String(f.p99).padStart(4)} ms   (${f.total} requests, ${f.non2xx} non-2xx)`;

/** Cases that are not one HTTP request under load: each runs its own scenario and prints its own figures. */
const SCENARIOS: Record<string, { description: string; run(): Promise<number> }> = {
  renewals: {
    description: '10,000 subscriptions falling due at once, renewed by the scheduler (renewals/s, double charges)',
    run: renewalsBench,
  },
  'subscriptions-list': {
    description: 'p99 of a sorted GET /subscriptions page at 1,000 vs 100,000 subscriptions of one merchant',
    run: subscriptionsListBench,
  },
  webhooks: {
    description: 'event fan-out and signed delivery against a bare HMAC + POST loop',
    run: runWebhooksBench,
  },
  balance: {
    description: 'p99 of a sub-merchant balance read at 1,000 vs 1,000,000 (BENCH_LARGE) ledger entries',
    run: balanceBench,
  },
  'approve-race': {
    description: 'reserve/approve cycles per second with concurrent approvals, and double spends (must be 0)',
    run: approveRaceBench,
  },
};

async function main(): Promise<number> {
  const name = process.argv[2];
  const scenario = name ? SCENARIOS[name] : undefined;
  if (scenario) return scenario.run();
  const bench = name ? CASES[name] : undefined;
  if (!bench) {
    process.stderr.write(
      `Usage: npm run bench -- <case>\nCases:\n${[...Object.entries(CASES), ...Object.entries(SCENARIOS)]
        .map(([k, c]) => `  ${k}: ${c.description}`)
        .join('\n')}\n`,
    );
    return 64;
  }
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const stateDir = path.join(REPO_ROOT, '.infra', 'bench');
  const infraOptions = benchInfraOptions();
  const infra = await infraUp(infraOptions);
  const secrets = loadOrCreateSecrets(stateDir);
  const platform = new Platform({
    mongoUri: infra.mongoUri,
    natsUrl: infra.natsUrl,
    secrets,
    portBase: benchPortBase(),
    logDir: path.join(stateDir, 'logs'),
    logLevel: 'warn',
    // The limiter stays in the measured path, with a limit this load never reaches.
    envFor: { gateway: { RATE_LIMIT_SANDBOX_PER_SECOND: '1000000' } },
  });
  const helpers: ChildProcess[] = [];
  try {
    await platform.start();
    const merchant = await createMerchant(
      {
        marketplaceAddr: platform.grpcAddress('marketplace'),
        webhooksAddr: platform.grpcAddress('webhooks'),
        jwtSecret: secrets.AUTH_JWT_SECRET,
      },
      { email: `bench${Date.now()}@example.com`, ...bench.merchant },
    );
    const req = await bench.request(merchant, platform.gatewayUrl);
    const first = await fetch(platform.gatewayUrl + req.path, {
      method: req.method,
      headers: { ...req.headers, ...(req.body ? { 'content-type': 'application/json' } : {}) },
      body: req.body,
    });
    const sample = (await first.json()) as unknown;
    if (!first.ok) throw new Error(`warm-up request failed: ${first.status} ${JSON.stringify(sample)}`);
    helpers.push(
      await startHelper('baseline-server.js', [], {
        PORT: String(BASELINE_PORT),
        BASELINE_BODY: JSON.stringify(sample),
        BASELINE_METHOD: req.method,
        BASELINE_URL: req.path,
      }),
    );
    helpers.push(...(await startCeiling(bench.hops, sample, req)));
    const platformUrl = platform.gatewayUrl + req.path;
    const ceilingUrl = `http://127.0.0.1:${CEILING_PORT}${req.path}`;
    const baselineUrl = `http://127.0.0.1:${BASELINE_PORT}${req.path}`;

    // Short warm-ups so JIT and connection pools settle before measuring.
    for (const url of [platformUrl, ceilingUrl, baselineUrl]) await measure(url, req, 2, connections);
    const missesBefore = await cacheMisses(platform);
    const real = await measure(platformUrl, req, seconds, connections);
    const missesDuring = (await cacheMisses(platform)) - missesBefore;
    const ceiling = await measure(ceilingUrl, req, seconds, connections);
    const base = await measure(baselineUrl, req, seconds, connections);
    const ratio = real.rps / base.rps;
    const hopWord = bench.hops === 1 ? 'hop' : 'hops';
    process.stdout.write(
      [
        '',
        `case ${name}: ${bench.description}`,
        `  ${seconds}s per side, ${connections} connections, ${os.cpus().length} cores shared by load generator and servers`,
        `  platform  ${fmt(real)}`,
        `  ceiling   ${fmt(ceiling)}`,
        `            (bare Fastify + bare grpc-js, ${bench.hops} unary ${hopWord} per request, no auth/protobuf/metrics/database)`,
        `  baseline  ${fmt(base)}`,
        `  ratio     ${ratio.toFixed(2)}x baseline req/s (target >= ${bench.target}x) ${ratio >= bench.target ? 'PASS' : 'BELOW TARGET'}`,
        `  ceiling   ${(ceiling.rps / base.rps).toFixed(2)}x baseline: the most any design with one gRPC call per hop reaches here`,
        `  platform  ${(real.rps / ceiling.rps).toFixed(2)}x the transport ceiling`,
        `  api-key cache misses during the measured run: ${missesDuring} (0 = no key lookup per request)`,
        '',
      ].join('\n'),
    );
    return real.non2xx + ceiling.non2xx > 0 ? 1 : 0;
  } finally {
    for (const child of helpers) child.kill('SIGTERM');
    await platform.stop();
    if (infra.startedHere) await infraDown(infraOptions);
  }
}

async function cacheMisses(platform: Platform): Promise<number> {
  const text = await (await fetch(platform.metricsUrl('gateway'))).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('ppay_gateway_apikey_cache_lookups_total') && l.includes('result="miss"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

void main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
