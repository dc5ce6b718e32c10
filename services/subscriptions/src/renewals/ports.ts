import type { RenewalAttempt, RenewalRecord } from './renewal';

/** Ports only renewals use. */

export interface RenewalRepository {
  /** Creates the period's record if absent and the attempt if absent (both idempotent). */
  startAttempt(
    period: Omit<RenewalRecord, 'attempts' | 'status' | 'created_at'>,
    attempt: number,
    idempotencyKey: string,
    at: Date,
  ): Promise<void>;
  finishAttempt(
    subscriptionId: string,
    periodStart: Date,
    attempt: number,
    outcome: Pick<RenewalAttempt, 'charge_id' | 'status' | 'decline_code' | 'finished_at'>,
  ): Promise<void>;
}
