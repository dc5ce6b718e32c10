import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { destroyAgents, MAX_SOCKETS_PER_HOST, sendWebhook, type SendWebhookInput } from './http-sender.adapter';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface TestServer {
  url: string;
  port: number;
  requests: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[];
  connections: number;
  open: number;
  maxOpen: number;
  close(): void;
}

const servers: Server[] = [];

async function serve(handler: Handler): Promise<TestServer> {
  const state: TestServer = {
    url: '',
    port: 0,
    requests: [],
    connections: 0,
    open: 0,
    maxOpen: 0,
    close: () => undefined,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on('connection', (socket) => {
    state.connections += 1;
    state.open += 1;
    state.maxOpen = Math.max(state.maxOpen, state.open);
    socket.on('close', () => (state.open -= 1));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}/hooks`;
  state.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return state;
}

const BODY = JSON.stringify({ event_id: 'evt_1', event_type: 'payment.succeeded', data: { note: 'Zoë ₦' } });
const input = (url: string, extra: Partial<SendWebhookInput> = {}): SendWebhookInput => ({
  url,
  body: BODY,
  headers: { 'X-Service-Event-Id': 'evt_1', 'X-Service-Signature': 'ab'.repeat(32), 'Content-Type': 'text/plain' },
  allowPrivateTargets: true,
  ...extra,
});

afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});
afterAll(() => destroyAgents());

describe('sendWebhook', () => {
  it('POSTs the body as JSON with the given headers; 2xx is success', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    const result = await sendWebhook(input(server.url));
    expect(result).toEqual({
      status: 200,
      error_class: null,
      response_excerpt: 'ok',
      success: true,
      duration_ms: expect.any(Number),
    });
    const [received] = server.requests;
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/hooks');
    expect(received.body).toBe(BODY);
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    expect(received.headers['x-service-event-id']).toBe('evt_1');
    expect(received.headers['x-service-signature']).toBe('ab'.repeat(32));
    expect(received.headers['user-agent']).toMatch(/^ppay-webhooks\//);
  });

  it.each([201, 202, 204, 299])('treats %i as success', async (status) => {
    const server = await serve((_req, res) => res.writeHead(status).end());
    expect(await sendWebhook(input(server.url))).toMatchObject({ status, success: true, error_class: null });
  });

  it.each([400, 404, 410, 429, 500, 503])('reports %i as http_error with the start of the body', async (status) => {
    const server = await serve((_req, res) => res.writeHead(status).end('{"error":"nope"}'));
    expect(await sendWebhook(input(server.url))).toMatchObject({
      status,
      success: false,
      error_class: 'http_error',
      response_excerpt: '{"error":"nope"}',
    });
  });

  it.each([301, 302, 307, 308])('does not follow a %i redirect and does not count it as success', async (status) => {
    const server = await serve((req, res) => {
      if (req.url === '/hooks') res.writeHead(status, { location: '/elsewhere' }).end();
      else res.writeHead(200).end('followed');
    });
    expect(await sendWebhook(input(server.url))).toMatchObject({ status, success: false, error_class: 'redirect' });
    expect(server.requests.map((r) => r.url)).toEqual(['/hooks']);
  });

  it('gives up after the timeout when no response comes, and aborts the request', async () => {
    const server = await serve(() => undefined); // never answers
    const result = await sendWebhook(input(server.url, { timeoutMs: 200 }));
    expect(result).toMatchObject({ status: null, success: false, error_class: 'timeout', response_excerpt: '' });
    expect(result.duration_ms).toBeGreaterThanOrEqual(190);
    expect(result.duration_ms).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 50));
    expect([server.connections, server.open]).toEqual([1, 0]);
  });

  it('keeps the status when headers came in time but the body did not', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const result = await sendWebhook(input(server.url, { timeoutMs: 300 }));
    expect(result).toMatchObject({ status: 200, success: true, error_class: null, response_excerpt: 'partial' });
    expect(result.duration_ms).toBeLessThan(2000);
  });

  it('reads at most 1 KB of a huge or endless body, then hangs up', async () => {
    let written = 0;
    let closed = false;
    const server = await serve((_req, res) => {
      res.writeHead(500);
      res.on('close', () => (closed = true));
      const pump = () => {
        while (!closed && res.write('x'.repeat(16 * 1024))) written += 16 * 1024;
        if (!closed) res.once('drain', pump);
      };
      pump();
    });
    const result = await sendWebhook(input(server.url));
    expect(result).toMatchObject({ status: 500, error_class: 'http_error' });
    expect(result.response_excerpt).toBe('x'.repeat(1024));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('cuts the excerpt at 1 KB without splitting a UTF-8 character', async () => {
    const server = await serve((_req, res) => res.writeHead(200).end('€'.repeat(1000)));
    const { response_excerpt } = await sendWebhook(input(server.url));
    expect(response_excerpt).toBe('€'.repeat(341)); // 341 × 3 bytes = 1023; the 342nd is cut
  });

  it('reports a refused connection as network_error', async () => {
    const server = await serve(() => undefined);
    server.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(await sendWebhook(input(server.url))).toMatchObject({
      status: null,
      success: false,
      error_class: 'network_error',
    });
  });

  it('reports a TLS failure (https to a plain-http port) as tls_error', async () => {
    const server = await serve((_req, res) => res.end('plain'));
    const result = await sendWebhook(input(`https://127.0.0.1:${server.port}/hooks`));
    expect(result).toMatchObject({ status: null, success: false, error_class: 'tls_error' });
  });

  it.each([
    ['an IPv4 literal', (port: number) => `http://127.0.0.1:${port}/hooks`],
    ['an IPv6 literal', (port: number) => `http://[::1]:${port}/hooks`],
    ['an IPv4-mapped IPv6 literal', (port: number) => `http://[::ffff:127.0.0.1]:${port}/hooks`],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/hooks`],
  ])('refuses %s when private targets are not allowed, without connecting', async (_name, url) => {
    const server = await serve((_req, res) => res.end('should not be reached'));
    const result = await sendWebhook(input(url(server.port), { allowPrivateTargets: false }));
    expect(result).toMatchObject({ status: null, success: false, error_class: 'blocked_target' });
    expect(server.connections).toBe(0);
  });

  it('refuses unusable URLs as blocked_target instead of throwing', async () => {
    for (const url of ['not a url', 'ftp://example.com/x', 'file:///etc/passwd']) {
      expect(await sendWebhook(input(url))).toMatchObject({ status: null, error_class: 'blocked_target' });
    }
  });

  it('reuses a kept-alive connection for consecutive deliveries to one receiver', async () => {
    const server = await serve((_req, res) => res.writeHead(200).end('ok'));
    for (let i = 0; i < 3; i++) expect((await sendWebhook(input(server.url))).success).toBe(true);
    expect(server.connections).toBe(1);
  });

  it(`opens at most ${MAX_SOCKETS_PER_HOST} connections to one slow receiver`, async () => {
    const server = await serve((_req, res) => setTimeout(() => res.writeHead(200).end('ok'), 100));
    const results = await Promise.all(Array.from({ length: 20 }, () => sendWebhook(input(server.url))));
    expect(results.every((r) => r.success)).toBe(true);
    expect(server.maxOpen).toBeLessThanOrEqual(MAX_SOCKETS_PER_HOST);
    expect(server.maxOpen).toBeGreaterThan(1);
  });
});
