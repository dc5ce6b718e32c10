import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import autocannon from 'autocannon';
import { benchPortBase } from './bench-infra';
import { totalCpuSeconds } from './proc';
import type { CaseResult } from './table';

/**
 * `npm run bench -- grpc-options`: which grpc-js channel and server options make one unary hop
 * cheaper. Each variant is the transport ceiling (bare Fastify → bare grpc-js leaf)
 * started with those options; the variants are measured in interleaved rounds (A B C … A B C …) so a
 * machine whose speed drifts treats them alike, and each prints its median over the rounds.
 */
interface Variant {
  name: string;
  options: Record<string, number>;
  channels?: number;
  /** Not an option: each call carries the platform's caller metadata (see transport-ceiling). */
  callerMetadata?: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'defaults', options: {} },
  { name: 'channelz off', options: { 'grpc.enable_channelz': 0 } },
  { name: 'retries off', options: { 'grpc.enable_retries': 0 } },
  { name: 'channelz + retries off', options: { 'grpc.enable_channelz': 0, 'grpc.enable_retries': 0 } },
  { name: '2 channels per target', options: {}, channels: 2 },
  { name: 'max_concurrent_streams 1000', options: { 'grpc.max_concurrent_streams': 1000 } },
  { name: 'defaults + caller metadata', options: {}, callerMetadata: true },
];

function start(role: string, args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(__dirname, 'transport-ceiling.js'), role, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`transport-ceiling ${role} exited with ${code}`)));
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function grpcOptionsBench(): Promise<CaseResult> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const base = benchPortBase() + 200;
  const body = JSON.stringify({ success: true, data: { merchant_id: 1000, baseline_currency: 'NGN' } });
  const children: ChildProcess[] = [];
  try {
    const running = [];
    for (const [i, v] of VARIANTS.entries()) {
      const env = {
        CEILING_BODY: body,
        CEILING_URL: '/account',
        CEILING_GRPC_OPTIONS: JSON.stringify(v.options),
        CEILING_CHANNELS: String(v.channels ?? 1),
        CEILING_CALL_METADATA: v.callerMetadata ? '1' : '0',
      };
      const leaf = await start('leaf', [String(base + 2 * i + 1)], env);
      const front = await start('front', [String(base + 2 * i), `127.0.0.1:${base + 2 * i + 1}`], env);
      children.push(leaf, front);
      running.push({ variant: v, url: `http://127.0.0.1:${base + 2 * i}/account`, pids: [leaf.pid!, front.pid!] });
    }
    const samples = new Map<string, { rps: number[]; cpu: number[] }>(
      VARIANTS.map((v) => [v.name, { rps: [], cpu: [] }]),
    );
    for (const r of running) await autocannon({ url: r.url, connections, duration: 1 }); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const r of running) {
        const before = totalCpuSeconds(r.pids);
        const result = await autocannon({ url: r.url, connections, duration: seconds });
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${r.variant.name}: failed requests`);
        const cpuMs = ((totalCpuSeconds(r.pids) - before) * 1000) / Math.max(1, result.requests.total);
        samples.get(r.variant.name)!.rps.push(result.requests.average);
        samples.get(r.variant.name)!.cpu.push(cpuMs);
      }
    }
    const reference = samples.get('defaults')!;
    const refCpu = median(reference.cpu);
    const refRps = median(reference.rps);
    const lines = VARIANTS.map((v) => {
      const s = samples.get(v.name)!;
      const cpu = median(s.cpu);
      const rps = median(s.rps);
      return `  ${v.name.padEnd(28)} ${rps.toFixed(0).padStart(7)} req/s (${(rps / refRps).toFixed(2)}x)   cpu ${cpu.toFixed(3)} ms/req (${(cpu / refCpu).toFixed(2)}x)   rounds: ${s.cpu.map((c) => c.toFixed(3)).join(' ')}`;
    });
    process.stdout.write(
      [
        '',
        `case grpc-options: bare Fastify → bare grpc-js leaf per variant, ${rounds} interleaved rounds of ${seconds} s, ${connections} connections; medians (ratio to defaults)`,
        ...lines,
        '',
      ].join('\n'),
    );
    const best = VARIANTS.map((v) => ({ v, cpu: median(samples.get(v.name)!.cpu) })).sort((a, b) => a.cpu - b.cpu)[0]!;
    return {
      name: 'grpc-options',
      platform: `best: ${best.v.name}, ${best.cpu.toFixed(3)} ms cpu/req`,
      reference: `defaults ${refCpu.toFixed(3)} ms cpu/req`,
      ratio: `${(best.cpu / refCpu).toFixed(2)}x cpu`,
      target: 'informational',
      pass: null,
      failed: false,
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}
