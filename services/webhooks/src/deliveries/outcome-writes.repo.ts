import { WriteBatcher } from '@ppay/kernel';
import { leaseEndOf } from './claim-token';
import { fieldsAfter, type AttemptOutcome } from './delivery';
import { encodeAttempt, FINAL, type DeliveryModel, type DueModel } from './delivery-documents.repo';

interface Completion {
  deliveryId: string;
  claimToken: string;
  outcome: AttemptOutcome;
  now: Date;
}

/** Below this much lease left, an outcome's writes are conditional on the claim token. */
const LEASE_MARGIN_MS = 2_000;

/**
 * Attempts' outcomes, written in batches: the log document first, then the due entry (deleted when
 * the delivery is finished, rescheduled when it is not); see delivery-documents.repo.ts for a crash
 * in between.
 */
export class MongoOutcomeWrites {
  constructor(
    private readonly model: DeliveryModel,
    private readonly due: DueModel,
  ) {}

  private readonly completions = new WriteBatcher((batch: Completion[]) => this.writeOutcomes(batch));

  /**
   * Records an outcome while the claim is ours. Outcomes arriving while a batch is being written join
   * the next batch: a batch costs one read and two writes (plus one per retry), however many
   * deliveries it holds.
   */
  complete(deliveryId: string, claimToken: string, outcome: AttemptOutcome, now: Date): Promise<boolean> {
    return this.completions.add({ deliveryId, claimToken, outcome, now });
  }

  private async writeOutcomes(batch: Completion[]): Promise<boolean[]> {
    // A claim changes hands only once its lease has expired, and the token carries the lease's end:
    // while ours has time left, the writes go by _id alone (FerretDB finds nothing else without
    // reading the whole collection). Near the end of the lease, ownership is read first and the due
    // entry's write stays conditional on the token. Judged at the time of writing: an outcome may have
    // waited for its batch.
    const writingAt = Date.now();
    const late = batch.filter(
      (c) => (leaseEndOf(c.claimToken) ?? 0) - Math.max(writingAt, c.now.getTime()) <= LEASE_MARGIN_MS,
    );
    const lost = new Set<Completion>();
    await Promise.all(
      late.map(async (c) => {
        const d = (await this.due.findById(c.deliveryId, { claim_token: 1 }).lean().exec()) as {
          claim_token: string | null;
        } | null;
        if (d?.claim_token !== c.claimToken) lost.add(c);
      }),
    );
    const owned = batch.map((c) => !lost.has(c));
    const mine = batch.filter((c) => !lost.has(c));
    if (!mine.length) return owned;
    const filterOf = (c: Completion) =>
      late.includes(c) ? { _id: c.deliveryId, claim_token: c.claimToken } : { _id: c.deliveryId };
    // Log first, then the due entries: see the class comment for a crash in between.
    await this.model.bulkWrite(
      mine.map(({ deliveryId, outcome, now }) => ({
        updateOne: {
          filter: { _id: deliveryId },
          update: {
            $set: fieldsAfter(outcome, now),
            ...(outcome.attempts.length ? { $push: { attempts: { $each: outcome.attempts.map(encodeAttempt) } } } : {}),
          },
        },
      })),
      { ordered: false },
    );
    const finished = mine.filter((c) => FINAL.includes(c.outcome.status));
    const retries = mine.filter((c) => !FINAL.includes(c.outcome.status));
    // One delete per entry by _id (an index lookup), not one deleteMany over an $in (a collection read).
    const rest = [
      ...finished.map((c) => ({ deleteOne: { filter: filterOf(c) } })),
      ...retries.map((c) => ({
        updateOne: {
          filter: filterOf(c),
          update: {
            $set: {
              status: 'pending',
              next_attempt_at: c.outcome.next_attempt_at,
              round_attempts: c.outcome.round_attempts,
              claim_token: null,
            },
          },
        },
      })),
    ];
    if (rest.length) await this.due.bulkWrite(rest as Parameters<DueModel['bulkWrite']>[0], { ordered: false });
    return owned;
  }
}
