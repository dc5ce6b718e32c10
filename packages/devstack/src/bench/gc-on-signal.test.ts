import { spawn } from 'node:child_process';
import { GC_ON_SIGNAL_ARGS } from './bench-infra';

/** Counts major GCs until SIGTERM, then prints the count: stands in for a platform process. */
const CHILD = `
const { PerformanceObserver, constants } = require('node:perf_hooks');
let majors = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail && e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
}).observe({ entryTypes: ['gc'] });
process.on('SIGTERM', () => { process.stdout.write('majors ' + majors + '\\n'); process.exit(0); });
setInterval(() => {}, 1000);
process.stdout.write('ready\\n');
`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function signalled(args: string[], usr2: number): Promise<{ majors: number; signal: string | null }> {
  const child = spawn(process.execPath, [...args, '-e', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<string | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  let gone = false;
  void exited.then(() => (gone = true));
  while (!out.includes('ready')) {
    if (gone) throw new Error('the child ended before it was ready: its preload did not load');
    await pause(20);
  }
  for (let i = 0; i < usr2; i++) {
    child.kill('SIGUSR2');
    await pause(200);
  }
  child.kill('SIGTERM');
  const signal = await exited;
  return { majors: Number(/majors (\d+)/.exec(out)?.[1] ?? -1), signal };
}

describe('bench memory: a full GC on SIGUSR2 (its preload)', () => {
  it('each SIGUSR2 runs a major GC and the process lives on', async () => {
    const { majors, signal } = await signalled(GC_ON_SIGNAL_ARGS, 3);
    expect(signal).toBeNull();
    expect(majors).toBeGreaterThanOrEqual(3);
  });

  it('without --expose-gc the signal is a no-op, never the default that ends the process', async () => {
    const { signal } = await signalled(GC_ON_SIGNAL_ARGS.slice(1), 1);
    expect(signal).toBeNull();
  });

  it('a process without the preload would be ended by it (why the handler is always installed)', async () => {
    const { signal } = await signalled([], 1);
    expect(signal).toBe('SIGUSR2');
  });
});
