import { createHmac, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The receivers of `bench -- webhooks`: loopback HTTP servers, one per merchant (the per-host socket
 * pool is per host:port), that verify X-Service-Signature over the raw bytes with the merchant's secret
 * and record each event's first receipt and its outcome → receipt latency (from the body's
 * `data.completed_at`). Every side of the bench (platform, durable baseline, bare loop) posts here.
 */
export class VerifyingSinks {
  /** Event id → first receipt (ms since the epoch). */
  readonly received = new Map<string, number>();
  /** Outcome → receipt in ms, in order of receipt (cleared by the latency phase). */
  readonly latencies: number[] = [];
  badSignatures = 0;
  private readonly secretByPort = new Map<number, Buffer>();
  private readonly servers: http.Server[] = [];

  /** A new sink verifying with `secret` once it is set (`setSecret`); returns its port. */
  async open(): Promise<number> {
    const server = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => this.handle(req, res));
    this.servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
  }

  setSecret(port: number, secret: string): void {
    this.secretByPort.set(port, Buffer.from(secret));
  }

  /** Resolves true once `count` distinct events have arrived, false after `timeoutMs`. */
  async waitFor(count: number, timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (this.received.size < count && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    return this.received.size >= count;
  }

  close(): void {
    for (const s of this.servers) {
      s.closeAllConnections();
      s.close();
    }
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const secret = this.secretByPort.get(req.socket.localPort ?? 0);
      const given = Buffer.from(String(req.headers['x-service-signature'] ?? ''), 'hex');
      const expected = secret ? createHmac('sha256', secret).update(raw).digest() : Buffer.alloc(0);
      if (given.length !== 32 || expected.length !== 32 || !timingSafeEqual(given, expected)) this.badSignatures++;
      const now = Date.now();
      const id = String(req.headers['x-service-event-id'] ?? '');
      if (!this.received.has(id)) {
        this.received.set(id, now);
        const sentAt = Date.parse(
          (JSON.parse(raw.toString('utf8')) as { data: { completed_at: string } }).data.completed_at,
        );
        this.latencies.push(now - sentAt);
      }
      res.writeHead(200).end();
    });
  }
}
