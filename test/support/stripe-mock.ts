import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';

const SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'stripe-mock.sh');

/** One request as it reached stripe-mock, through the recording proxy. */
export interface StripeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The form-encoded body, decoded (`metadata[charge_id]` keys as Stripe's library sends them). */
  form: Record<string, string>;
  status: number;
}

export interface StripeMock {
  /** What STRIPE_API_BASE is set to: the recording proxy in front of stripe-mock. */
  url: string;
  requests: StripeRequest[];
  /** stripe-mock's own log (it logs each request and the status it answered). */
  log(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`stripe-mock exited (${child.exitCode}):\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`stripe-mock did not listen on ${port} within ${timeoutMs} ms:\n${output()}`);
}

/**
 * Starts Stripe's official mock on free loopback ports (built and cached per machine by
 * scripts/stripe-mock.sh when missing), behind a proxy that records every request with its headers:
 * stripe-mock checks each request against Stripe's API description but does not log headers, and the
 * contract tests assert the Idempotency-Key and metadata the connector sends.
 */
/**
 * Fields laid over stripe-mock's answer to one request (its fixtures are fixed: a Refund is always
 * `succeeded`, where a real card refund usually starts `pending`); undefined leaves the answer as is.
 */
export type StripeAnswerPatch = (request: Omit<StripeRequest, 'status'>) => Record<string, unknown> | undefined;

export async function startStripeMock(options: { patch?: StripeAnswerPatch } = {}): Promise<StripeMock> {
  const { stdout } = await promisify(execFile)('bash', [SCRIPT], { maxBuffer: 1 << 20 });
  const binary = stdout.trim().split('\n').pop()!;
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const child = spawn(binary, ['-http-addr', `127.0.0.1:${httpPort}`, '-https-addr', `127.0.0.1:${httpsPort}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  try {
    await waitForPort(httpPort, child, () => output, 30_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }

  const requests: StripeRequest[] = [];
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = http.request(
        { host: '127.0.0.1', port: httpPort, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const seen = {
            method: req.method ?? '',
            path: req.url ?? '',
            headers: req.headers,
            form: Object.fromEntries(new URLSearchParams(body.toString('utf8'))),
          };
          requests.push({ ...seen, status: answer.statusCode ?? 0 });
          const patch = answer.statusCode === 200 ? options.patch?.(seen) : undefined;
          if (!patch) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            return;
          }
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const patched = Buffer.from(
              JSON.stringify({ ...JSON.parse(Buffer.concat(parts).toString('utf8')), ...patch }),
            );
            // The body is re-sent whole: its own length, never the upstream's length or chunking.
            const headers = { ...answer.headers, 'content-length': String(patched.length) };
            delete headers['transfer-encoding'];
            res.writeHead(200, headers).end(patched);
          });
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyPort = (proxy.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    requests,
    log: () => output,
    async stop() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/**
 * Keys for stripe-mock, made at run time: it takes any `sk_test_…` key, and no key that looks real is
 * committed. `live` is one it refuses (it accepts test keys only).
 */
export function testStripeKeys() {
  const part = () => randomBytes(12).toString('hex');
  return {
    secretKey: `sk_test_${part()}`,
    liveSecretKey: `sk_live_${part()}`,
    publishableKey: `pk_test_${part()}`,
    webhookSecret: `whsec_${part()}`,
  };
}
