import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import autocannon from 'autocannon';
import { createMerchant, type NewMerchant } from '../merchants';
import { startStripeMockProcess, type StripeMockProcess } from '../stripe-mock';
import { benchPortBase, startBenchPlatform } from './bench-infra';
import { dbSnapshot, dbWork, fmtDbWork } from './db-work';
import { startHelper } from './helper-process';
import { commandOf, infraPids, mib, rssBytesOf, totalCpuSeconds } from './proc';
import { cacheMisses, cpuByProcess, namedPids } from './process-metrics';
import type { CaseResult } from './table';

/**
 * The HTTP cases: one request under load through the real stack (gateway → gRPC → service), a bare
 * Fastify baseline returning the same body and the transport ceiling (bare Fastify → bare grpc-js, one
 * unary call per hop), in the same run. All traffic goes to 127.0.0.1, bounded by duration.
 */
export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface BenchCase {
  description: string;
  /** The least platform req/s as a fraction of the transport ceiling's, measured in the same run. */
  target: number;
  /** gRPC hops one request makes inside the platform (for the transport ceiling). */
  hops: number;
  /** The request writes (a stored document and a JetStream publish): so does the ceiling's last hop. */
  writes?: boolean;
  /** Every request carries its own Idempotency-Key (as partners send them); the ceiling ignores it. */
  uniqueIdempotencyKeys?: boolean;
  merchant: { country: string; currency: string; marketplace?: boolean; keyMode?: 'live' };
  /**
   * Live card charges on Stripe: stripe-mock is started, the platform's payments pointed at it, and the
   * ceiling's last hop makes the same PaymentIntent create with the SDK before its durable write.
   */
  stripe?: boolean;
  request(m: NewMerchant, gatewayUrl: string): Promise<BenchRequest>;
}

