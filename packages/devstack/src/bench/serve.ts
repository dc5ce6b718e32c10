import type { FastifyInstance } from 'fastify';

/** Listens on loopback, prints "ready" for the bench runner, and closes cleanly on SIGTERM. */
export function serveForBench(app: FastifyInstance, port: number): void {
  app
    .listen({ host: '127.0.0.1', port })
    .then(() => process.stdout.write('ready\n'))
    .catch((err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exit(1);
    });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
