import type { RenewalRepository } from './ports';
import { renewalRecordId, startedAttempt, type RenewalAttempt, type RenewalRecord } from './renewal';

/** The in-memory renewal records, keyed as the Mongo ones. */
export class MemoryRenewals implements RenewalRepository {
  readonly docs = new Map<string, RenewalRecord>();
  async startAttempt(
    period: Omit<RenewalRecord, 'attempts' | 'status' | 'created_at'>,
    attempt: number,
    idempotencyKey: string,
    at: Date,
  ) {
    const id = renewalRecordId(period.subscription_id, period.period_start);
    const doc = this.docs.get(id) ?? { ...period, attempts: {}, status: 'pending' as const, created_at: at };
    doc.attempts[String(attempt)] ??= startedAttempt(idempotencyKey, at);
    this.docs.set(id, doc);
  }
  async finishAttempt(
    subscriptionId: string,
    periodStart: Date,
    attempt: number,
    outcome: Pick<RenewalAttempt, 'charge_id' | 'status' | 'decline_code' | 'finished_at'>,
  ) {
    const doc = this.docs.get(renewalRecordId(subscriptionId, periodStart));
    if (!doc) return;
    Object.assign(doc.attempts[String(attempt)]!, outcome);
    if (doc.status !== 'paid') doc.status = outcome.status === 'succeeded' ? 'paid' : 'failed';
  }
}
