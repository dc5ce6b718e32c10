import { spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import autocannon from 'autocannon';
import { createMerchant, type NewMerchant } from '../merchants';
import type { Platform, ProcessName } from '../platform';
import { benchPortBase, collectGarbage, GC_ON_SIGNAL_ARGS, startBenchPlatform } from './bench-infra';
import { heldBytes, largestStepGrowth, NodeMemory } from './memory';
import { commandOf, cpuSecondsOf, infraPids, mib, rssBytesOf, totalCpuSeconds } from './proc';
import { printTable, type CaseResult } from './table';
import { approveRaceBench, balanceBench } from './money';
import { renewalsBench, subscriptionsListBench } from './subscriptions';
import { runWebhooksBench } from './webhooks';
import { grpcOptionsBench } from './grpc-options';

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
  /** The least platform req/s as a fraction of the transport ceiling's, measured in the same run. */
  target: number;
  /** gRPC hops one request makes inside the platform (for the transport ceiling). */
  hops: number;
  /** The request writes (a stored document and a JetStream publish): so does the ceiling's last hop. */
  writes?: boolean;
  merchant: { country: string; currency: string; marketplace?: boolean };
  request(m: NewMerchant, gatewayUrl: string): Promise<BenchRequest>;
}

const CASES: Record<string, BenchCase> = {
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
      'POST /api/v1/partner/payments/charge: a real sandbox charge (stored, processor called, marked initialised; its first event is on completion)',
    target: 0.8,
    hops: 1, // gateway → payments (same currency: no conversion call; the merchant facts are a local projection)
    writes: true,
    merchant: { country: 'NG', currency: 'NGN' },
    request: async (m) => ({
      method: 'POST',
      path: '/api/v1/partner/payments/charge',
      headers: { 'x-api-key': m.api_key },
      // No reference and no Idempotency-Key: every request is a new charge.
      body: JSON.stringify({
        amount: 500_000,
        currency: 'NGN',
        total_amount: 500_000,
        total_currency: 'NGN',
        customer: { email: 'bench@example.com', country: 'Nigeria' },
        metadata: { order_id: 'bench-1' },
      }),
    }),
  },
};

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
  o: { seconds: number; connections: number; pids: number[]; rate?: number },
): Promise<Figures> {
  const cpuBefore = totalCpuSeconds(o.pids);
  const result = await autocannon({
    url,
    method: req.method,
    headers: { ...req.headers, ...(req.body ? { 'content-type': 'application/json' } : {}) },
    body: req.body,
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

/** Starts a bench helper process and resolves once it prints its first line ("ready"). */
function startHelper(script: string, args: string[], env: Record<string, string>): Promise<ChildProcess> {
  // BENCH_PROFILE_DIR profiles the ceiling and baseline too (under <dir>/<script>-<role>/), so a hop's
  // profile can be read beside the platform process that takes its place.
  const dir = process.env.BENCH_PROFILE_DIR;
  const profile = dir
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${path.resolve(dir, [path.basename(script, '.js'), ...args.slice(0, 1)].join('-'))}`,
      ]
    : [];
  const child = spawn(process.execPath, [...profile, path.join(__dirname, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${script} ${args.join(' ')} exited with ${code}`)));
  });
}

// Just below the platform's ports, so BENCH_PORT_BASE moves them too (18999 and 18990..18989+hops by default).
const BASELINE_PORT = benchPortBase() - 1;
const CEILING_PORT = benchPortBase() - 10;

