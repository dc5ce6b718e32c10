import * as grpc from '@grpc/grpc-js';
import CircuitBreaker from 'opossum';
import { budgetMs, ERROR_TRAILERS, isErrorCode, PlatformError, type ErrorCode } from '@ppay/kernel';
import type { PlatformMetrics } from '../metrics';
import { fromTrailerText } from './trailer-text';

type ReqOf<F> = F extends (argument: infer A, callback: grpc.requestCallback<infer _R>) => grpc.ClientUnaryCall
  ? A
  : never;
type ResOf<F> = F extends (argument: never, callback: grpc.requestCallback<infer R>) => grpc.ClientUnaryCall
  ? R
  : never;
/** The PascalCase unary methods of a generated client (the camelCase aliases are skipped). */
export type UnaryMethodName<C> = {
  [K in keyof C]: K extends `${Uppercase<infer F>}${string}`
    ? F extends ''
      ? never
      : C[K] extends (...args: never[]) => grpc.ClientUnaryCall
        ? K
        : never
    : never;
}[keyof C] &
  string;

/** A failed call to another component, with the catalogue code decoded from the trailers. */
export class RemoteCallError extends Error {
  constructor(
    readonly target: string,
    readonly method: string,
    readonly grpcCode: grpc.status,
    message: string,
    readonly errorCode?: ErrorCode,
    readonly param?: string,
    readonly detail?: string,
    /**
     * The failure is this request's own, not the target's: its response was over the receive limit,
     * or it ran out of a budget that this request set (its caller's short deadline, or a
     * tenant-sized method). It never counts against the target's breaker.
     */
    readonly ownFailure = false,
    /** The target's Retry-After for a quota it enforces (see PlatformErrorOptions.retryAfterSeconds). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'RemoteCallError';
  }

  /**
   * The catalogue code this failure stands for: the one the target sent, or, when the call failed
   * before any service answered (no trailer), one classified by gRPC status — an outage or a timeout
   * is never a partner's mistake.
   */
  get code(): ErrorCode {
    if (this.errorCode) return this.errorCode;
    switch (this.grpcCode) {
      case grpc.status.UNAVAILABLE:
      case grpc.status.CANCELLED:
        return 'SERVICE_UNAVAILABLE';
      case grpc.status.DEADLINE_EXCEEDED:
        return 'UPSTREAM_TIMEOUT';
      case grpc.status.UNIMPLEMENTED:
        return 'NOT_IMPLEMENTED';
      default:
        return 'INTERNAL';
    }
  }

  /** Re-raise as a platform error (a service relaying a sibling's answer); transport text stays hidden. */
  toPlatformError(): PlatformError {
    return new PlatformError(this.code, this.errorCode ? this.message : undefined, {
      param: this.errorCode ? this.param : undefined,
      detail: this.errorCode ? this.detail : `${this.target} ${this.method} failed`,
      retryAfterSeconds: this.retryAfterSeconds,
    });
  }
}

function positiveSeconds(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function countsAgainstTarget(err: RemoteCallError): boolean {
  if (err.ownFailure) return false;
  return err.errorCode ? err.errorCode === 'INTERNAL' : INFRASTRUCTURE_FAILURES.has(err.grpcCode);
}

/**
 * Failures that say the target is unhealthy, as opposed to a partner's mistake. RESOURCE_EXHAUSTED
 * without a catalogue code is a message over a size limit: one request's size, never the target's
 * health (a healthy target answering one tenant's large read must not open everyone's breaker).
 */
const INFRASTRUCTURE_FAILURES = new Set<grpc.status>([
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
]);

export interface BreakerOptions {
  /** Percentage of failed calls in the rolling window that opens the breaker. */
  errorThresholdPercentage: number;
  /** How long the breaker stays open before letting a trial call through. */
  resetTimeoutMs: number;
  rollingCountTimeoutMs: number;
  /** Minimum calls in the window before the breaker may open. */
  volumeThreshold: number;
}

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = {
  errorThresholdPercentage: 50,
  resetTimeoutMs: 5_000,
  rollingCountTimeoutMs: 10_000,
  volumeThreshold: 5,
};

export interface ServiceClientOptions {
  deadlineMs: number;
  breaker?: BreakerOptions;
  metrics?: PlatformMetrics;
  /**
   * Methods whose work grows with one tenant's data (an event with its deliveries, a page of
   * events): their deadline failures are that request's, not a sign that the target is down, so they
   * never open the breaker every tenant shares. A target that is really down fails its other calls.
   */
  tenantSizedMethods?: readonly string[];
  /** Extra channel options (e.g. a channel of its own, not shared with other clients of the address). */
  channelOptions?: grpc.ChannelOptions;
}

/** Channel options: reconnect quickly after a restart instead of grpc-js's 120 s maximum backoff. */
export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2_000,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 5_000,
};

export type ClientConstructor<C> = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ChannelOptions,
) => C;

/**
 * One client per target, created once and reused. Every call has a deadline; optionally every call
 * goes through an opossum breaker that counts only infrastructure failures, so a partner's 400s
 * never open it. An open breaker fails fast with SERVICE_UNAVAILABLE and `retryAfterSeconds`.
 */
export class ServiceClient<C extends grpc.Client> {
  readonly client: C;
  private readonly breaker?: CircuitBreaker<[() => Promise<unknown>], unknown>;

