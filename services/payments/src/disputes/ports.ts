import type { DisputeStatus, Mode, OutboxEntry } from '@ppay/kernel';
import type { DisputeRecord, DisputeState } from './dispute';

/** GET /disputes: newest first, after the cursor (a list key: creation time and id). */
export interface DisputeListQuery {
  status?: DisputeStatus;
  charge_id?: string;
  from?: Date;
  to?: Date;
  /** Only disputes listed after this key (the previous page's last). */
  after?: string;
  limit: number;
}

/** Disputes (`disputes`, `_id` = dispute id, unique per charge). */
export interface DisputeRepository {
  /**
   * Inserts an opening dispute, or answers the charge's existing one (one dispute per charge). Null when
   * the charge's dispute refused the insert but was gone when read (an opening one discarded meanwhile):
   * nothing was written, the caller may try again.
   */
  insertOrGetForCharge(dispute: DisputeRecord): Promise<{ dispute: DisputeRecord; created: boolean } | null>;
  findById(disputeId: string): Promise<DisputeRecord | null>;
  /** The merchant's dispute in its mode; null for anyone else's (and for one still opening). */
  findForMerchant(merchantId: number, mode: Mode, disputeId: string): Promise<DisputeRecord | null>;
  /**
   * Writes `next` (version + 1) iff the stored dispute is still at `expected` status and version, with
   * `events` in its outbox in the same write; null when someone else changed it first.
   */
  replace(
    expected: Pick<DisputeRecord, 'dispute_id' | 'status' | 'version'>,
    next: DisputeRecord,
    events: OutboxEntry[],
  ): Promise<DisputeRecord | null>;
  /** Deletes a dispute still `opening` (its charge had no room left for it); false when it is not. */
  discardOpening(disputeId: string): Promise<boolean>;
  list(merchantId: number, mode: Mode, query: DisputeListQuery): Promise<DisputeRecord[]>;
  /** Disputes in `status` whose `field` time is at or before `until`, oldest first (the sweeps). */
  due(
    status: DisputeState,
    field: 'updated_at' | 'evidence_due_by' | 'scheduled_outcome_at',
    until: Date,
    limit: number,
  ): Promise<DisputeRecord[]>;
  /** Disputes waiting for evidence (none saved) whose due date falls before `until` (the alert's gauge). */
  countUnansweredDueBefore(until: Date): Promise<number>;
}

/** What a processor answers when evidence is submitted: the outcome it announced for later, if any. */
export interface EvidenceReceipt {
  scheduled_outcome: { status: 'won' | 'lost'; after_ms: number } | null;
}

/**
 * The processor's side of a dispute (Stripe's and Paystack's dispute APIs): evidence goes to it, a
 * merchant's acceptance too, and it decides. Both calls must be safe to repeat (a lost race, a retry
 * after a timeout): the processor dedupes them by dispute.
 */
export interface DisputeProcessor {
  submitEvidence(dispute: DisputeRecord): Promise<EvidenceReceipt>;
  /** The merchant concedes: the processor closes the dispute (lost) before we do. */
  accept(dispute: DisputeRecord): Promise<void>;
}

export interface DisputeProcessors {
  forMode(mode: Mode): DisputeProcessor;
}
