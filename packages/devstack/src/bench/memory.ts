/** What a process's memory readings mean for the leak check of `bench -- memory`. */

export interface NodeMemory {
  heapUsed: number;
  /** What V8 has committed for its heap: what is in use plus free pages it keeps for later allocation. */
  heapTotal: number;
  /** Memory outside the heap that V8 tracks (Buffers). */
  external: number;
}

/**
 * Resident memory less the V8 heap pages that are committed but free after a full GC. V8 keeps those
 * for the next allocations and sizes them by the recent allocation rate, so RSS moves with them
 * (docs/performance.md, memory). What is left is what the process actually holds: a leak grows it.
 */
export function heldBytes(rss: number, memory: NodeMemory): number {
  return rss - Math.max(0, memory.heapTotal - memory.heapUsed);
}

/** The largest growth from one reading to the next, and where: 0.1 is +10 %. Needs two readings. */
export function largestStepGrowth(values: readonly number[]): { growth: number; from: number } {
  if (values.length < 2) throw new Error('largestStepGrowth needs at least two readings');
  let best = { growth: -Infinity, from: 0 };
  for (let i = 1; i < values.length; i++) {
    const growth = (values[i]! - values[i - 1]!) / Math.max(1, values[i - 1]!);
    if (growth > best.growth) best = { growth, from: i - 1 };
  }
  return best;
}