  constructor(
    readonly target: string,
    ctor: ClientConstructor<C>,
    address: string,
    private readonly options: ServiceClientOptions,
  ) {
    this.client = new ctor(address, grpc.credentials.createInsecure(), {
      ...CHANNEL_OPTIONS,
      ...options.channelOptions,
    });
    if (options.breaker) this.breaker = this.createBreaker(options.breaker);
  }

  get breakerState(): 'closed' | 'open' | 'half_open' | 'none' {
    if (!this.breaker) return 'none';
    if (this.breaker.opened) return 'open';
    return this.breaker.halfOpen ? 'half_open' : 'closed';
  }

  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.options.breaker?.resetTimeoutMs ?? 1000) / 1000));
  }

  /**
   * One unary call. `deadline` (the caller's own) cuts this call's budget: it gets at most what is
   * left of it, and fails fast with UPSTREAM_TIMEOUT when nothing is left.
   */
  call<M extends UnaryMethodName<C>>(
    method: M,
    request: ReqOf<C[M]>,
    metadata: grpc.Metadata = new grpc.Metadata(),
    options: { deadlineMs?: number; deadline?: Date } = {},
  ): Promise<ResOf<C[M]>> {
    const ownBudgetMs = options.deadlineMs ?? this.options.deadlineMs;
    let deadlineMs: number;
    try {
      deadlineMs = budgetMs(options.deadline, ownBudgetMs);
    } catch (err) {
      return Promise.reject(err);
    }
    // A deadline this request shortened (its caller had less time left) or a tenant-sized method's
    // deadline says nothing about the target's health.
    const budgetIsRequests = deadlineMs < ownBudgetMs || (this.options.tenantSizedMethods?.includes(method) ?? false);
    const attempt = () => this.rawCall(method, request, metadata, deadlineMs, budgetIsRequests);
    if (!this.breaker) return attempt() as Promise<ResOf<C[M]>>;
    return this.breaker.fire(attempt).catch((err: unknown) => {
      if (err instanceof Error && (err as { code?: string }).code === 'EOPENBREAKER') {
        this.options.metrics?.breakerEvents.inc({ target: this.target, event: 'reject' });
        throw new PlatformError('SERVICE_UNAVAILABLE', undefined, {
          detail: `${this.target} is unavailable (circuit open)`,
        });
      }
      throw err;
    }) as Promise<ResOf<C[M]>>;
  }

  close(): void {
    this.breaker?.shutdown();
    this.client.close();
  }

  private rawCall(
    method: string,
    request: unknown,
    metadata: grpc.Metadata,
    deadlineMs: number,
    budgetIsRequests: boolean,
  ): Promise<unknown> {
    const metrics = this.options.metrics;
    const stop = metrics?.grpcClientDuration.startTimer({ grpc_target: this.target, grpc_method: method });
    return new Promise((resolve, reject) => {
      const fn = (this.client as unknown as Record<string, Function>)[method];
      fn.call(
        this.client,
        request,
        metadata,
        { deadline: Date.now() + deadlineMs },
        (err: grpc.ServiceError | null, response: unknown) => {
          stop?.();
          const code = err ? err.code : grpc.status.OK;
          metrics?.grpcClientHandled.inc({
            grpc_target: this.target,
            grpc_method: method,
            grpc_code: grpc.status[code],
          });
          if (!err) return resolve(response);
          reject(this.decodeError(method, err, budgetIsRequests));
        },
      );
    });
  }

  private decodeError(method: string, err: grpc.ServiceError, budgetIsRequests: boolean): RemoteCallError {
    const trailer = (key: string) => {
      const v = err.metadata?.get(key)[0];
      return typeof v === 'string' && v !== '' ? v : undefined;
    };
    const textTrailer = (key: string) => {
      const v = trailer(key);
      return v === undefined ? undefined : fromTrailerText(v);
    };
    const code = trailer(ERROR_TRAILERS.code);
    const ownFailure =
      err.code === grpc.status.RESOURCE_EXHAUSTED || (err.code === grpc.status.DEADLINE_EXCEEDED && budgetIsRequests);
    return new RemoteCallError(
      this.target,
      method,
      err.code,
      err.details || err.message,
      isErrorCode(code) ? code : undefined,
      textTrailer(ERROR_TRAILERS.param),
      textTrailer(ERROR_TRAILERS.detail),
      ownFailure,
      positiveSeconds(trailer(ERROR_TRAILERS.retryAfter)),
    );
  }

  private createBreaker(opts: BreakerOptions) {
    const breaker = new CircuitBreaker((fn: () => Promise<unknown>) => fn(), {
      // Deadlines are enforced by gRPC itself; the breaker only counts outcomes.
      timeout: false,
      errorThresholdPercentage: opts.errorThresholdPercentage,
      resetTimeout: opts.resetTimeoutMs,
      rollingCountTimeout: opts.rollingCountTimeoutMs,
      volumeThreshold: opts.volumeThreshold,
      // Only the target being down or unresponsive opens its breaker: a transport failure (no code),
      // or the target's own internal error. An answer with any other code — a partner's mistake, or
      // the target reporting its own dependency down — means the target is alive.
      errorFilter: (err: unknown) => !(err instanceof RemoteCallError && countsAgainstTarget(err)),
    });
    const metrics = this.options.metrics;
    const state = (value: number, event: string) => () => {
      metrics?.breakerState.set({ target: this.target }, value);
      metrics?.breakerEvents.inc({ target: this.target, event });
    };
    metrics?.breakerState.set({ target: this.target }, 0);
    breaker.on('open', state(2, 'open'));
    breaker.on('halfOpen', state(1, 'half_open'));
    breaker.on('close', state(0, 'close'));
    return breaker;
  }
}
