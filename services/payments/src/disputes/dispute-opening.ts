import {
  outboxEvent,
  PlatformError,
  subtractMoney,
  SUBJECTS,
  type DisputeReason,
  type Mode,
  type OutboxEntry,
} from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import { capturedAmount, committedAmount } from '../refunds/charge-refunds';
import type { ChargeRepository } from '../ports';
import type { WalletCredits } from '../wallets/wallet-credits';
import { disputeEvent, newDispute, type DisputeRecord, type DisputeSource } from './dispute';
import { fundsWithdrawn, type DisputeFeeTable } from './dispute-funds';
import type { DisputeRepository } from './ports';

export interface OpenDisputeRequest {
  /** The charge's owner and mode: a dispute is opened on the owner's own charge. */
  merchant_id: number;
  mode: Mode;
  charge_id: string;
  reason?: DisputeReason;
  /** Minor units of the charge currency; absent = everything not refunded. */
  amount?: number;
  source: DisputeSource;
  /**
   * A processor's dispute (source `processor`): its id and deadline (absent: our response window).
   * A repeat naming the charge's dispute answers it; see DisputeEventApplier for another id.
   */
  processor?: { reference: string; evidence_due_by: Date | null };
}

export interface DisputeOpeningOptions {
  fees: DisputeFeeTable;
  /** How long the merchant has to answer (evidence_due_by = opened + this). */
  responseWindowMs: number;
  maxRounds?: number;
  /** An `opening` dispute untouched this long (its opener crashed) is finished by the sweep. */
  staleAfterMs?: number;
  onOpened?: (dispute: DisputeRecord) => void;
}

/** How often an insert is tried when the charge's dispute keeps vanishing under it (step 1). */
const INSERT_ROUNDS = 3;

/**
 * Opens disputes. A dispute and its charge are two documents, written in this order (docs/architecture.md,
 * "Disputes"): (1) the dispute is inserted `opening` (unique per charge); (2) its hold is set on the charge,
 * compare-and-set on the refund version, only if refunds have left room for its amount; (3) the dispute
 * becomes `needs_response` with its fee, its funds and its events (dispute.created, dispute.funds_withdrawn)
 * in its outbox, in one write. The ledger debits follow from the event. A crash anywhere leaves an
 * `opening` dispute that a retry, or the sweep, finishes with the same steps; partners never see it.
 */
