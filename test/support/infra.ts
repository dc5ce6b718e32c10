import * as path from 'node:path';
import type { InfraOptions } from '@ppay/devstack';

const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/**
 * Test infrastructure runs beside a developer's `npm start`, on its own ports and state dir.
 * TEST_MONGO_PORT / TEST_NATS_PORT / TEST_NATS_HTTP_PORT let two runs go at once, from two checkouts or
 * one: another port is another state dir, so one run's teardown never stops the other's servers.
 */
export const TEST_INFRA: InfraOptions = {
  dir: path.resolve(
    __dirname,
    '..',
    '..',
    '.infra',
    process.env.TEST_MONGO_PORT ? `test-${process.env.TEST_MONGO_PORT}` : 'test',
  ),
  mongoPort: port('TEST_MONGO_PORT', 27217),
  natsPort: port('TEST_NATS_PORT', 4322),
  natsHttpPort: port('TEST_NATS_HTTP_PORT', 8322),
};

/** MONGODB_URI / NATS_URL, when set, point the suites at existing servers (e.g. real MongoDB 7). */
export function externalInfra(): { mongoUri: string; natsUrl: string } | undefined {
  const { MONGODB_URI, NATS_URL } = process.env;
  return MONGODB_URI && NATS_URL ? { mongoUri: MONGODB_URI, natsUrl: NATS_URL } : undefined;
}

export function testInfraUrls(): { mongoUri: string; natsUrl: string } {
  return (
    externalInfra() ?? {
      mongoUri: `mongodb://127.0.0.1:${TEST_INFRA.mongoPort}/`,
      natsUrl: `nats://127.0.0.1:${TEST_INFRA.natsPort}`,
    }
  );
}
