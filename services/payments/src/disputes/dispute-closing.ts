import { outboxEvent, PlatformError, SUBJECTS, type Mode, type OutboxEntry } from '@ppay/kernel';
import type { ChargeDisputeHold } from '../charges/charge';
import type { ChargeRepository } from '../ports';
import { disputeEvent, hasEvidence, isClosed, type DisputeRecord } from './dispute';
import { withEvidenceSubmitted } from './evidence-submission';
import type { DisputeProcessors, DisputeRepository } from './ports';

export type DisputeOutcome = 'won' | 'lost';

/** Why a dispute closed: decided by the processor, conceded by the merchant, or left unanswered past its due date. */
export type ClosedBy = 'processor' | 'accepted' | 'expired';

export interface DisputeClosingOptions {
  maxRounds?: number;
  onClosed?: (dispute: DisputeRecord, by: ClosedBy) => void;
}

/**
 * Closes disputes: `needs_response → lost` (accepted, or past its due date without evidence) and
 * `under_review → won | lost` (the processor's decision). At the due date a saved draft is submitted
 * instead (`→ under_review`), as Stripe does. Each close is one conditional write on the expected status, with
 * dispute.closed (and dispute.funds_reinstated when won) in the dispute's outbox, so concurrent
 * accept / evidence / outcome calls close it once and move its money once. The charge's hold follows
 * (a second document): here at once, and again by the consumer of dispute.closed after a crash.
 */
