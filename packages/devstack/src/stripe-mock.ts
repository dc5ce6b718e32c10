import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './paths';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'stripe-mock.sh');

/** Stripe's official mock, running on loopback (the contract tests and the live-charge bench). */
export interface StripeMockProcess {
  /** Its HTTP port on 127.0.0.1. */
  port: number;
  child: ChildProcess;
  /** Its own log (it logs each request and the status it answered). */
  output(): string;
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

/** Starts stripe-mock on free loopback ports (built and cached per machine by scripts/stripe-mock.sh when missing). */
export async function startStripeMockProcess(): Promise<StripeMockProcess> {
  const { stdout } = await promisify(execFile)('bash', [SCRIPT], { maxBuffer: 1 << 20 });
  const binary = stdout.trim().split('\n').pop()!;
  const [port, httpsPort] = [await freePort(), await freePort()];
  const child = spawn(binary, ['-http-addr', `127.0.0.1:${port}`, '-https-addr', `127.0.0.1:${httpsPort}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  try {
    await waitForPort(port, child, () => output, 30_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    port,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
