import { Counter } from 'prom-client';
import { PlatformError, TtlCache } from '@ppay/kernel';
import { type PlatformMetrics } from '@ppay/runtime';

/**
 * Failed authentications per client address, counted before any key lookup: a client that keeps
 * presenting wrong API keys or tokens is answered 429 without a lookup until its window passes, so
 * keys cannot be guessed at speed and bad credentials cannot load the webhooks service. The per-
 * merchant rate limits run after authentication and so could never see these requests.
 */
export class AuthFailureLimiter {
  private readonly windows: TtlCache<string, { failures: number }>;
  private readonly refused: Counter;

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    metrics: PlatformMetrics,
    maxAddresses = 100_000,
    now: () => number = Date.now,
  ) {
    this.windows = new TtlCache(maxAddresses, now);
    this.refused = new Counter({
      name: 'ppay_gateway_auth_failures_limited_total',
      help: 'Requests refused with 429 because their address failed authentication too often',
      registers: [metrics.registry],
    });
  }

  /** RATE_LIMITED when the address has used up its failures (0 = unlimited). */
  check(address: string): void {
    if (this.maxFailures === 0) return;
    const window = this.windows.peek(address)?.value;
    if (window && window.failures >= this.maxFailures) {
      this.refused.inc();
      throw new PlatformError('RATE_LIMITED', undefined, {
        detail: `too many failed authentications from this address; retry after ${Math.ceil(this.windowMs / 1000)} s`,
      });
    }
  }

  record(address: string): void {
    if (this.maxFailures === 0) return;
    const window = this.windows.peek(address)?.value;
    if (window) window.failures++;
    else this.windows.set(address, { failures: 1 }, this.windowMs);
  }
}
