import { DAY_MS } from './calendar';

/**
 * Dunning: what happens after a scheduled charge (a subscription's renewal) fails. Nothing here knows
 * what is being paid for: the caller applies the decision (a subscription pauses when told to).
 *
 * Schedule (per billing period): attempt 1 is the scheduled charge itself. If it fails at instant F, attempts
 * 2, 3 and 4 are made at F + 1 day, F + 3 days and F + 5 days. Every offset is measured from F, the
 * failure of attempt 1, not from the previous retry, so a slow gateway or a late-running worker cannot
 * stretch the schedule. A "day" is 24 h of UTC time. After the fourth failure the decision is `pause`.
 *
 * Stripe's Smart Retries default to 8 tries in 2 weeks and Kill Bill to 8, 8, 8 days; ours is shorter
 * on purpose: a subscription without a paid period has no access, so after five days of dunning the
 * merchant sees `paused` and can ask the customer for another card instead of waiting two weeks.
 *
 * Hard declines (the card can never pay: lost, stolen, expired…) are not retried, as Stripe does not
 * retry non-retryable decline codes: retrying them gains nothing and card networks
 * limit (and charge for) repeated attempts on such declines.
 */

/** Offsets in days from the first failed attempt of the period to retries 1, 2 and 3. */
export const DUNNING_SCHEDULE_DAYS = [1, 3, 5] as const;

/** The scheduled attempt plus one per retry. */
export const MAX_ATTEMPTS_PER_PERIOD = 1 + DUNNING_SCHEDULE_DAYS.length;

/**
 * Decline codes no retry can fix (Stripe decline_code naming); the customer must supply another
 * payment method. Anything not listed (insufficient_funds, do_not_honor, processing_error, network
 * time-outs…) is treated as soft and retried on the schedule.
 */
export const HARD_DECLINE_CODES: ReadonlySet<string> = new Set([
  'expired_card',
  'stolen_card',
  'lost_card',
  'pickup_card',
  'card_not_supported',
  'currency_not_supported',
  'incorrect_number',
  'invalid_account',
  'restricted_card',
  'fraudulent',
  'do_not_try_again',
  'revocation_of_authorization',
  'revocation_of_all_authorizations',
  'stop_payment_order',
  'transaction_not_allowed',
]);

/** Codes from gateways differ in case and padding; compare normalised. */
export function isHardDecline(code: string | null | undefined): boolean {
  return typeof code === 'string' && HARD_DECLINE_CODES.has(code.trim().toLowerCase());
}

function checkFailedAttempts(failedAttempts: number): void {
  if (!Number.isSafeInteger(failedAttempts) || failedAttempts < 0) {
    throw new RangeError(`failedAttempts must be a non-negative integer, got ${failedAttempts}`);
  }
}

/** Attempts still allowed in this period after `failedAttempts` failures (4, 3, 2, 1, then 0). */
export function attemptsLeft(failedAttempts: number): number {
  checkFailedAttempts(failedAttempts);
  return Math.max(0, MAX_ATTEMPTS_PER_PERIOD - failedAttempts);
}

/**
 * When to make the next attempt after `failedAttempts` (≥ 1, counting the scheduled one) have failed
 * this period; null when the schedule is exhausted.
 */
export function nextRetryAt(firstFailureAt: Date, failedAttempts: number): Date | null {
  checkFailedAttempts(failedAttempts);
  if (failedAttempts < 1) throw new RangeError('nextRetryAt needs at least one failed attempt');
  const first = firstFailureAt.getTime();
  if (Number.isNaN(first)) throw new RangeError('firstFailureAt must be a valid Date');
  const days = DUNNING_SCHEDULE_DAYS[failedAttempts - 1];
  return days === undefined ? null : new Date(first + days * DAY_MS);
}

export type PauseCause = 'hard_decline' | 'retries_exhausted';

export type DunningDecision =
  { action: 'retry'; at: Date; attemptsLeft: number } | { action: 'pause'; cause: PauseCause; attemptsLeft: 0 };

export interface FailureFacts {
  /** When attempt 1 of this period failed (for the first failure: that failure's own time). */
  firstFailureAt: Date;
  /** Failures this period including the one being decided on. */
  failedAttempts: number;
  /** Gateway decline code, if any. */
  declineCode?: string | null;
}

/** The whole policy in one place: a hard decline pauses at once; otherwise retry until the schedule runs out. */
export function decideAfterFailure(facts: FailureFacts): DunningDecision {
  if (isHardDecline(facts.declineCode)) return { action: 'pause', cause: 'hard_decline', attemptsLeft: 0 };
  const at = nextRetryAt(facts.firstFailureAt, facts.failedAttempts);
  if (!at) return { action: 'pause', cause: 'retries_exhausted', attemptsLeft: 0 };
  return { action: 'retry', at, attemptsLeft: attemptsLeft(facts.failedAttempts) };
}
