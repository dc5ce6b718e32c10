/**
 * Subscription billing frequencies (spec 4.2 `subscription_frequency_key`). Spec 4.2 names monthly,
 * yearly and quarterly and calls its list incomplete; this is the complete list (docs/decisions.md,
 * Subscriptions 1). One list for payments (which validates the session request) and subscriptions
 * (which bills on it).
 */
export const SUBSCRIPTION_FREQUENCIES = ['weekly', 'monthly', 'quarterly', 'biannually', 'yearly'] as const;
export type SubscriptionFrequency = (typeof SUBSCRIPTION_FREQUENCIES)[number];

export function isSubscriptionFrequency(value: unknown): value is SubscriptionFrequency {
  return typeof value === 'string' && (SUBSCRIPTION_FREQUENCIES as readonly string[]).includes(value);
}

/** Optional free trial on a subscription checkout (beyond the spec): whole days, at least one, at most two years. */
export const TRIAL_DAYS_MIN = 1;
export const TRIAL_DAYS_MAX = 730;
