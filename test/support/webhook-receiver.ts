import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

/** A loopback HTTP receiver that records every request (raw bytes) and answers per path. */
export async function startReceiver(
  answer: (path: string, n: number) => { status: number; delayMs?: number } = () => ({ status: 200 }),
) {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      received.push({ at: Date.now(), path, headers: req.headers, raw, body });
      const { status, delayMs } = receiver.answer(path, n);
      const send = () => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${status}`);
      };
      if (delayMs) setTimeout(send, delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver = {
    answer,
    received,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    on: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
