import { spawn, execFile, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { COMPONENTS, type ComponentName } from '@ppay/kernel';
import { DEFAULT_PORTS, grpcAddrEnvVar } from '@ppay/runtime';
import { INFRA_SCRIPT, REPO_ROOT } from './paths';
import { loadOrCreateSecrets, type LocalSecrets } from './secrets';

const execFileAsync = promisify(execFile);

export type ProcessName = ComponentName | 'gateway';
export const PROCESS_NAMES: readonly ProcessName[] = [...COMPONENTS, 'gateway'];

export interface InfraOptions {
  dir: string;
  mongoPort: number;
  natsPort: number;
  natsHttpPort: number;
  fresh?: boolean;
  /** FerretDB serves its metrics (/debug/metrics) on this port; none when unset. */
  ferretdbDebugPort?: number;
}

export interface InfraHandle {
  mongoUri: string;
  natsUrl: string;
  /** True when this call started the servers (so stopping them is ours to do). */
  startedHere: boolean;
}

function infraEnv(o: InfraOptions): NodeJS.ProcessEnv {
  return {
    ...process.env,
    INFRA_DIR: o.dir,
    MONGO_PORT: String(o.mongoPort),
    NATS_PORT: String(o.natsPort),
    NATS_HTTP_PORT: String(o.natsHttpPort),
    ...(o.ferretdbDebugPort ? { FERRETDB_DEBUG_ADDR: `127.0.0.1:${o.ferretdbDebugPort}` } : {}),
  };
}

/** Starts (installing if needed) FerretDB and NATS via scripts/infra.sh. */
export async function infraUp(o: InfraOptions): Promise<InfraHandle> {
  const env = infraEnv(o);
  const wasUp = await execFileAsync('bash', [INFRA_SCRIPT, 'status'], { env }).then(
    () => true,
    () => false,
  );
  if (!wasUp || o.fresh) {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('bash', [INFRA_SCRIPT, 'up', ...(o.fresh ? ['--fresh'] : [])], {
        env,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`infra.sh up exited with ${code}`))));
    });
  }
  return {
    mongoUri: `mongodb://127.0.0.1:${o.mongoPort}/`,
    natsUrl: `nats://127.0.0.1:${o.natsPort}`,
    startedHere: !wasUp,
  };
}

export async function infraDown(o: InfraOptions): Promise<void> {
  await execFileAsync('bash', [INFRA_SCRIPT, 'down'], { env: infraEnv(o) });
}

export interface PlatformOptions {
  mongoUri: string;
  natsUrl: string;
  secrets: LocalSecrets;
  /** Ports: gateway http = base, gateway metrics = base+1, service i grpc = base+10+i, metrics = base+20+i. Default: the standard ports. */
  portBase?: number;
  /** Prefix for every service database, so several platforms can share one server. */
  dbPrefix?: string;
  /** Where each process's log goes; default: inherit stdout/stderr. */
  logDir?: string;
  logLevel?: string;
  /** Extra env for every process, or per process. */
  env?: NodeJS.ProcessEnv;
  envFor?: Partial<Record<ProcessName, NodeJS.ProcessEnv>>;
  readyTimeoutMs?: number;
  /**
   * Processes per service (default 1). Replica r ≥ 1 has its own ports and shares the database and
   * streams; callers talk to replica 0, so the others prove that relays, consumers and sweepers on
   * several replicas never double an effect.
   */
  replicas?: number;
  /** Extra node flags per process, e.g. { gateway: ['--cpu-prof'] } for profiling. */
  nodeArgs?: Partial<Record<ProcessName, string[]>>;
}

export interface ProcessPorts {
  http?: number;
  grpc?: number;
  metrics: number;
}

/**
 * Replica r (0 = the first process) of a component listens `REPLICA_PORT_STEP × r` above replica 0
 * (REPLICA_PORT_STEP_BASED when ports come from a portBase, so replicas stay inside the caller's range).
 */
export const REPLICA_PORT_STEP = 100;
export const REPLICA_PORT_STEP_BASED = 30;

export function portsFor(name: ProcessName, base?: number, replica = 0): ProcessPorts {
  const shift = (p: ProcessPorts, by: number): ProcessPorts => ({
    ...(p.http !== undefined && { http: p.http + by }),
    ...(p.grpc !== undefined && { grpc: p.grpc + by }),
    metrics: p.metrics + by,
  });
  if (base === undefined) return shift({ ...DEFAULT_PORTS[name] }, REPLICA_PORT_STEP * replica);
  const step = REPLICA_PORT_STEP_BASED * replica;
  if (name === 'gateway') return shift({ http: base, metrics: base + 1 }, step);
  const i = COMPONENTS.indexOf(name);
  return shift({ grpc: base + 10 + i, metrics: base + 20 + i }, step);
}

function entryPoint(name: ProcessName): string {
  return name === 'gateway'
    ? path.join(REPO_ROOT, 'gateway', 'dist', 'main.js')
    : path.join(REPO_ROOT, 'services', name, 'dist', 'main.js');
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number, name: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} during start-up`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} was not ready within ${timeoutMs} ms (${url})`);
}

/** A running platform: six services and the gateway as separate Node processes. */
const childKey = (name: ProcessName, replica: number) => (replica === 0 ? name : `${name}#${replica}`);

export class Platform {
  /** Running processes by name, `name#r` for extra replicas. */
  private readonly children = new Map<string, ChildProcess>();

  /**
   * If the launcher dies (crash, killed test runner), take the platform down with it rather than leave
   * orphans holding the ports. Held only while something runs: a bench run makes one platform per case,
   * and a listener per platform for the whole run tripped Node's MaxListeners warning.
   */
  private killOnExit: (() => void) | undefined;

