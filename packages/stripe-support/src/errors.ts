import Stripe from 'stripe';
import { PlatformError } from '@ppay/kernel';

/** What a Stripe call's failure means for us, before it becomes an answer or a PlatformError. */
export type StripeFailure =
  /** The card was refused: an answer, not a failure (decline_code as Stripe gives it). */
  | { kind: 'declined'; decline_code: string; message: string }
  /** Rate limit, Stripe's 5xx, a connection that failed: retry with the same idempotency key. */
  | { kind: 'unavailable'; detail: string }
  /** No answer in time: Stripe may have acted, the outcome is unknown until its event. */
  | { kind: 'timeout' }
  /** A wrong, revoked or under-privileged key: an operator must act (alerted); never quoted. */
  | { kind: 'authentication' }
  /** Stripe refused the request itself (a parameter, a reused key with other parameters): our bug. */
  | { kind: 'refused'; status: number; code: string };

const { errors } = Stripe;

/** Anything that looks like a Stripe key or secret, masked out of text that might be logged. */
export function redactKeys(text: string): string {
  return text.replace(/\b(sk|rk|pk|whsec)_[A-Za-z0-9_*]+/g, '$1_[redacted]');
}

export function classifyStripeError(err: unknown): StripeFailure {
  if (err instanceof errors.StripeCardError) {
    return {
      kind: 'declined',
      // The library sets an absent decline code to '' (an expired card has only its error code).
      decline_code: err.decline_code || err.code || 'card_declined',
      message: redactKeys(err.message),
    };
  }
  if (err instanceof errors.StripeAuthenticationError || err instanceof errors.StripePermissionError) {
    return { kind: 'authentication' };
  }
  if (err instanceof errors.StripeConnectionError) {
    const code = (err.detail as { code?: string } | undefined)?.code;
    if (code === 'ETIMEDOUT') return { kind: 'timeout' };
    return { kind: 'unavailable', detail: 'could not reach Stripe' };
  }
  if (err instanceof errors.StripeRateLimitError) return { kind: 'unavailable', detail: 'Stripe rate limit' };
  if (err instanceof errors.StripeAPIError)
    return { kind: 'unavailable', detail: `Stripe error ${err.statusCode ?? ''}` };
  if (err instanceof errors.StripeError) {
    const status = err.statusCode ?? 400;
    if (status >= 500) return { kind: 'unavailable', detail: `Stripe error ${status}` };
    return { kind: 'refused', status, code: err.code ?? err.type };
  }
  // Not the library's own error (a bug of ours, or something under it): treat as unreachable.
  return { kind: 'unavailable', detail: 'unexpected failure calling Stripe' };
}

/**
 * The PlatformError a failed Stripe call becomes. `onAuthFailure` is the alert for a key that no
 * longer works; the partner only learns the processor is unavailable.
 */
export function stripeFailureError(
  failure: StripeFailure,
  operation: string,
  onAuthFailure: () => void,
): PlatformError {
  switch (failure.kind) {
    case 'timeout':
      return new PlatformError('UPSTREAM_TIMEOUT', 'The payment processor did not answer in time', {
        detail: `card_gateway ${operation}: the outcome is unknown; retry with the same Idempotency-Key or reference`,
      });
    case 'authentication':
      onAuthFailure();
      return new PlatformError('SERVICE_UNAVAILABLE', undefined, {
        detail: 'card_gateway is unavailable; nothing was done, retry the request',
      });
    case 'unavailable':
      return new PlatformError('SERVICE_UNAVAILABLE', undefined, {
        detail: 'card_gateway is unavailable; nothing was done, retry the request',
      });
    case 'declined':
      return new PlatformError('UNPROCESSABLE', 'The card was declined', { detail: failure.decline_code });
    case 'refused':
      return new PlatformError('INTERNAL', `card_gateway refused ${operation} (${failure.status} ${failure.code})`);
  }
}

/**
 * One call to Stripe, counted by operation and outcome, its failure mapped to ours. `onRefused` may
 * answer a refusal better (read back what Stripe refused it for) by throwing; otherwise the mapped
 * error is thrown.
 */
export async function observedCall<T>(
  observer: { call(operation: string, outcome: string): void; authFailure(): void },
  operation: string,
  run: () => Promise<T>,
  onRefused?: () => Promise<void>,
): Promise<T> {
  try {
    const result = await run();
    observer.call(operation, 'ok');
    return result;
  } catch (err) {
    const failure = classifyStripeError(err);
    observer.call(operation, failure.kind);
    if (failure.kind === 'refused' && onRefused) await onRefused();
    throw stripeFailureError(failure, operation, () => observer.authFailure());
  }
}
