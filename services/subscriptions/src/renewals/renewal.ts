import type { Mode } from '@ppay/kernel';

/** One record per (subscription, period) under a unique index: the audit of a period's charge attempts. */
export interface RenewalRecord {
  subscription_id: string;
  merchant_id: number;
  mode: Mode;
  period_index: number;
  period_start: Date;
  period_end: Date;
  /** Attempt number (1 = the renewal, 2… = dunning retries) → what happened. */
  attempts: Record<string, RenewalAttempt>;
  status: 'pending' | 'paid' | 'failed';
  created_at: Date;
}

export interface RenewalAttempt {
  idempotency_key: string;
  started_at: Date;
  charge_id: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  decline_code: string | null;
  finished_at: Date | null;
}

/** The idempotency key of a period's charge attempt: never two charges for one (subscription, period, attempt). */
export function renewalKey(subscriptionId: string, periodStart: Date, attempt: number): string {
  return `sub:${subscriptionId}:${periodStart.toISOString()}:${attempt}`;
}

/** The key of a period's record: one per (subscription, period start). */
export function renewalRecordId(subscriptionId: string, periodStart: Date): string {
  return `${subscriptionId}:${periodStart.toISOString()}`;
}

/** An attempt as it is recorded before payments is asked. */
export function startedAttempt(idempotencyKey: string, at: Date): RenewalAttempt {
  return {
    idempotency_key: idempotencyKey,
    started_at: at,
    charge_id: null,
    status: 'pending',
    decline_code: null,
    finished_at: null,
  };
}