  constructor(readonly options: PlatformOptions) {}

  get gatewayUrl(): string {
    return `http://127.0.0.1:${portsFor('gateway', this.options.portBase).http}`;
  }

  metricsUrl(name: ProcessName): string {
    return `http://127.0.0.1:${portsFor(name, this.options.portBase).metrics}/metrics`;
  }

  grpcAddress(name: ComponentName): string {
    return `127.0.0.1:${portsFor(name, this.options.portBase).grpc}`;
  }

  /**
   * Environment a process gets; exposed so the merchant CLI and tests talk to the same platform. Replica r
   * of a process differs only by its ports (other processes keep calling replica 0).
   */
  envFor(name: ProcessName, replica = 0): NodeJS.ProcessEnv {
    const o = this.options;
    const ports = portsFor(name, o.portBase, replica);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NATS_URL: o.natsUrl,
      LOG_LEVEL: o.logLevel ?? process.env.LOG_LEVEL ?? 'info',
      METRICS_PORT: String(ports.metrics),
      ...o.env,
    };
    // Services call each other too (payments → fx-pricing, marketplace), so everyone gets every address.
    for (const c of COMPONENTS) env[grpcAddrEnvVar(c)] = this.grpcAddress(c);
    if (name === 'gateway') {
      env.PORT = String(ports.http);
      env.AUTH_JWT_SECRET = o.secrets.AUTH_JWT_SECRET;
      env.SECRETS_ENCRYPTION_KEY = o.secrets.SECRETS_ENCRYPTION_KEY;
      // Links the platform hands out (hosted checkout payment_url) point at this gateway.
      env.PUBLIC_BASE_URL = this.gatewayUrl;
    } else {
      env.GRPC_PORT = String(ports.grpc);
      env.MONGODB_URI = o.mongoUri;
      env.MONGODB_DB = `${o.dbPrefix ?? ''}ppay_${name.replace(/-/g, '_')}`;
      env.API_KEY_PEPPER = o.secrets.API_KEY_PEPPER;
      env.SECRETS_ENCRYPTION_KEY = o.secrets.SECRETS_ENCRYPTION_KEY;
      // The local launcher and tests deliver webhooks to receivers on this machine (sandbox keys only).
      if (name === 'webhooks') env.WEBHOOKS_ALLOW_PRIVATE_TARGETS ??= 'true';
    }
    return { ...env, ...o.envFor?.[name] };
  }

  async start(): Promise<void> {
    // Services first (in parallel), then the gateway that calls them.
    await Promise.all(COMPONENTS.map((c) => this.startProcess(c)));
    for (let r = 1; r < this.replicas; r++) await Promise.all(COMPONENTS.map((c) => this.startProcess(c, r)));
    await this.startProcess('gateway');
  }

  get replicas(): number {
    return Math.max(1, Math.floor(this.options.replicas ?? 1));
  }

  /** Starts a process, or another replica of it (replica ≥ 1: same config and database, its own ports). */
  async startProcess(name: ProcessName, replica = 0): Promise<void> {
    if (this.isRunning(name, replica)) return;
    if (!this.killOnExit) {
      this.killOnExit = () => {
        for (const child of this.children.values()) if (child.exitCode === null) child.kill('SIGKILL');
      };
      process.once('exit', this.killOnExit);
    }
    const o = this.options;
    let stdio: ('ignore' | 'inherit' | number)[] = ['ignore', 'inherit', 'inherit'];
    if (o.logDir) {
      fs.mkdirSync(o.logDir, { recursive: true });
      const fd = fs.openSync(path.join(o.logDir, `${childKey(name, replica)}.log`), 'a');
      stdio = ['ignore', fd, fd];
    }
    const args = [...(o.nodeArgs?.[name] ?? []), entryPoint(name)];
    const child = spawn(process.execPath, args, { env: this.envFor(name, replica), stdio, cwd: REPO_ROOT });
    this.children.set(childKey(name, replica), child);
    const ports = portsFor(name, o.portBase, replica);
    await waitReady(`http://127.0.0.1:${ports.metrics}/readyz`, child, o.readyTimeoutMs ?? 60_000, name);
  }

  /** The pid of every running process (`name`, `name#r` for replicas): benches read their CPU and memory. */
  pids(): Map<string, number> {
    const pids = new Map<string, number>();
    for (const [key, child] of this.children) {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) pids.set(key, child.pid);
    }
    return pids;
  }

  isRunning(name: ProcessName, replica = 0): boolean {
    const child = this.children.get(childKey(name, replica));
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** SIGTERM (graceful drain) or SIGKILL (crash) one process and wait for it to exit. */
  async stopProcess(
    name: ProcessName,
    signal: NodeJS.Signals = 'SIGTERM',
    timeoutMs = 15_000,
    replica = 0,
  ): Promise<number | null> {
    const child = this.children.get(childKey(name, replica));
    if (!child || !this.isRunning(name, replica)) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }

  async stop(): Promise<void> {
    const replicas = [...this.children.keys()].filter((k) => k.includes('#'));
    await Promise.all(
      replicas.map((k) => {
        const [name, r] = k.split('#') as [ProcessName, string];
        return this.stopProcess(name, 'SIGTERM', 15_000, Number(r));
      }),
    );
    await this.stopProcess('gateway');
    await Promise.all(COMPONENTS.map((c) => this.stopProcess(c)));
    if (this.killOnExit) process.removeListener('exit', this.killOnExit);
    this.killOnExit = undefined;
  }
}

export { loadOrCreateSecrets };
