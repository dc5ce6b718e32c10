import CircuitBreaker from 'opossum';
import { PlatformError } from '@ppay/kernel';

export interface ProcessorBreakerOptions {
  timeoutMs: number;
  resetTimeoutMs: number;
}

/**
 * Every call to a processor (payments' card gateways, kyc's connected accounts) runs behind a breaker of its kind (charges, refunds, look-ups…) with a
 * timeout: a hung processor fails fast, and one failing kind of call does not stop the others.
 */
export class ProcessorGuard {
  private readonly breakers = new Map<string, CircuitBreaker<[() => Promise<unknown>], unknown>>();

  constructor(
    private readonly processorId: string,
    private readonly options: ProcessorBreakerOptions,
  ) {}

  async call<T>(kind: string, run: () => Promise<T>): Promise<T> {
    try {
      return (await this.breakerFor(kind).fire(run)) as T;
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      // No answer in time: the processor may have acted on the request, so the outcome is unknown.
      if ((err as { code?: string }).code === 'ETIMEDOUT') {
        throw new PlatformError('UPSTREAM_TIMEOUT', 'The payment processor did not answer in time', {
          detail: `${this.processorId}: the outcome is unknown; retry with the same Idempotency-Key or reference`,
          cause: err,
        });
      }
      // An open breaker sent nothing; any other failure is the processor refusing the request.
      throw new PlatformError('SERVICE_UNAVAILABLE', undefined, {
        detail: `${this.processorId} is unavailable; nothing was done, retry the request`,
        cause: err,
      });
    }
  }

  private breakerFor(kind: string): CircuitBreaker<[() => Promise<unknown>], unknown> {
    let breaker = this.breakers.get(kind);
    if (!breaker) {
      breaker = new CircuitBreaker((run: () => Promise<unknown>) => run(), {
        timeout: this.options.timeoutMs,
        resetTimeout: this.options.resetTimeoutMs,
        errorThresholdPercentage: 50,
        volumeThreshold: 5,
        name: `${this.processorId}.${kind}`,
      });
      this.breakers.set(kind, breaker);
    }
    return breaker;
  }
}
