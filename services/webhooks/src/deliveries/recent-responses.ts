/**
 * How many HTTP responses each key's receiver gave in about the last `windowMs` (timeouts and network
 * errors are not responses): two fixed windows, the previous one weighted by how much of it still
 * overlaps the sliding window. Tells the worker how many first attempts can expect a slot of the key
 * within one slot wait (see SendSlots.wait).
 */
export class RecentResponses {
  private readonly byKey = new Map<string, { start: number; count: number; previous: number }>();

  constructor(
    readonly windowMs: number,
    private readonly now: () => number,
    /** Keys tracked at most: past it, keys without a response for two windows are forgotten. */
    private readonly maxKeys = 10_000,
  ) {}

  responded(keyId: string): void {
    const w = this.current(keyId, this.now());
    if (w) {
      w.count++;
      return;
    }
    if (this.byKey.size >= this.maxKeys) this.forgetIdle();
    this.byKey.set(keyId, { start: this.now(), count: 1, previous: 0 });
  }

  /** Responses in about the last window. */
  count(keyId: string): number {
    const now = this.now();
    const w = this.current(keyId, now);
    if (!w) return 0;
    const overlap = 1 - (now - w.start) / this.windowMs;
    return Math.floor(w.count + w.previous * overlap);
  }

  /** The key's windows rolled forward to `now`, or undefined if it has none. */
  private current(keyId: string, now: number) {
    const w = this.byKey.get(keyId);
    if (!w) return undefined;
    const elapsed = Math.floor((now - w.start) / this.windowMs);
    if (elapsed >= 1) {
      w.previous = elapsed === 1 ? w.count : 0;
      w.count = 0;
      w.start += elapsed * this.windowMs;
    }
    return w;
  }

  private forgetIdle(): void {
    const now = this.now();
    for (const [key, w] of this.byKey) if (now - w.start >= 2 * this.windowMs) this.byKey.delete(key);
  }
}
