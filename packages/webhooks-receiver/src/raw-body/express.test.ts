import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expressRawBody, signWebhook, verifyWebhook, type RawBodyIncomingMessage } from '../index';

const SECRET = 'whsec_saZPg1at77v818d5kAjdGLxVPzyqPyQP';
const BODY = '{"event_id":"evt_1","event_type":"payment.succeeded","data":{"note":"Zoë ₦"}}';

/** A node:http server that runs the middleware the way Express would, then verifies. */
async function serve(middleware = expressRawBody({ limit: 1024 }), before?: (req: RawBodyIncomingMessage) => void) {
  const server = createServer((req: RawBodyIncomingMessage, res) => {
    before?.(req);
    middleware(req, res, (err) => {
      if (err) {
        res.statusCode = 500;
        res.end(String(err));
        return;
      }
      try {
        const event = verifyWebhook(req.rawBody!, req.headers, SECRET);
        res.end(JSON.stringify({ event_id: event.event_id, bytes: req.rawBody!.length }));
      } catch (e) {
        res.statusCode = 400;
        res.end((e as Error).message);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

function post(server: Server, chunks: (string | Buffer)[], headers: Record<string, string>) {
  const { port } = server.address() as AddressInfo;
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/webhooks', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

function signed(body = BODY) {
  return {
    'content-type': 'application/json',
    ...signWebhook(body, SECRET, Math.floor(Date.now() / 1000)),
    'X-Service-Event-Id': 'evt_1',
  };
}

describe('expressRawBody (real node:http server)', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
    server = undefined;
  });

  it('collects a chunked upload into req.rawBody byte for byte', async () => {
    server = await serve();
    const bytes = Buffer.from(BODY);
    // Split inside a multi-byte character: the middleware must not decode chunk by chunk.
    const cut = bytes.indexOf(Buffer.from('₦')) + 1;
    const { status, body } = await post(server, [bytes.subarray(0, cut), bytes.subarray(cut)], signed());
    expect([status, JSON.parse(body)]).toEqual([200, { event_id: 'evt_1', bytes: bytes.length }]);
  });

  it('answers 413 from Content-Length alone, before reading', async () => {
    server = await serve();
    const big = JSON.stringify({ event_id: 'evt_1', event_type: 'x', pad: 'a'.repeat(2000) });
    const res = await post(server, [big], signed(big));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual(expect.objectContaining({ error: 'payload_too_large' }));
  });

  it('answers 413 to a chunked upload that grows past the limit', async () => {
    server = await serve();
    const res = await post(server, ['{"pad":"', 'a'.repeat(800), 'a'.repeat(800), '"}'], {
      ...signed(),
      'transfer-encoding': 'chunked',
    });
    expect(res.status).toBe(413);
  });

  it('reuses bytes kept by express.raw() or a verify hook, and refuses an already-consumed stream', async () => {
    server = await serve(expressRawBody(), (req) => {
      req.body = Buffer.from(BODY);
      req.resume();
    });
    expect((await post(server, [BODY], signed())).status).toBe(200);
    server.closeAllConnections();
    server.close();

    const consumed = await serve(expressRawBody(), (req) => req.resume());
    server = consumed;
    // The listener drained the stream already: the middleware must fail loudly rather than hang.
    const middleware = expressRawBody();
    const done = new Promise<unknown>((resolve) => {
      consumed.removeAllListeners('request');
      consumed.on('request', (req: RawBodyIncomingMessage, res) => {
        req.resume();
        req.on('end', () => middleware(req, res, (err) => (res.end(), resolve(err))));
      });
    });
    await post(consumed, [BODY], signed());
    expect(String(await done)).toMatch(/already read/);
  });

  it('rejects a bad limit', () => {
    expect(() => expressRawBody({ limit: -1 })).toThrow(TypeError);
  });
});