export class DisputeOpener {
  constructor(
    private readonly deps: {
      charges: ChargeRepository;
      disputes: DisputeRepository;
      credits: Pick<WalletCredits, 'creditsOf'>;
    },
    private readonly options: DisputeOpeningOptions,
    private readonly now: () => Date = () => new Date(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /**
   * Opens a dispute on a succeeded charge. A processor's notification (or a sandbox test card) that
   * repeats answers the charge's dispute; the sandbox API, a caller asking for a new one, gets 409.
   */
  async open(req: OpenDisputeRequest): Promise<DisputeRecord> {
    const charge = await this.charge(req.merchant_id, req.mode, req.charge_id);
    if (charge.status !== 'succeeded') {
      throw new PlatformError('CHARGE_NOT_DISPUTABLE', undefined, {
        param: 'charge_id',
        detail: `the charge is ${charge.status}`,
      });
    }
    if (charge.dispute) return this.existing(charge.dispute.dispute_id, req);
    const room = roomFor(charge);
    const amount = req.amount ?? room.amount;
    if (!Number.isSafeInteger(amount) || amount <= 0 || amount > room.amount) {
      throw exceeds(room.amount, charge);
    }
    const draft = newDispute(
      {
        charge_id: charge.charge_id,
        merchant_id: charge.merchant_id,
        sub_merchant_id: charge.sub_merchant_id,
        mode: charge.mode,
        amount: { amount, currency: room.currency },
        reason: req.reason ?? 'general',
        source: req.source,
        processor: req.processor && {
          reference: req.processor.reference,
          evidence_due_by:
            req.processor.evidence_due_by ?? new Date(this.now().getTime() + this.options.responseWindowMs),
        },
      },
      this.now(),
    );
    const { dispute, created } = await this.insert(draft);
    if (!created) return this.existing(dispute.dispute_id, req);
    return this.finish(dispute);
  }

  /**
   * Step 1. The charge's opening dispute may refuse this one and be discarded (its charge had no room)
   * before it can be read: then the charge has no dispute and the insert is tried again. Still racing
   * after a few tries: 409 CONFLICT, which a retry of the request settles.
   */
  private async insert(draft: DisputeRecord): Promise<{ dispute: DisputeRecord; created: boolean }> {
    for (let round = 0; round < INSERT_ROUNDS; round++) {
      const inserted = await this.deps.disputes.insertOrGetForCharge(draft);
      if (inserted) return inserted;
    }
    throw new PlatformError('CONFLICT', 'This charge is being disputed by concurrent requests; retry', {
      param: 'charge_id',
    });
  }

  /** The sweep: disputes whose opener crashed before they opened. */
  async resumeStale(limit = 50): Promise<number> {
    const staleBefore = new Date(this.now().getTime() - (this.options.staleAfterMs ?? 30_000));
    let opened = 0;
    for (const d of await this.deps.disputes.due('opening', 'updated_at', staleBefore, limit)) {
      const done = await this.finish(d).catch(() => null);
      if (done) opened++;
    }
    return opened;
  }

  private async existing(disputeId: string, req: OpenDisputeRequest): Promise<DisputeRecord> {
    const found = await this.deps.disputes.findById(disputeId);
    const dispute = found?.status === 'opening' ? await this.finish(found) : found;
    if (!dispute || req.source === 'sandbox_api') {
      throw new PlatformError('CHARGE_ALREADY_DISPUTED', undefined, { param: 'charge_id', detail: disputeId });
    }
    return dispute;
  }

  /** Steps 2 and 3 for an `opening` dispute; idempotent, so any number of finishers agree. */
  private async finish(opening: DisputeRecord): Promise<DisputeRecord> {
    let dispute = opening;
    for (let round = 0; round < (this.options.maxRounds ?? 50); round++) {
      const charge = await this.hold(dispute);
      if (!charge) {
        await this.sleep(Math.floor(Math.random() * 10) + round);
        continue;
      }
      const credits = await this.deps.credits.creditsOf(charge, dispute.mode);
      const { funds, fee } = fundsWithdrawn(
        credits,
        {
          merchant_id: charge.merchant_id,
          sub_merchant_id: charge.sub_merchant_id,
          captured: capturedAmount(charge),
          fallback_currency: charge.sub_merchant_id ? charge.amount.currency : charge.total.currency,
        },
        dispute.amount,
        this.options.fees,
      );
      const now = this.now();
      const next: DisputeRecord = {
        ...dispute,
        status: 'needs_response',
        fee,
        funds_withdrawn: funds,
        // The processor's deadline is the one that counts; the sandbox's runs from now.
        evidence_due_by: dispute.processor_reference
          ? dispute.evidence_due_by
          : new Date(now.getTime() + this.options.responseWindowMs),
        updated_at: now,
      };
      const scope = { merchantId: next.merchant_id, mode: next.mode };
      const events: OutboxEntry[] = [outboxEvent(SUBJECTS.disputeCreated, disputeEvent(next), scope)];
      if (funds.length) events.push(outboxEvent(SUBJECTS.disputeFundsWithdrawn, disputeEvent(next), scope));
      const opened = await this.deps.disputes.replace(dispute, next, events);
      if (opened) {
        this.options.onOpened?.(opened);
        return opened;
      }
      const current = await this.deps.disputes.findById(dispute.dispute_id);
      if (!current) {
        await this.releaseHold(charge, dispute.dispute_id);
        throw new PlatformError('CONFLICT', 'The dispute could not be opened; retry', { param: 'charge_id' });
      }
      if (current.status !== 'opening') return current;
      dispute = current;
    }
    throw new PlatformError('CONFLICT', 'This charge is being changed by concurrent requests; retry', {
      param: 'charge_id',
    });
  }

  /**
   * The charge with this dispute's hold: already held, or held now if refunds left room for it; null
   * when a concurrent refund changed the charge first (judge again). No room: the opening dispute is
   * discarded (it was never visible) and the caller hears why.
   */
  private async hold(dispute: DisputeRecord): Promise<ChargeRecord | null> {
    const charge = await this.deps.charges.findForMerchant(dispute.merchant_id, dispute.mode, dispute.charge_id);
    if (!charge) {
      await this.deps.disputes.discardOpening(dispute.dispute_id);
      throw new PlatformError('CHARGE_NOT_FOUND', undefined, { param: 'charge_id' });
    }
    if (charge.dispute?.dispute_id === dispute.dispute_id) return charge;
    const room = roomFor(charge);
    if (charge.dispute || dispute.amount.amount > room.amount) {
      await this.deps.disputes.discardOpening(dispute.dispute_id);
      if (charge.dispute) {
        throw new PlatformError('CHARGE_ALREADY_DISPUTED', undefined, { param: 'charge_id' });
      }
      throw exceeds(room.amount, charge);
    }
    return this.deps.charges.writeDisputeHold(
      charge.charge_id,
      charge.refund_version,
      {
        dispute: { dispute_id: dispute.dispute_id, status: 'open', amount: dispute.amount },
        amount_disputed: dispute.amount,
      },
      this.now(),
    );
  }

  /** A hold whose dispute was discarded meanwhile (a finisher lost a race with a discard) is let go. */
  private async releaseHold(charge: ChargeRecord, disputeId: string): Promise<void> {
    let current: ChargeRecord | null = charge;
    for (let round = 0; current?.dispute?.dispute_id === disputeId && round < 10; round++) {
      const released = await this.deps.charges.writeDisputeHold(
        current.charge_id,
        current.refund_version,
        { dispute: null, amount_disputed: { amount: 0, currency: current.amount_disputed.currency } },
        this.now(),
      );
      if (released) return;
      current = await this.deps.charges.findForMerchant(current.merchant_id, current.mode, current.charge_id);
    }
  }

  private async charge(merchantId: number, mode: Mode, chargeId: string): Promise<ChargeRecord> {
    const charge = await this.deps.charges.findForMerchant(merchantId, mode, chargeId);
    if (!charge) throw new PlatformError('CHARGE_NOT_FOUND', undefined, { param: 'charge_id' });
    return charge;
  }
}

/** What a dispute may take of a charge: captured minus succeeded and pending refunds. */
function roomFor(charge: ChargeRecord) {
  return subtractMoney(capturedAmount(charge), committedAmount(charge));
}

function exceeds(room: number, charge: ChargeRecord): PlatformError {
  return new PlatformError('DISPUTE_AMOUNT_EXCEEDS_CHARGE', undefined, {
    param: 'amount',
    detail: `at most ${Math.max(room, 0)} ${charge.fee_details.total.currency} of this charge can be disputed`,
  });
}
