import * as path from 'node:path';
import type { BootstrapTarget } from '../merchants';
import { REPO_ROOT } from '../paths';
import { infraDown, infraUp, Platform, PROCESS_NAMES, type PlatformOptions } from '../platform';
import { loadOrCreateSecrets, type LocalSecrets } from '../secrets';

/**
 * Where benches run their infrastructure and processes. Several checkouts bench on one machine, so each
 * may move them: BENCH_MONGO_PORT, BENCH_NATS_PORT, BENCH_NATS_HTTP_PORT, BENCH_FERRETDB_DEBUG_PORT (FerretDB's
 * metrics: the benches count its commands), BENCH_PORT_BASE, and BENCH_STATE_DIR (to run two benches of one
 * checkout at once).
 */
export const BENCH_STATE_DIR = process.env.BENCH_STATE_DIR ?? path.join(REPO_ROOT, '.infra', 'bench');

export function benchInfraOptions() {
  return {
    dir: BENCH_STATE_DIR,
    mongoPort: Number(process.env.BENCH_MONGO_PORT ?? 27417),
    natsPort: Number(process.env.BENCH_NATS_PORT ?? 4522),
    natsHttpPort: Number(process.env.BENCH_NATS_HTTP_PORT ?? 8522),
    ferretdbDebugPort: Number(process.env.BENCH_FERRETDB_DEBUG_PORT ?? 8588),
    fresh: true,
  };
}

export const benchPortBase = (): number => Number(process.env.BENCH_PORT_BASE ?? 19000);

/**
 * `extra` for every process, plus, with BENCH_PROFILE_DIR=<dir>, a V8 CPU profile that every platform
 * process writes under <dir>/<process>/ when the bench stops it (open in Chrome DevTools or summarise
 * the self time per function).
 */
function nodeArgsFor(extra: string[]): PlatformOptions['nodeArgs'] {
  const dir = process.env.BENCH_PROFILE_DIR;
  return Object.fromEntries(
    PROCESS_NAMES.map((name) => [
      name,
      [...extra, ...(dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir, name)}`] : [])],
    ]),
  );
}

/**
 * Preloaded into every platform process by `bench -- memory` only: on SIGUSR2 the process runs a full GC, so
 * the bench reads RSS and heap after garbage is gone. Without it, "growth" between two runs was mostly where
 * each process happened to be in its GC cycle (the same build read -10.8 % and +20.5 % for the gateway in two
 * runs). Always handled (SIGUSR2's default would end the process), a no-op without `--expose-gc`. A data URL,
 * so it needs no built file.
 */
const GC_ON_SIGNAL = "process.on('SIGUSR2', () => globalThis.gc?.());";

/** Node flags that let `collectGarbage` force a full GC in a platform process (memory bench only). */
export const GC_ON_SIGNAL_ARGS = [
  '--expose-gc',
  '--import',
  `data:text/javascript,${encodeURIComponent(GC_ON_SIGNAL)}`,
];

/** A full GC in each process (started with GC_ON_SIGNAL_ARGS), then a moment for it to finish. */
export async function collectGarbage(pids: Iterable<number>): Promise<void> {
  for (const pid of pids) process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}

export interface BenchPlatform {
  platform: Platform;
  mongoUri: string;
  natsUrl: string;
  secrets: LocalSecrets;
  /** The FerretDB and NATS state dir (their pid files: the benches count their CPU). */
  infraDir: string;
  /** FerretDB's Prometheus page (its command counters: db-work.ts). */
  ferretdbMetricsUrl: string;
  /** Where `createMerchant` makes a bench merchant (marketplace, webhooks and the user-token secret). */
  bootstrap: BootstrapTarget;
  /** Stops the platform, and the infrastructure if this bench started it. */
  stop(): Promise<void>;
}

/**
 * Fresh infrastructure and the whole platform on the bench ports, logs under .infra/bench/logs. The
 * sandbox rate limit stays in the measured path with a limit no bench reaches; `envFor` adds to it.
 * `start: false` leaves starting the platform to the bench (e.g. after it has set up a receiver).
 */
export async function startBenchPlatform(
  envFor: PlatformOptions['envFor'] = {},
  o: { start?: boolean; nodeArgs?: string[] } = {},
): Promise<BenchPlatform> {
  const infraOptions = benchInfraOptions();
  const infra = await infraUp(infraOptions);
  const secrets = loadOrCreateSecrets(BENCH_STATE_DIR);
  const platform = new Platform({
    mongoUri: infra.mongoUri,
    natsUrl: infra.natsUrl,
    secrets,
    portBase: benchPortBase(),
    logDir: path.join(BENCH_STATE_DIR, 'logs'),
    logLevel: 'warn',
    envFor: { ...envFor, gateway: { RATE_LIMIT_SANDBOX_PER_SECOND: '1000000', ...envFor?.gateway } },
    nodeArgs: nodeArgsFor(o.nodeArgs ?? []),
  });
  if (o.start !== false) await platform.start();
  return {
    platform,
    mongoUri: infra.mongoUri,
    natsUrl: infra.natsUrl,
    secrets,
    infraDir: infraOptions.dir,
    ferretdbMetricsUrl: `http://127.0.0.1:${infraOptions.ferretdbDebugPort}/debug/metrics`,
    bootstrap: {
      marketplaceAddr: platform.grpcAddress('marketplace'),
      webhooksAddr: platform.grpcAddress('webhooks'),
      jwtSecret: secrets.AUTH_JWT_SECRET,
    },
    async stop() {
      await platform.stop();
      if (infra.startedHere) await infraDown(infraOptions);
    },
  };
}
