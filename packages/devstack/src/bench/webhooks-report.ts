/** What `bench -- webhooks` prints: its targets and the lines and table row built from its figures. */

/** Issue 28's targets for webhook deliveries, on one run of this machine. */
export const WEBHOOK_TARGETS = {
  durableRatio: 0.6,
  deliveriesPerSecond: 1_000,
  p99Ms: 500,
} as const;

/** One side's burst: deliveries/s and CPU per delivery by process (ms, largest first). */
export interface SideFigures {
  rate: number;
  cpu: [string, number][];
}

/**
 * The mean per delivery over bursts of equal size, key by key (a key missing from a burst counts as 0
 * there), largest first: e.g. CPU ms per delivery by process, or database commands per delivery.
 */
export function meanEntries(windows: [string, number][][]): [string, number][] {
  const sums = new Map<string, number>();
  for (const w of windows) for (const [k, v] of w) sums.set(k, (sums.get(k) ?? 0) + v);
  return [...sums]
    .map(([k, v]) => [k, v / Math.max(1, windows.length)] as [string, number])
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export interface WebhookFigures {
  platform: SideFigures;
  durable: SideFigures;
  bare: { rate: number; cpuUs: number };
  p99: number;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

export const cpuTotalMs = (cpu: [string, number][]): number => cpu.reduce((sum, [, ms]) => sum + ms, 0);

/** "webhooks 700, ferretdb 365 µs (total 1,065 µs)": only processes with 10 µs or more are listed. */
export function fmtCpuUs(cpu: [string, number][]): string {
  const listed = cpu.filter(([, ms]) => ms >= 0.01).map(([name, ms]) => `${name} ${int(ms * 1000)}`);
  return `${listed.join(', ') || 'none'} µs (total ${int(cpuTotalMs(cpu) * 1000)} µs)`;
}

export interface Verdict {
  durableRatio: number;
  bareRatio: number;
  ratioMet: boolean;
  rateMet: boolean;
  p99Met: boolean;
  pass: boolean;
}

export function verdictOf(f: WebhookFigures): Verdict {
  const durableRatio = f.platform.rate / Math.max(1e-9, f.durable.rate);
  const bareRatio = f.platform.rate / Math.max(1e-9, f.bare.rate);
  const ratioMet = durableRatio >= WEBHOOK_TARGETS.durableRatio;
  const rateMet = f.platform.rate >= WEBHOOK_TARGETS.deliveriesPerSecond;
  const p99Met = f.p99 <= WEBHOOK_TARGETS.p99Ms;
  return { durableRatio, bareRatio, ratioMet, rateMet, p99Met, pass: ratioMet && rateMet && p99Met };
}

const mark = (ok: boolean) => (ok ? 'PASS' : 'BELOW TARGET');

/** The ratio line: the durable baseline carries the target, the bare loop is shown beside it. */
export function ratioLine(v: Verdict): string {
  return [
    `  ratio     ${v.durableRatio.toFixed(2)}x the durable baseline (target >= ${WEBHOOK_TARGETS.durableRatio}x) ${mark(v.ratioMet)}`,
    `${v.bareRatio.toFixed(2)}x the bare loop`,
    `>= ${int(WEBHOOK_TARGETS.deliveriesPerSecond)} deliveries/s: ${mark(v.rateMet)}`,
  ].join(';   ');
}

/** The case's row in `bench -- all`'s table. */
export function tableFigures(f: WebhookFigures, v: Verdict) {
  const us = (cpu: [string, number][]) => int(cpuTotalMs(cpu) * 1000);
  return {
    platform: `${int(f.platform.rate)} deliveries/s, ${us(f.platform.cpu)} µs cpu/delivery (all processes), p99 ${f.p99} ms at 200/s`,
    reference: `durable baseline ${int(f.durable.rate)} deliveries/s, ${us(f.durable.cpu)} µs cpu/delivery; bare HMAC + POST loop ${int(f.bare.rate)}/s, ${int(f.bare.cpuUs)} µs`,
    ratio: `${v.durableRatio.toFixed(2)}x the durable baseline (${v.bareRatio.toFixed(2)}x the bare loop)`,
    target: `>= ${WEBHOOK_TARGETS.durableRatio}x durable, >= ${int(WEBHOOK_TARGETS.deliveriesPerSecond)}/s, p99 <= ${WEBHOOK_TARGETS.p99Ms} ms`,
    pass: v.pass,
  };
}
