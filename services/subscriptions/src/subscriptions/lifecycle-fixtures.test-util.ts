import { activate, cancel, claimRenewal, newSubscription, pause, renewalFailed, startTrial } from './lifecycle';

/** Subscription states for the lifecycle tests, all from one monthly checkout on Jan 31. */

export const t = (iso: string) => new Date(iso);
export const DAY = 86_400_000;
export const plus = (d: Date, days: number) => new Date(d.getTime() + days * DAY);
/** What an illegal transition throws. */
export const conflict = (message: string) => expect.objectContaining({ code: 'CONFLICT', message });

// Checkout on Jan 31: month-end anchoring shows up in every renewal below.
export const T0 = t('2026-01-31T10:00:00.000Z');
export const FEB_28 = t('2026-02-28T10:00:00.000Z');
export const MAR_31 = t('2026-03-31T10:00:00.000Z');
export const APR_30 = t('2026-04-30T10:00:00.000Z');
export const LATE = t('2030-01-01T00:00:00.000Z');

export const pending = () => newSubscription('monthly');
export const active = () => activate(pending(), { paidAt: T0, periodStart: T0, periodEnd: FEB_28 });
export const trialing = () => startTrial(pending(), { now: T0, trialDays: 14 });
export const dueClaimed = () => claimRenewal(active(), FEB_28);
export const dueWaiting = () => renewalFailed(dueClaimed(), { failedAt: FEB_28, declineCode: 'insufficient_funds' });
export const pausedByMerchant = () => pause(active(), t('2026-02-10T00:00:00.000Z'));
export const pausedByDunning = () => renewalFailed(dueClaimed(), { failedAt: FEB_28, declineCode: 'expired_card' });
export const cancelled = () => cancel(active(), { now: t('2026-02-10T00:00:00.000Z') }).state;
export const endingAtPeriodEnd = () =>
  cancel(active(), { now: t('2026-02-10T00:00:00.000Z'), atPeriodEnd: true }).state;
