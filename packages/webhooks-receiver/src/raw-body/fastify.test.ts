import Fastify, { type FastifyInstance } from 'fastify';
import { registerFastifyRawBody, signWebhook, verifyWebhook, type WithRawBody } from '../index';

const SECRET = 'whsec_saZPg1at77v818d5kAjdGLxVPzyqPyQP';
// Indented, key order and number spelling the platform chose: JSON.stringify(request.body) would differ.
const BODY =
  '{\n  "event_id": "evt_1",\n  "event_type": "wallet.credited",\n  "data": { "amount": 1.50e3, "note": "₦ 😀" }\n}\n';

async function app() {
  const fastify = Fastify();
  await fastify.register(async (scope) => {
    registerFastifyRawBody(scope);
    scope.post('/webhooks', async (request) => {
      const { rawBody } = request as typeof request & WithRawBody;
      const event = verifyWebhook(rawBody, request.headers, SECRET);
      return { event_id: event.event_id, parsed: request.body, raw_length: rawBody.length };
    });
  });
  // Outside the plugin: Fastify's stock parser, no rawBody.
  fastify.post('/other', async (request) => ({
    parsed: request.body,
    raw: (request as { rawBody?: unknown }).rawBody,
  }));
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  return fastify;
}

// Over a real socket: fastify.inject needs light-my-request, whose ESM-only dependency jest cannot load.
async function post(fastify: FastifyInstance, path: string, body: string, headers: Record<string, string> = {}) {
  const { port } = fastify.server.address() as { port: number };
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  return { statusCode: res.status, json: (await res.json()) as unknown };
}

describe('registerFastifyRawBody (real fastify)', () => {
  it('keeps the exact bytes for verification and still parses request.body', async () => {
    const fastify = await app();
    const t = Math.floor(Date.now() / 1000);
    const res = await post(fastify, '/webhooks', BODY, {
      'content-type': 'application/json; charset=utf-8',
      ...signWebhook(BODY, SECRET, t),
      'X-Service-Event-Id': 'evt_1',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      event_id: 'evt_1',
      parsed: { event_id: 'evt_1', event_type: 'wallet.credited', data: { amount: 1500, note: '₦ 😀' } },
      raw_length: Buffer.byteLength(BODY),
    });
    await fastify.close();
  });

  it("keeps Fastify's answers to empty, invalid and poisoned JSON", async () => {
    const fastify = await app();
    expect((await post(fastify, '/webhooks', '')).statusCode).toBe(400);
    expect((await post(fastify, '/webhooks', '{nope')).statusCode).toBe(400);
    expect((await post(fastify, '/webhooks', '{"__proto__":{"x":1}}')).statusCode).toBe(400);
    await fastify.close();
  });

  it('applies to the plugin it is registered in only', async () => {
    const fastify = await app();
    const res = await post(fastify, '/other', '{"a":1}');
    expect(res.json).toEqual({ parsed: { a: 1 } });
    await fastify.close();
  });

  it('works with a Fastify-like app without getDefaultJsonParser', () => {
    let parser: ((req: any, body: Buffer, done: (err: Error | null, body?: unknown) => void) => void) | undefined;
    registerFastifyRawBody({ addContentTypeParser: (_type, _opts, fn) => (parser = fn) });
    const request: Partial<WithRawBody> = {};
    const results: [Error | null, unknown][] = [];
    for (const raw of ['{"a":1}', '', 'nope'])
      parser!(request, Buffer.from(raw), (err, body) => results.push([err, body]));
    expect(request.rawBody).toEqual(Buffer.from('nope'));
    expect(results[0]).toEqual([null, { a: 1 }]);
    expect(results.slice(1).map(([err]) => (err as Error & { statusCode: number }).statusCode)).toEqual([400, 400]);
  });
});