/** Bare Fastify → bare grpc-js, one unary call per hop, answering the same body. */
async function startCeiling(
  hops: number,
  body: unknown,
  req: BenchRequest,
  writes?: { mongoUri: string; natsUrl: string },
): Promise<ChildProcess[]> {
  const env = { CEILING_BODY: JSON.stringify(body), CEILING_METHOD: req.method, CEILING_URL: routeOf(req) };
  const grpcPort = (hop: number) => String(CEILING_PORT + hop);
  const leafEnv = writes ? { ...env, CEILING_MONGO_URI: writes.mongoUri, CEILING_NATS_URL: writes.natsUrl } : env;
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
const verdict = (ok: boolean) => (ok ? 'PASS' : 'BELOW TARGET');

/** Cases that are not one HTTP request under load: each runs its own scenario and prints its own figures. */
const SCENARIOS: Record<string, { description: string; run(): Promise<CaseResult> }> = {
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
  'grpc-options': {
    description:
      'grpc-js channel and server options (channelz, retries, channels, streams): one hop, interleaved rounds',
    run: grpcOptionsBench,
  },
  memory: {
    description: 'RSS of every process after two consecutive 30 s (BENCH_MEMORY_SECONDS) runs of a mixed load',
    run: () => memoryBench(),
  },
};

/**
 * Issue 14: no process grows more than this from one 30 s run to the next, in RSS less the V8 heap pages
 * that are committed but free after a full GC (why: `heldBytes`).
 */
const MAX_HELD_GROWTH = 0.1;

/**
 * Consecutive runs of the same mixed load (reads, an operator read, real charges) against one platform:
 * the memory of every process after each, read after a forced full GC. An unmeasured first run warms JIT,
 * pools and caches, so what still grows from one measured run to the next is what a leak would look like.
 */
async function memoryBench(): Promise<CaseResult> {
  const seconds = Number(process.env.BENCH_MEMORY_SECONDS ?? 30);
  // More than 2 tells a process that keeps growing from one that settles (BENCH_MEMORY_RUNS).
  const runs = Math.max(2, Number(process.env.BENCH_MEMORY_RUNS ?? 2));
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const bench = await startBenchPlatform({}, { start: false, nodeArgs: GC_ON_SIGNAL_ARGS });
  const { platform } = bench;
  try {
    await platform.start();
    const merchant = await createMerchant(bench.bootstrap, {
      email: `bench${Date.now()}@example.com`,
      country: 'NG',
      currency: 'NGN',
      marketplace: true,
    });
    const mix = await Promise.all(
      (['account', 'payout-banks', 'charge-create'] as const).map((c) =>
        CASES[c]!.request(merchant, platform.gatewayUrl),
      ),
    );
    const rssNow = () => new Map([...platform.pids()].map(([k, pid]) => [k, rssBytesOf(pid)]));
    const infraRss = () => infraPids(bench.infraDir).reduce((sum, pid) => sum + rssBytesOf(pid), 0);
    const run = async () => {
      const result = await autocannon({
        url: platform.gatewayUrl,
        connections,
        duration: seconds,
        requests: mix.map((r) => ({
          method: r.method,
          path: r.path,
          headers: { ...r.headers, ...(r.body ? { 'content-type': 'application/json' } : {}) },
          body: r.body,
        })),
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000)); // let in-flight work finish
      // A full GC everywhere first: what is left is what the process holds, not where its GC cycle was.
      await collectGarbage(platform.pids().values());
      const heap = new Map<string, NodeMemory>();
      for (const name of platform.pids().keys()) heap.set(name, await nodeMemory(platform, name as ProcessName));
      return { total: result.requests.total, non2xx: result.non2xx, rss: rssNow(), heap, infra: infraRss() };
    };
    await collectGarbage(platform.pids().values());
    const idle = rssNow();
    // One unmeasured run first: V8 sizes its heap, JIT and pools warm up; then the ones that are compared.
    const warm = await run();
    const measured: Awaited<ReturnType<typeof run>>[] = [];
    for (let i = 0; i < runs; i++) measured.push(await run());
    const none: NodeMemory = { heapUsed: 0, heapTotal: 0, external: 0 };
    const rows = [...idle.keys()].map((k) => {
      const rss = measured.map((r) => r.rss.get(k) ?? 0);
      // Judged: what the process holds (RSS less V8's free committed pages), from one run to the next.
      const held = measured.map((r) => heldBytes(r.rss.get(k) ?? 0, r.heap.get(k) ?? none));
      const { growth, from } = largestStepGrowth(held);
      const across = (pick: (m: NodeMemory) => number) =>
        [warm, ...measured].map((r) => mib(pick(r.heap.get(k) ?? none))).join(' → ');
      const heap = `V8 heap used ${across((m) => m.heapUsed)}, committed ${across((m) => m.heapTotal)}, external ${across((m) => m.external)}`;
      return { name: k, idle: idle.get(k) ?? 0, rss, held, a: held[from]!, b: held[from + 1]!, heap, growth };
    });
    const worst = rows.reduce((w, r) => (r.growth > w.growth ? r : w), rows[0]!);
    const pass = rows.every((r) => r.growth <= MAX_HELD_GROWTH);
    const series = (values: number[]) => values.map((b) => mib(b)).join(' → ');
    process.stdout.write(
      [
        '',
        `case memory: a warm-up and ${runs} consecutive ${seconds} s runs of GET /account + GET /marketplace/payout/banks + POST /payments/charge, ${connections} connections; every reading after a full GC in every process`,
        `  requests  warm-up ${warm.total}, measured ${measured.map((r) => `${r.total} (${r.non2xx} non-2xx)`).join(', ')}`,
        `  held = RSS less V8's committed but free heap pages (judged); RSS as read beside it`,
        ...rows.map(
          (r) =>
            `  ${r.name.padEnd(14)} idle RSS ${mib(r.idle).padStart(8)}   held ${series(r.held)}   largest growth ${(r.growth * 100).toFixed(1).padStart(5)} %   RSS ${series(r.rss)}   (${r.heap})`,
        ),
        `  database + NATS after each run ${series(measured.map((r) => r.infra))} (grows with the stored charges; not judged)`,
        `  largest growth ${worst.name} ${(worst.growth * 100).toFixed(1)} % (target <= ${MAX_HELD_GROWTH * 100} % from each run to the next, every process) ${verdict(pass)}`,
        '',
      ].join('\n'),
    );
    return {
      name: 'memory',
      platform: `largest growth of held memory ${worst.name} ${(worst.growth * 100).toFixed(1)} % (${mib(worst.a)} → ${mib(worst.b)})`,
      reference: 'the same process after the previous run',
      ratio: `${(1 + worst.growth).toFixed(2)}x`,
      target: `<= ${(1 + MAX_HELD_GROWTH).toFixed(2)}x per process`,
      pass,
      failed: [warm, ...measured].some((r) => r.non2xx > 0),
    };
  } finally {
    await bench.stop();
  }
}

/** Targets of every HTTP case besides req/s, against the ceiling in the same run (issue 14). */
const MAX_CPU_RATIO = 1.25;
const MAX_P99_RATIO_AT_HALF_LOAD = 1.5;

async function runHttpCase(name: string, spec: BenchCase): Promise<CaseResult> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const bench = await startBenchPlatform({}, { start: false });
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
    );
    helpers.push(...ceilingProcesses);
    const platformUrl = platform.gatewayUrl + req.path;
    const ceilingUrl = `http://127.0.0.1:${CEILING_PORT}${req.path}`;
    const baselineUrl = `http://127.0.0.1:${BASELINE_PORT}${req.path}`;
    // CPU is summed over the processes that serve each side, the database and NATS included on both.
    const shared = infraPids(bench.infraDir);
    const platformPids = [...platform.pids().values(), ...shared];
    const ceilingPids = [...ceilingProcesses.map((c) => c.pid!), ...shared];
    const rssIdle = new Map([...platform.pids()].map(([k, pid]) => [k, rssBytesOf(pid)]));

    // Short warm-ups so JIT and connection pools settle before measuring.
    const warm = { seconds: Math.min(2, seconds), connections, pids: [] };
    for (const url of [platformUrl, ceilingUrl, baselineUrl]) await measure(url, req, warm);
    const missesBefore = await cacheMisses(platform);
    const platformCpu = cpuByProcess(namedPids(platform, bench.infraDir));
    const real = await measure(platformUrl, req, { seconds, connections, pids: platformPids });
    const byProcess = platformCpu.perRequest(real.total);
    const missesDuring = (await cacheMisses(platform)) - missesBefore;
    // The ceiling's processes by role, so each hop compares with the platform process in its place.
    const ceilingCpu = cpuByProcess(
      new Map([
        ...ceilingProcesses.map((c, i) => [ceilingRole(i, ceilingProcesses.length), c.pid!] as const),
        ...infraPids(bench.infraDir).map((pid) => [commandOf(pid), pid] as const),
      ]),
    );
    const ceiling = await measure(ceilingUrl, req, { seconds, connections, pids: ceilingPids });
    const ceilingByProcess = ceilingCpu.perRequest(ceiling.total);
    const base = await measure(baselineUrl, req, { seconds, connections, pids: [baseline.pid!] });
    // Latency at a fixed offered load: half of what the ceiling sustains, the same rate for both.
    const paced = Math.min(connections, 10);
    const halfRate = Math.max(1, Math.round(ceiling.rps / 2 / paced)) * paced;
    const half = { seconds, connections: paced, rate: halfRate };
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
        `  ceiling   ${fmt(ceiling)}`,
        `            (bare Fastify + bare grpc-js, ${spec.hops} unary ${hopWord} per request${spec.writes ? ', one insert and one JetStream publish' : ''}; no auth/protobuf/metrics)`,
        `            cpu ms/req by process: ${ceilingByProcess}`,
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
  }
}

