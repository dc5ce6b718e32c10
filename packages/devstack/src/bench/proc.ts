import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Platform } from '../platform';

/**
 * CPU time and resident memory of processes, from /proc (Linux). CPU per request is the figure that
 * stays comparable on a shared, noisy machine and says how many cores a load needs; it is summed over
 * the processes that serve the request, the load generator excluded.
 */

/** Linux reports utime/stime in clock ticks of USER_HZ, which is 100 on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

export function cpuSecondsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at state (field 3).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime (14), stime (15)
  } catch {
    return 0; // exited: contributes nothing further
  }
}

export function rssBytesOf(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d{1,12}) kB$/m.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

export const totalCpuSeconds = (pids: number[]): number => pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);

/** The pids infra.sh recorded for FerretDB and nats-server under a state dir. */
export function infraPids(infraDir: string): number[] {
  return [path.join(infraDir, 'ferretdb', 'ferretdb.pid'), path.join(infraDir, 'nats', 'nats-server.pid')]
    .map((file) => {
      try {
        return Number(fs.readFileSync(file, 'utf8').trim());
      } catch {
        return 0;
      }
    })
    .filter((pid) => pid > 0);
}

/** The process's command name (`ferretdb`, `nats-server`), or its pid when it has exited. */
export function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return String(pid);
  }
}

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** CPU seconds used so far by the named platform processes (`payments`, `gateway`, `payments#1`…). */
export function cpuSecondsOfProcesses(platform: Platform, names: string[]): number {
  const pids = platform.pids();
  return totalCpuSeconds(names.map((name) => pids.get(name) ?? 0).filter((pid) => pid > 0));
}