export class DisputeCloser {
  constructor(
    private readonly deps: { charges: ChargeRepository; disputes: DisputeRepository; processors: DisputeProcessors },
    private readonly options: DisputeClosingOptions = {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The merchant concedes (POST /disputes/{id}/accept): lost, nothing more moves. The processor closes
   * it first (a live dispute at Stripe; nothing in sandbox): if it cannot, nothing changes here.
   */
  async accept(merchantId: number, mode: Mode, disputeId: string): Promise<DisputeRecord> {
    return this.retrying(merchantId, mode, disputeId, async (d) => {
      if (d.status === 'under_review') throw submitted();
      if (isClosed(d)) throw closed(d);
      await this.deps.processors.forMode(d.mode).accept(d);
      return this.close(d, 'lost', 'accepted');
    });
  }

  /** The processor's decision on submitted evidence (sandbox: the won/lost helper and evidence markers). */
  async decide(merchantId: number, mode: Mode, disputeId: string, outcome: DisputeOutcome): Promise<DisputeRecord> {
    return this.retrying(merchantId, mode, disputeId, async (d) => {
      if (isClosed(d)) throw closed(d);
      if (d.status !== 'under_review') {
        throw new PlatformError('DISPUTE_NOT_UNDER_REVIEW', undefined, {
          param: 'dispute_id',
          detail: `the dispute is ${d.status}`,
        });
      }
      return this.close(d, outcome, 'processor');
    });
  }

  /**
   * A processor's own decision of its dispute (a live dispute's closed event): won or lost from
   * `needs_response` as from `under_review` (the processor decides unanswered disputes, and a merchant
   * may answer in the processor's dashboard). A closed dispute is answered as it is, `changed` false:
   * the caller tells a repeat from a contradiction.
   */
  async processorDecided(
    disputeId: string,
    outcome: DisputeOutcome,
  ): Promise<{ dispute: DisputeRecord; changed: boolean }> {
    for (let round = 0; round < (this.options.maxRounds ?? 50); round++) {
      const d = await this.deps.disputes.findById(disputeId);
      if (!d || d.status === 'opening')
        throw new PlatformError('DISPUTE_NOT_FOUND', undefined, { param: 'dispute_id' });
      if (isClosed(d)) return { dispute: d, changed: false };
      const closed = await this.close(d, outcome, 'processor');
      if (closed) return { dispute: closed, changed: true };
    }
    throw new PlatformError('CONFLICT', 'This dispute is being changed by concurrent requests; retry', {
      param: 'dispute_id',
    });
  }

  /** Sandbox: the due date is now, so its draft is submitted, or without one the dispute is lost, at once. */
  async expireNow(merchantId: number, mode: Mode, disputeId: string): Promise<DisputeRecord> {
    return this.retrying(merchantId, mode, disputeId, async (d) => {
      if (d.status === 'under_review') throw submitted();
      if (isClosed(d)) throw closed(d);
      return this.atDueDate({ ...d, evidence_due_by: this.now() });
    });
  }

  /**
   * The sweep: disputes past their due date still waiting for a response. One that fails (its processor
   * did not answer: an unknown outcome) is tried again by the next sweep; the others go on.
   */
  async expireDue(limit = 100): Promise<number> {
    let n = 0;
    let failure: unknown = null;
    for (const d of await this.deps.disputes.due('needs_response', 'evidence_due_by', this.now(), limit)) {
      try {
        if (await this.atDueDate(d)) n++;
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure) throw failure;
    return n;
  }

  /** The sweep: outcomes the processor announced for later (sandbox evidence markers) whose time has come. */
  async decideDue(limit = 100): Promise<number> {
    let n = 0;
    for (const d of await this.deps.disputes.due('under_review', 'scheduled_outcome_at', this.now(), limit)) {
      if (d.scheduled_outcome && (await this.close(d, d.scheduled_outcome.status, 'processor'))) n++;
    }
    return n;
  }

  /**
   * Brings the charge's hold in line with its dispute: `open` while it is, `lost` for good (its amount is
   * never refundable), `won` with nothing held. Idempotent; the consumer of dispute.closed calls it.
   */
  async syncCharge(d: Pick<DisputeRecord, 'dispute_id' | 'charge_id' | 'merchant_id' | 'mode' | 'status'>) {
    const status: ChargeDisputeHold['status'] = d.status === 'won' || d.status === 'lost' ? d.status : 'open';
    for (let round = 0; round < (this.options.maxRounds ?? 50); round++) {
      const charge = await this.deps.charges.findForMerchant(d.merchant_id, d.mode, d.charge_id);
      const hold = charge?.dispute;
      if (!charge || !hold || hold.dispute_id !== d.dispute_id || hold.status === status) return;
      const written = await this.deps.charges.writeDisputeHold(
        charge.charge_id,
        charge.refund_version,
        {
          dispute: { ...hold, status },
          amount_disputed: { ...hold.amount, amount: status === 'won' ? 0 : hold.amount.amount },
        },
        this.now(),
      );
      if (written) return;
    }
    throw new PlatformError('CONFLICT', 'The charge is being changed by concurrent requests; retry');
  }

  /**
   * The due date of a dispute waiting for a response: its saved draft is submitted (the merchant's answer
   * is not thrown away); with nothing saved it is lost. Null when the dispute changed meanwhile.
   */
  private async atDueDate(d: DisputeRecord): Promise<DisputeRecord | null> {
    if (!hasEvidence(d.evidence)) return this.close(d, 'lost', 'expired');
    const next = await withEvidenceSubmitted(d, this.deps.processors, this.now());
    const event = outboxEvent(SUBJECTS.disputeUpdated, disputeEvent(next), {
      merchantId: d.merchant_id,
      mode: d.mode,
    });
    return this.deps.disputes.replace(d, next, [event]);
  }

  /** from → won | lost in one conditional write; null when the dispute was no longer `from`. */
  private async close(d: DisputeRecord, outcome: DisputeOutcome, by: ClosedBy): Promise<DisputeRecord | null> {
    const now = this.now();
    const next: DisputeRecord = {
      ...d,
      status: outcome,
      scheduled_outcome: null,
      funds_reinstated: outcome === 'won' ? d.funds_withdrawn : [],
      closed_at: now,
      updated_at: now,
    };
    const scope = { merchantId: d.merchant_id, mode: d.mode };
    const events: OutboxEntry[] = [outboxEvent(SUBJECTS.disputeClosed, disputeEvent(next), scope)];
    if (next.funds_reinstated.length) {
      events.push(outboxEvent(SUBJECTS.disputeFundsReinstated, disputeEvent(next), scope));
    }
    const written = await this.deps.disputes.replace(d, next, events);
    if (!written) return null;
    this.options.onClosed?.(written, by);
    await this.syncCharge(written);
    return written;
  }

  /** Runs `step` on the merchant's dispute; a lost race re-reads it and judges again. */
  private async retrying(
    merchantId: number,
    mode: Mode,
    disputeId: string,
    step: (d: DisputeRecord) => Promise<DisputeRecord | null>,
  ): Promise<DisputeRecord> {
    for (let round = 0; round < (this.options.maxRounds ?? 50); round++) {
      const d = await this.deps.disputes.findForMerchant(merchantId, mode, disputeId);
      if (!d) throw new PlatformError('DISPUTE_NOT_FOUND', undefined, { param: 'dispute_id' });
      const done = await step(d);
      if (done) return done;
    }
    throw new PlatformError('CONFLICT', 'This dispute is being changed by concurrent requests; retry', {
      param: 'dispute_id',
    });
  }
}

function submitted(): PlatformError {
  return new PlatformError('DISPUTE_EVIDENCE_SUBMITTED', undefined, { param: 'dispute_id' });
}

function closed(d: Pick<DisputeRecord, 'status'>): PlatformError {
  return new PlatformError('DISPUTE_CLOSED', undefined, { param: 'dispute_id', detail: `the dispute was ${d.status}` });
}
