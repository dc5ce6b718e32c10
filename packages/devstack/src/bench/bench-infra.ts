import * as path from 'node:path';
import { REPO_ROOT } from '../paths';

/**
 * Where benches run their infrastructure and processes. Several checkouts bench on one machine, so each
 * may move them: BENCH_MONGO_PORT, BENCH_NATS_PORT, BENCH_NATS_HTTP_PORT, BENCH_PORT_BASE.
 */
export const BENCH_STATE_DIR = path.join(REPO_ROOT, '.infra', 'bench');

export function benchInfraOptions() {
  return {
    dir: BENCH_STATE_DIR,
    mongoPort: Number(process.env.BENCH_MONGO_PORT ?? 27417),
    natsPort: Number(process.env.BENCH_NATS_PORT ?? 4522),
    natsHttpPort: Number(process.env.BENCH_NATS_HTTP_PORT ?? 8522),
    fresh: true,
  };
}

export const benchPortBase = (): number => Number(process.env.BENCH_PORT_BASE ?? 19000);
