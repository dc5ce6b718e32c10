import type { Clock } from './ports';

/** The process's own clock and timers. */
export const systemClock: Clock = {
  now: () => new Date(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