function usage(): number {
  process.stderr.write(
    `Usage: npm run bench -- <case>|all\nCases:\n${[...Object.entries(CASES), ...Object.entries(SCENARIOS)]
      .map(([k, c]) => `  ${k}: ${c.description}`)
      .join('\n')}\n  all: every case above, then one table\n`,
  );
  return 64;
}

async function runCase(name: string): Promise<CaseResult> {
  const scenario = SCENARIOS[name];
  if (scenario) return scenario.run();
  return runHttpCase(name, CASES[name]!);
}

async function main(): Promise<number> {
  const name = process.argv[2];
  if (name === 'all') {
    const results: CaseResult[] = [];
    for (const each of [...Object.keys(CASES), ...Object.keys(SCENARIOS)]) {
      try {
        results.push(await runCase(each));
      } catch (err) {
        process.stderr.write(`case ${each} failed: ${(err as Error).stack ?? String(err)}\n`);
        results.push({
          name: each,
          platform: 'error',
          reference: '',
          ratio: '',
          target: '',
          pass: false,
          failed: true,
        });
      }
    }
    printTable(results);
    // Targets are reported, not enforced (a shared machine varies 2x); errors and failed requests are.
    return results.some((r) => r.failed) ? 1 : 0;
  }
  if (!name || (!CASES[name] && !SCENARIOS[name])) return usage();
  const result = await runCase(name);
  return result.failed ? 1 : 0;
}

