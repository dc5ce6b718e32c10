import type { Clock } from './ports';

/** A clock that moves only when the test moves it, running the timers that fall due on the way. */
export class FakeClock implements Clock {
  private ms: number;
  private timers: { at: number; order: number; fn: () => void }[] = [];
  private order = 0;

  constructor(start = Date.parse('2026-05-01T10:00:00.000Z')) {
    this.ms = start;
  }

  now(): Date {
    return new Date(this.ms);
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.ms + ms, order: ++this.order, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Timers set and not yet run or cancelled. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward by `ms`, running each timer due on the way at its own time, earliest first;
   * lets the promises those timers settle run (and what they start) after each one.
   */
  async advance(ms: number): Promise<void> {
    const end = this.ms + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.ms = next.at;
      next.fn();
      await settled();
    }
    this.ms = end;
    await settled();
  }
}

/** Lets every promise callback queued so far run, and those they queue in turn. */
export function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
