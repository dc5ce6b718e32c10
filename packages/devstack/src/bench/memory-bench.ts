import autocannon from 'autocannon';
import { createMerchant } from '../merchants';
import type { ProcessName } from '../platform';
import { collectGarbage, GC_ON_SIGNAL_ARGS, startBenchPlatform } from './bench-infra';
import { CASES, verdict } from './http-cases';
import { heldBytes, largestStepGrowth, type NodeMemory } from './memory';
import { infraPids, mib, rssBytesOf } from './proc';
import { nodeMemory } from './process-metrics';
import type { CaseResult } from './table';

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
export async function memoryBench(): Promise<CaseResult> {
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
