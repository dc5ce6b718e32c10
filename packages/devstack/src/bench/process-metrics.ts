import type { Platform, ProcessName } from '../platform';
import type { NodeMemory } from './memory';
import { commandOf, cpuSecondsOf, infraPids } from './proc';

// What a bench reads off the platform's processes: CPU per process, metrics, V8 memory.

/**
 * CPU seconds of named processes from now: `entries(n)` gives each one's ms per request since (those
 * above 0.005 ms, largest first), `perRequest(n)` prints them.
 */
export function cpuByProcess(named: Map<string, number>) {
  const before = new Map([...named].map(([k, pid]) => [k, cpuSecondsOf(pid)]));
  const entries = (requests: number): [string, number][] =>
    [...named]
      .map(([k, pid]) => [k, ((cpuSecondsOf(pid) - before.get(k)!) * 1000) / Math.max(1, requests)] as [string, number])
      .filter(([, ms]) => ms >= 0.005)
      .sort((a, b) => b[1] - a[1]);
  return {
    entries,
    perRequest: (requests: number) =>
      entries(requests)
        .map(([k, ms]) => `${k} ${ms.toFixed(2)}`)
        .join(', '),
  };
}

/** Every platform process, and the database and NATS by their command names, for the CPU breakdown. */
export function namedPids(platform: Platform, infraDir: string): Map<string, number> {
  const infra = infraPids(infraDir).map((pid) => [commandOf(pid), pid] as const);
  return new Map([...platform.pids(), ...infra]);
}

/** A process's Prometheus exposition, as lines. */
export async function metricLines(platform: Platform, name: ProcessName): Promise<string[]> {
  return (await (await fetch(platform.metricsUrl(name))).text()).split('\n');
}

/** The value of `metric`'s first sample whose labels include `label` (e.g. `result="miss"`); 0 if none. */
export function sampleValue(lines: string[], metric: string, label = ''): number {
  const line = lines.find((l) => (l.startsWith(`${metric} `) || l.startsWith(`${metric}{`)) && l.includes(label));
  return line ? Number(line.split(' ').pop()) : 0;
}

/**
 * The V8 heap in use and committed, and the memory outside it that V8 tracks (Buffers): prom-client's
 * default metrics. A leak of objects grows the first, of Buffers the last.
 */
export async function nodeMemory(platform: Platform, name: ProcessName): Promise<NodeMemory> {
  const lines = await metricLines(platform, name);
  return {
    heapUsed: sampleValue(lines, 'ppay_nodejs_heap_size_used_bytes'),
    heapTotal: sampleValue(lines, 'ppay_nodejs_heap_size_total_bytes'),
    external: sampleValue(lines, 'ppay_nodejs_external_memory_bytes'),
  };
}

export async function cacheMisses(platform: Platform): Promise<number> {
  return sampleValue(
    await metricLines(platform, 'gateway'),
    'ppay_gateway_apikey_cache_lookups_total',
    'result="miss"',
  );
}
