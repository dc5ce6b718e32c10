import Fastify from 'fastify';
import { serveForBench } from './serve';

/**
 * The benchmark baseline: a bare Fastify route returning the same body as the real endpoint, with
 * no auth, no gRPC and no database, run in its own process like the gateway.
 */
const port = Number(process.env.PORT ?? 18999);
const body = JSON.parse(process.env.BASELINE_BODY ?? '{"success":true}') as unknown;
const method = (process.env.BASELINE_METHOD ?? 'GET') as 'GET' | 'POST';
const url = process.env.BASELINE_URL ?? '/';

const app = Fastify({ logger: false });
app.route({ method, url, handler: async () => body });
serveForBench(app, port);