/** Every platform process, and the database and NATS by their command names, for the CPU breakdown. */
/** CPU seconds of named processes from now; `perRequest(n)` prints each one's ms per request since. */
function cpuByProcess(named: Map<string, number>) {
  const before = new Map([...named].map(([k, pid]) => [k, cpuSecondsOf(pid)]));
  return {
    perRequest: (requests: number) =>
      [...named]
        .map(([k, pid]) => ({ k, ms: ((cpuSecondsOf(pid) - before.get(k)!) * 1000) / Math.max(1, requests) }))
        .filter((p) => p.ms >= 0.005)
        .sort((a, b) => b.ms - a.ms)
        .map((p) => `${p.k} ${p.ms.toFixed(2)}`)
        .join(', '),
  };
}

/** startCeiling's children in order: the leaf, the relays from the last hop back, the front. */
function ceilingRole(index: number, count: number): string {
  if (index === 0) return 'leaf';
  if (index === count - 1) return 'front';
  return `relay${count - 1 - index}`;
}

function namedPids(platform: Platform, infraDir: string): Map<string, number> {
  const infra = infraPids(infraDir).map((pid) => [commandOf(pid), pid] as const);
  return new Map([...platform.pids(), ...infra]);
}

/** A process's Prometheus exposition, as lines. */
async function metricLines(platform: Platform, name: ProcessName): Promise<string[]> {
  return (await (await fetch(platform.metricsUrl(name))).text()).split('\n');
}

/** The value of `metric`'s first sample whose labels include `label` (e.g. `result="miss"`); 0 if none. */
function sampleValue(lines: string[], metric: string, label = ''): number {
  const line = lines.find((l) => (l.startsWith(`${metric} `) || l.startsWith(`${metric}{`)) && l.includes(label));
  return line ? Number(line.split(' ').pop()) : 0;
}

/**
 * The V8 heap in use and committed, and the memory outside it that V8 tracks (Buffers): prom-client's
 * default metrics. A leak of objects grows the first, of Buffers the last.
 */
async function nodeMemory(platform: Platform, name: ProcessName): Promise<NodeMemory> {
  const lines = await metricLines(platform, name);
  return {
    heapUsed: sampleValue(lines, 'ppay_nodejs_heap_size_used_bytes'),
    heapTotal: sampleValue(lines, 'ppay_nodejs_heap_size_total_bytes'),
    external: sampleValue(lines, 'ppay_nodejs_external_memory_bytes'),
  };
}

async function cacheMisses(platform: Platform): Promise<number> {
  return sampleValue(
    await metricLines(platform, 'gateway'),
    'ppay_gateway_apikey_cache_lookups_total',
    'result="miss"',
  );
}

void main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
