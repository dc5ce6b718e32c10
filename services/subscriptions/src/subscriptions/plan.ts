import {
  isSubscriptionFrequency,
  PlatformError,
  SUBSCRIPTION_FREQUENCIES,
  TRIAL_DAYS_MAX,
  TRIAL_DAYS_MIN,
} from '@ppay/kernel';
import { checkDate, DAY_MS, type Frequency } from '../renewals/calendar';

/** The plan a subscription is sold on, as partners ask for it: its frequency key and its trial. */

/** `subscription_frequency_key` (spec 4.2). Exact lower-case keys only: they are identifiers, not prose. */
export function parseFrequency(raw: unknown): Frequency {
  if (isSubscriptionFrequency(raw)) return raw;
  throw new PlatformError(
    'VALIDATION_FAILED',
    `subscription_frequency_key must be one of ${SUBSCRIPTION_FREQUENCIES.join(', ')}`,
    { param: 'subscription_frequency_key' },
  );
}

/**
 * Validates `trial_days` (integer 1–730: at least a day, at most two years) and returns when the trial
 * ends: exactly `trialDays × 24 h` after `start`, so the time of day is kept (UTC has no DST).
 */
export function trialEnd(start: Date, trialDays: number): Date {
  const startMs = checkDate(start, 'start');
  if (!Number.isSafeInteger(trialDays) || trialDays < TRIAL_DAYS_MIN || trialDays > TRIAL_DAYS_MAX) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `trial_days must be an integer from ${TRIAL_DAYS_MIN} to ${TRIAL_DAYS_MAX}`,
      { param: 'trial_days' },
    );
  }
  return new Date(startMs + trialDays * DAY_MS);
}
