import * as path from 'node:path';
import { DEFAULT_PORTS } from '@ppay/runtime';
import { infraDown, infraUp, Platform, type InfraOptions } from './platform';
import { REPO_ROOT } from './paths';
import { loadOrCreateSecrets } from './secrets';

/**
 * `npm start`: local infrastructure (FerretDB + NATS, installed on first run), the six services and
 * the gateway on their standard ports. Ctrl-C drains everything and stops what it started.
 * MONGODB_URI / NATS_URL point it at existing servers instead.
 */
/** REPLICAS=2 starts two processes of every service (ports of replica r: the standard ones + 100·r). */
function replicasFromEnv(): number {
  const value = process.env.REPLICAS ?? '1';
  if (!/^[1-9]$/.test(value)) throw new Error(`REPLICAS must be a number from 1 to 9, not "${value}"`);
  return Number(value);
}

async function main(): Promise<void> {
  const stateDir = process.env.PPAY_STATE_DIR ?? path.join(REPO_ROOT, '.infra');
  const infraOptions: InfraOptions = { dir: stateDir, mongoPort: 27017, natsPort: 4222, natsHttpPort: 8222 };
  const external = Boolean(process.env.MONGODB_URI && process.env.NATS_URL);
  const infra = external
    ? { mongoUri: process.env.MONGODB_URI!, natsUrl: process.env.NATS_URL!, startedHere: false }
    : await infraUp(infraOptions);
  const platform = new Platform({
    mongoUri: process.env.MONGODB_URI ?? infra.mongoUri,
    natsUrl: process.env.NATS_URL ?? infra.natsUrl,
    secrets: loadOrCreateSecrets(stateDir),
    replicas: replicasFromEnv(),
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nStopping the platform…\n');
    await platform.stop();
    if (infra.startedHere) await infraDown(infraOptions);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  try {
    await platform.start();
  } catch (err) {
    process.stderr.write(`Start-up failed: ${(err as Error).message}\n`);
    await stop();
    return;
  }
  process.stdout.write(
    [
      '',
      `Partner Payments platform is running.`,
      `  API:      ${platform.gatewayUrl}/api/v1/partner  (docs: ${platform.gatewayUrl}/docs)`,
      `  Metrics:  http://127.0.0.1:${DEFAULT_PORTS.gateway.metrics}/metrics (gateway), ports 9101-9106 (services)`,
      ...(platform.replicas > 1
        ? [`  Replicas: ${platform.replicas} of every service (metrics ports +100 per replica)`]
        : []),
      `  Create a merchant:  npm run merchant -- create --email you@example.com --country NG --currency NGN`,
      `  Ctrl-C stops everything.`,
      '',
    ].join('\n'),
  );
}

void main();
