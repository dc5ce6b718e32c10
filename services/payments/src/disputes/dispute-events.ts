import { outboxEvent, PlatformError, SUBJECTS } from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import type { ChargeRepository } from '../ports';
import type { DisputeEvent, EventApplier, Verdict } from '../processors/processor-event';
import { capturedAmount } from '../refunds/charge-refunds';
import { disputeEvent, isClosed, type DisputeRecord } from './dispute';
import type { DisputeCloser } from './dispute-closing';
import type { DisputeOpener } from './dispute-opening';
import type { DisputeRepository } from './ports';

type Final = Exclude<Verdict, 'later' | 'retry'>;
type Target = DisputeEvent['status'];

/** How far along a dispute is: a state never moves backwards. */
const RANK: Readonly<Record<Target, number>> = { needs_response: 0, under_review: 1, won: 2, lost: 2 };

/** Opening refusals that say the event does not fit our record (kept for an operator, never applied). */
const REFUSALS = new Set(['CHARGE_NOT_DISPUTABLE', 'CHARGE_ALREADY_DISPUTED', 'DISPUTE_AMOUNT_EXCEEDS_CHARGE']);

const mismatch = (note: string): Final => ({ status: 'mismatch', note });

/**
 * A live dispute's events from its processor, applied through the lifecycle the sandbox uses: the
 * first event of a dispute opens it (DisputeOpener: the hold, the withdrawal, dispute.created and
 * dispute.funds_withdrawn), `under_review` marks the evidence submitted, won or lost closes it
 * (DisputeCloser: dispute.closed, and the reinstatement when won). Every event says where the dispute
 * is as a whole, so any of them, in any order, moves it forward to there and never back: a repeat or an
 * earlier state is `duplicate` or `stale`. The charge is found by the processor's payment (the dispute
 * carries none of our metadata), the dispute through the charge's hold; one dispute per charge, named
 * by the processor's dispute id.
 */
export class DisputeEventApplier implements EventApplier<DisputeEvent> {
  constructor(
    private readonly deps: {
      charges: Pick<ChargeRepository, 'findLiveByProcessorReference'>;
      disputes: Pick<DisputeRepository, 'findById' | 'replace'>;
      opener: Pick<DisputeOpener, 'open'>;
      closer: Pick<DisputeCloser, 'processorDecided'>;
    },
    private readonly now: () => Date = () => new Date(),
  ) {}

  async apply(e: DisputeEvent): Promise<Verdict> {
    const charge = await this.deps.charges.findLiveByProcessorReference(e.payment_reference);
    // Not stored yet, or its own success not applied yet (that event may come later): later.
    if (!charge || charge.status === 'initializing' || charge.status === 'pending') return 'later';
    const captured = capturedAmount(charge);
    if (e.amount.currency !== captured.currency || e.amount.amount <= 0 || e.amount.amount > captured.amount) {
      return mismatch(
        `dispute ${e.amount.amount} ${e.amount.currency}, charge ${captured.amount} ${captured.currency}`,
      );
    }
    let changed = false;
    let dispute = charge.dispute ? await this.deps.disputes.findById(charge.dispute.dispute_id) : null;
    if (!dispute || dispute.status === 'opening') {
      const opened = await this.open(charge, e);
      if ('refused' in opened) return opened.refused;
      dispute = opened.dispute;
      changed = true;
    }
    if (dispute.processor_reference !== e.dispute_reference) {
      return mismatch(`the charge's dispute is ${dispute.processor_reference ?? 'not the processor’s'}`);
    }
    if (dispute.amount.amount !== e.amount.amount || dispute.amount.currency !== e.amount.currency) {
      return mismatch(`event ${e.amount.amount} ${e.amount.currency}, dispute ${dispute.amount.amount}`);
    }
    // Funds come back only to a dispute won (Stripe's object may still say under_review then).
    const target: Target = e.change === 'funds_reinstated' ? 'won' : e.status;
    return this.moveTo(dispute, target, e, changed);
  }

  /** Opens the charge's dispute as the processor's; a refusal that says the event does not fit is a mismatch. */
  private async open(charge: ChargeRecord, e: DisputeEvent): Promise<{ dispute: DisputeRecord } | { refused: Final }> {
    try {
      const dispute = await this.deps.opener.open({
        merchant_id: charge.merchant_id,
        mode: charge.mode,
        charge_id: charge.charge_id,
        reason: e.reason,
        amount: e.amount.amount,
        source: 'processor',
        processor: {
          reference: e.dispute_reference,
          evidence_due_by: e.evidence_due_by ? new Date(e.evidence_due_by) : null,
        },
      });
      return { dispute };
    } catch (err) {
      if (err instanceof PlatformError && REFUSALS.has(err.code)) {
        return { refused: mismatch(`${err.code}: ${err.message}`) };
      }
      throw err;
    }
  }

  private async moveTo(start: DisputeRecord, target: Target, e: DisputeEvent, changed: boolean): Promise<Verdict> {
    const done: Final = changed ? { status: 'applied', note: null } : { status: 'duplicate', note: null };
    let d: DisputeRecord | null = start;
    for (let round = 0; d && round < 10; round++) {
      const status = d.status as Target;
      if (status === target && !(target === 'needs_response' && this.dueByMoved(d, e))) return done;
      if (isClosed(d) || RANK[target] < RANK[status]) {
        return { status: 'stale', note: `the dispute is ${d.status}; the event says ${target}` };
      }
      if (target === 'won' || target === 'lost') {
        const decided = await this.deps.closer.processorDecided(d.dispute_id, target);
        if (decided.changed) return { status: 'applied', note: null };
        d = decided.dispute;
        continue;
      }
      const next = this.reviewedOrDue(d, target, e);
      const event = outboxEvent(SUBJECTS.disputeUpdated, disputeEvent(next), {
        merchantId: d.merchant_id,
        mode: d.mode,
      });
      const written = await this.deps.disputes.replace(d, next, [event]);
      if (written) return { status: 'applied', note: null };
      // Someone changed it first (a submit, an accept, another event): judge again on what it is now.
      d = await this.deps.disputes.findById(d.dispute_id);
    }
    return 'retry';
  }

  /** The processor moved the evidence deadline of a dispute still waiting for a response. */
  private dueByMoved(d: DisputeRecord, e: DisputeEvent): boolean {
    return e.evidence_due_by !== null && new Date(e.evidence_due_by).getTime() !== d.evidence_due_by.getTime();
  }

  /**
   * `needs_response` with the processor's new deadline, or `under_review`: evidence was submitted at the
   * processor (by us, or in its dashboard), nothing is sent again; the decision comes by its own event.
   */
  private reviewedOrDue(d: DisputeRecord, target: Target, e: DisputeEvent): DisputeRecord {
    const now = this.now();
    if (target === 'under_review') {
      return { ...d, status: 'under_review', evidence_submitted_at: d.evidence_submitted_at ?? now, updated_at: now };
    }
    return { ...d, evidence_due_by: new Date(e.evidence_due_by!), updated_at: now };
  }
}