export const CASES: Record<string, BenchCase> = {
  account: {
    description: 'GET /api/v1/partner/account with a warm API-key cache',
    target: 0.85,
    hops: 1, // gateway → marketplace
    merchant: { country: 'NG', currency: 'NGN' },
    request: async (m) => ({ method: 'GET', path: '/api/v1/partner/account', headers: { 'x-api-key': m.api_key } }),
  },
  'payout-banks': {
    description: 'GET /api/v1/partner/marketplace/payout/banks?currency=NGN (operator key; list served from memory)',
    target: 0.85,
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
    target: 0.85,
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
  'charge-create': {
    description:
      'POST /api/v1/partner/payments/charge: a real sandbox charge (processor called, stored once with its answer; its first event is on completion)',
    target: 0.8,
    hops: 1, // gateway → payments (same currency: no conversion call; the merchant facts are a local projection)
    writes: true,
    merchant: { country: 'NG', currency: 'NGN' },
    // No reference and no Idempotency-Key: every request is a new charge.
    request: async (m) => chargeRequest(m),
  },
  'charge-create-keyed': {
    description:
      'POST /api/v1/partner/payments/charge with a new Idempotency-Key per request (as partners send them): the key claimed in the gateway and bound in payments',
    target: 0.8,
    hops: 1,
    writes: true,
    uniqueIdempotencyKeys: true,
    merchant: { country: 'NG', currency: 'NGN' },
    request: async (m) => chargeRequest(m),
  },
  'charge-create-live': {
    description:
      'POST /api/v1/partner/payments/charge with a live key: a USD card charge whose PaymentIntent is created at Stripe (stripe-mock on loopback), stored with its answer',
    target: 0.8,
    hops: 1, // gateway → payments, then payments → Stripe (the ceiling's leaf makes the same SDK call)
    writes: true,
    stripe: true,
    merchant: { country: 'US', currency: 'USD', keyMode: 'live' },
    request: async (m) => ({
      method: 'POST',
      path: '/api/v1/partner/payments/charge',
      headers: { 'x-api-key': m.api_key },
      body: JSON.stringify({
        amount: 2_500,
        currency: 'USD',
        total_amount: 2_500,
        total_currency: 'USD',
        customer: { email: 'bench@example.com', country: 'United States' },
        metadata: { order_id: 'bench-1' },
      }),
    }),
  },
};

/** stripe-mock and the STRIPE_* a live case's platform and ceiling use (keys made at run time). */
async function stripeFor(spec: BenchCase): Promise<{ mock: StripeMockProcess; url: string; key: string } | null> {
  if (!spec.stripe) return null;
  const mock = await startStripeMockProcess();
  return { mock, url: `http://127.0.0.1:${mock.port}`, key: `sk_test_${randomBytes(12).toString('hex')}` };
}

function stripeEnv(stripe: { url: string; key: string }) {
  return {
    payments: {
      STRIPE_SECRET_KEY: stripe.key,
      STRIPE_PUBLISHABLE_KEY: `pk_test_${randomBytes(12).toString('hex')}`,
      STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(12).toString('hex')}`,
      STRIPE_API_BASE: stripe.url,
      // As the ceiling: a failed call is a failed request, not a hidden retry.
      STRIPE_MAX_NETWORK_RETRIES: '0',
    },
    gateway: { RATE_LIMIT_LIVE_PER_SECOND: '1000000' },
  };
}

function chargeRequest(m: NewMerchant): BenchRequest {
  return {
    method: 'POST',
    path: '/api/v1/partner/payments/charge',
    headers: { 'x-api-key': m.api_key },
    body: JSON.stringify({
      amount: 500_000,
      currency: 'NGN',
      total_amount: 500_000,
      total_currency: 'NGN',
      customer: { email: 'bench@example.com', country: 'Nigeria' },
      metadata: { order_id: 'bench-1' },
    }),
  };
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  total: number;
  /** CPU seconds of the serving processes (load generator excluded) per request, in ms. */
  cpuMsPerRequest: number;
}

/** Max throughput when `rate` is absent; otherwise a fixed offered load of `rate` requests/s. */
async function measure(
  url: string,
  req: BenchRequest,
  o: { seconds: number; connections: number; pids: number[]; rate?: number; uniqueKeys?: boolean },
): Promise<Figures> {
  const cpuBefore = totalCpuSeconds(o.pids);
  const keyPrefix = `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  let sent = 0;
  const result = await autocannon({
    url,
    method: req.method,
    headers: { ...req.headers, ...(req.body ? { 'content-type': 'application/json' } : {}) },
    body: req.body,
    ...(o.uniqueKeys
      ? {
          requests: [
            {
              setupRequest: (r: autocannon.Request) => ({
                ...r,
                headers: { ...r.headers, 'idempotency-key': `${keyPrefix}-${sent++}` },
              }),
            },
          ],
        }
      : {}),
    connections: o.connections,
    duration: o.seconds,
    // autocannon paces each connection: the offered load is connectionRate × connections.
    ...(o.rate ? { connectionRate: Math.max(1, Math.round(o.rate / o.connections)) } : {}),
  });
  const cpu = totalCpuSeconds(o.pids) - cpuBefore;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    total: result.requests.total,
    cpuMsPerRequest: (cpu * 1000) / Math.max(1, result.requests.total),
  };
}

/** The route a bare server registers for the request: its path without the query string. */
const routeOf = (req: BenchRequest): string => req.path.split('?')[0]!;

// Just below the platform's ports, so BENCH_PORT_BASE moves them too (18999 and 18990..18989+hops by default).
const BASELINE_PORT = benchPortBase() - 1;
const CEILING_PORT = benchPortBase() - 10;

/** Bare Fastify → bare grpc-js, one unary call per hop, answering the same body. */
async function startCeiling(
  hops: number,
  body: unknown,
  req: BenchRequest,
  writes?: { mongoUri: string; natsUrl: string },
  stripe?: { url: string; key: string } | null,
): Promise<ChildProcess[]> {
  const env = { CEILING_BODY: JSON.stringify(body), CEILING_METHOD: req.method, CEILING_URL: routeOf(req) };
  const grpcPort = (hop: number) => String(CEILING_PORT + hop);
  const leafEnv = {
    ...env,
    ...(writes ? { CEILING_MONGO_URI: writes.mongoUri, CEILING_NATS_URL: writes.natsUrl } : {}),
    ...(stripe ? { CEILING_STRIPE_API_BASE: stripe.url, CEILING_STRIPE_SECRET_KEY: stripe.key } : {}),
  };
  const children = [await startHelper('transport-ceiling.js', ['leaf', grpcPort(hops)], leafEnv)];
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
  `${f.rps.toFixed(0).padStart(8)} req/s   p50 ${String(f.p50).padStart(4)} ms   p99 ${String(f.p99).padStart(4)} ms   cpu ${f.cpuMsPerRequest.toFixed(2).padStart(6)} ms/req   (${f.total} requests, ${f.non2xx} non-2xx)`;
const fmtLatency = (f: Figures) =>
  `${f.rps.toFixed(0).padStart(8)} req/s   p50 ${String(f.p50).padStart(4)} ms   p99 ${String(f.p99).padStart(4)} ms   cpu ${f.cpuMsPerRequest.toFixed(2).padStart(6)} ms/req`;
export const verdict = (ok: boolean) => (ok ? 'PASS' : 'BELOW TARGET');

/** Targets of every HTTP case besides req/s, against the ceiling in the same run. */
const MAX_CPU_RATIO = 1.25;
const MAX_P99_RATIO_AT_HALF_LOAD = 1.5;

export async function runHttpCase(name: string, spec: BenchCase): Promise<CaseResult> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const stripe = await stripeFor(spec);
  const bench = await startBenchPlatform(stripe ? stripeEnv(stripe) : {}, { start: false }).catch(async (err) => {
    await stripe?.mock.stop();
    throw err;
  });
  const { platform } = bench;
  const helpers: ChildProcess[] = [];
  try {
    await platform.start();
    const merchant = await createMerchant(bench.bootstrap, {
      email: `bench${Date.now()}@example.com`,
      ...spec.merchant,
    });
    const req = await spec.request(merchant, platform.gatewayUrl);
    const first = await fetch(platform.gatewayUrl + req.path, {
      method: req.method,
      headers: { ...req.headers, ...(req.body ? { 'content-type': 'application/json' } : {}) },
      body: req.body,
    });
    const sample = (await first.json()) as unknown;
    if (!first.ok) throw new Error(`warm-up request failed: ${first.status} ${JSON.stringify(sample)}`);
    const baseline = await startHelper('baseline-server.js', [], {
      PORT: String(BASELINE_PORT),
      BASELINE_BODY: JSON.stringify(sample),
      BASELINE_METHOD: req.method,
      BASELINE_URL: routeOf(req),
    });
    helpers.push(baseline);
    const ceilingProcesses = await startCeiling(
      spec.hops,
      sample,
      req,
      spec.writes ? { mongoUri: bench.mongoUri, natsUrl: bench.natsUrl } : undefined,
      stripe,
    );
    helpers.push(...ceilingProcesses);
    const platformUrl = platform.gatewayUrl + req.path;
    const ceilingUrl = `http://127.0.0.1:${CEILING_PORT}${req.path}`;
    const baselineUrl = `http://127.0.0.1:${BASELINE_PORT}${req.path}`;
    // CPU is summed over the processes that serve each side, the database, NATS and stripe-mock included on both.
    const shared = [...infraPids(bench.infraDir), ...(stripe ? [stripe.mock.child.pid!] : [])];
    const platformPids = [...platform.pids().values(), ...shared];
    const ceilingPids = [...ceilingProcesses.map((c) => c.pid!), ...shared];
    const rssIdle = new Map([...platform.pids()].map(([k, pid]) => [k, rssBytesOf(pid)]));

    // Short warm-ups so JIT and connection pools settle before measuring.
    const uniqueKeys = spec.uniqueIdempotencyKeys === true;
    const warm = { seconds: Math.min(2, seconds), connections, pids: [], uniqueKeys };
    for (const url of [platformUrl, ceilingUrl, baselineUrl]) await measure(url, req, warm);
    const snapshot = () => dbSnapshot(bench.ferretdbMetricsUrl, bench.mongoUri);
    const missesBefore = await cacheMisses(platform);
    const platformDbBefore = await snapshot();
    const platformCpu = cpuByProcess(namedPids(platform, bench.infraDir));
    const real = await measure(platformUrl, req, { seconds, connections, pids: platformPids, uniqueKeys });
    const byProcess = platformCpu.perRequest(real.total);
    const platformDb = dbWork(platformDbBefore, await snapshot(), real.total);
    const missesDuring = (await cacheMisses(platform)) - missesBefore;
    // The ceiling's processes by role, so each hop compares with the platform process in its place.
    const ceilingDbBefore = await snapshot();
    const ceilingCpu = cpuByProcess(
      new Map([
        ...ceilingProcesses.map((c, i) => [ceilingRole(i, ceilingProcesses.length), c.pid!] as const),
        ...infraPids(bench.infraDir).map((pid) => [commandOf(pid), pid] as const),
      ]),
    );
    const ceiling = await measure(ceilingUrl, req, { seconds, connections, pids: ceilingPids, uniqueKeys });
    const ceilingByProcess = ceilingCpu.perRequest(ceiling.total);
    const ceilingDb = dbWork(ceilingDbBefore, await snapshot(), ceiling.total);
    const base = await measure(baselineUrl, req, { seconds, connections, pids: [baseline.pid!] });
    // Latency at a fixed offered load: half of what the ceiling sustains, the same rate for both.
    const paced = Math.min(connections, 10);
    const halfRate = Math.max(1, Math.round(ceiling.rps / 2 / paced)) * paced;
    const half = { seconds, connections: paced, rate: halfRate, uniqueKeys };
    const realHalf = await measure(platformUrl, req, { ...half, pids: platformPids });
    const ceilingHalf = await measure(ceilingUrl, req, { ...half, pids: ceilingPids });
    const rssEnd = new Map([...platform.pids()].map(([k, pid]) => [k, rssBytesOf(pid)]));

    const ratio = real.rps / ceiling.rps;
    const cpuRatio = real.cpuMsPerRequest / Math.max(1e-9, ceiling.cpuMsPerRequest);
    const p99Ratio = realHalf.p99 / Math.max(1, ceilingHalf.p99);
    const pass = ratio >= spec.target && cpuRatio <= MAX_CPU_RATIO && p99Ratio <= MAX_P99_RATIO_AT_HALF_LOAD;
    const hopWord = spec.hops === 1 ? 'hop' : 'hops';
    const memory = [...rssIdle].map(([k, idle]) => `${k} ${mib(idle)} → ${mib(rssEnd.get(k) ?? 0)}`).join(', ');
    process.stdout.write(
      [
        '',
        `case ${name}: ${spec.description}`,
        `  ${seconds}s per side, ${connections} connections, ${os.cpus().length} cores shared by load generator and servers`,
        `  platform  ${fmt(real)}`,
        `            cpu ms/req by process: ${byProcess}`,
        `            ${fmtDbWork(platformDb)}`,
        `  ceiling   ${fmt(ceiling)}`,
        `            (bare Fastify + bare grpc-js, ${spec.hops} unary ${hopWord} per request${spec.stripe ? ', the SDK PaymentIntent create' : ''}${spec.writes ? ', one insert and one JetStream publish' : ''}; no auth/protobuf/metrics)`,
        `            cpu ms/req by process: ${ceilingByProcess}`,
        `            ${fmtDbWork(ceilingDb)}`,
        `  baseline  ${fmt(base)}`,
        `  at a fixed offered ${halfRate} req/s (half the ceiling's max, ${paced} paced connections):`,
        `  platform  ${fmtLatency(realHalf)}`,
        `  ceiling   ${fmtLatency(ceilingHalf)}`,
        `  req/s     ${ratio.toFixed(2)}x the ceiling (target >= ${spec.target}x) ${verdict(ratio >= spec.target)}`,
        `  cpu/req   ${cpuRatio.toFixed(2)}x the ceiling's (target <= ${MAX_CPU_RATIO}x) ${verdict(cpuRatio <= MAX_CPU_RATIO)}`,
        `  p99 @50%  ${p99Ratio.toFixed(2)}x the ceiling's (target <= ${MAX_P99_RATIO_AT_HALF_LOAD}x) ${verdict(p99Ratio <= MAX_P99_RATIO_AT_HALF_LOAD)}`,
        `  baseline  platform ${(real.rps / base.rps).toFixed(2)}x, ceiling ${(ceiling.rps / base.rps).toFixed(2)}x a bare Fastify route`,
        `  rss       idle → end: ${memory}`,
        `  api-key cache misses during the measured run: ${missesDuring} (0 = no key lookup per request)`,
        '',
      ].join('\n'),
    );
    return {
      name,
      platform: `${real.rps.toFixed(0)} req/s, ${real.cpuMsPerRequest.toFixed(2)} ms cpu/req, p99@50% ${realHalf.p99} ms`,
      reference: `ceiling ${ceiling.rps.toFixed(0)} req/s, ${ceiling.cpuMsPerRequest.toFixed(2)} ms cpu/req, p99@50% ${ceilingHalf.p99} ms`,
      ratio: `${ratio.toFixed(2)}x req/s, ${cpuRatio.toFixed(2)}x cpu, ${p99Ratio.toFixed(2)}x p99`,
      target: `>= ${spec.target}x, <= ${MAX_CPU_RATIO}x, <= ${MAX_P99_RATIO_AT_HALF_LOAD}x`,
      pass,
      // A failed request on any side means the comparison is void (e.g. a route the bare servers lack).
      failed: real.non2xx + ceiling.non2xx + base.non2xx + realHalf.non2xx + ceilingHalf.non2xx > 0,
    };
  } finally {
    for (const child of helpers) child.kill('SIGTERM');
    await bench.stop();
    await stripe?.mock.stop();
  }
}

/** startCeiling's children in order: the leaf, the relays from the last hop back, the front. */
function ceilingRole(index: number, count: number): string {
  if (index === 0) return 'leaf';
  if (index === count - 1) return 'front';
  return `relay${count - 1 - index}`;
}
