import { PlatformError } from '@ppay/kernel';
import { settlementEvent, type PayoutRecord } from './payout';
import {
  refusedReason,
  REVERSED_REASON,
  transferKeyOf,
  type GatewayRegion,
  type PayoutTransfer,
  type PayoutTransferProcessor,
  type TransferAnswer,
  type TransferRequest,
} from './payout-transfer';
import type { PayoutRepository } from './ports';

/** What one attempt asks the processor for: the payout and the transfer as it began. */
export const transferRequestOf = (
  p: PayoutRecord,
  transfer: PayoutTransfer,
  askedBefore: boolean,
): TransferRequest => ({
  payout_request_id: p.payout_request_id,
  merchant_id: p.merchant_id,
  reference: p.reference,
  amount: p.amount,
  account: transfer.account,
  region: transfer.region,
  idempotency_key: transfer.idempotency_key,
  asked_before: askedBefore,
});

/** Whether a payout is paid by a transfer of its processor rather than settled by the admin's word alone. */
export const paidByTransfer = (p: PayoutRecord) => p.mode === 'live' && p.destination?.kind === 'connected_account';

export type TransferOutcome = 'created' | 'refused' | 'unknown' | 'reversed';

/**
 * A live connected-account payout is paid by a transfer of the card gateway to the connected account
 * (docs/decisions.md C23–C30). The payout records that its transfer began (one conditional write)
 * before the first call, so a crash or a timeout leaves a step the sweep can finish: every attempt
 * sends the same idempotency key to the same platform account, and one that may have been made before
 * is looked up first. Its answer (or its event) moves the payout on the existing paid or failed path.
 */
export class PayoutTransfers {
  constructor(
    private readonly deps: { payouts: PayoutRepository; processor: PayoutTransferProcessor | null },
    /** PayoutService's wallet step (the final debit, the release, the credit back). */
    private readonly finish: (p: PayoutRecord) => Promise<PayoutRecord>,
    private readonly options: {
      now: () => Date;
      /** A begun transfer is asked again by the sweep only once this old (not while its first call runs). */
      staleAfterMs: number;
      onOutcome?: (outcome: TransferOutcome) => void;
    },
  ) {}

  /** The platform admin settles the payout as paid: the transfer begins, or is asked for again. */
  async pay(payout: PayoutRecord, region: GatewayRegion | null): Promise<PayoutRecord> {
    if (!this.deps.processor) {
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', 'Live connected-account payouts need the card gateway', {
        detail: 'STRIPE_SECRET_KEY is not set: nothing was paid',
      });
    }
    if (payout.transfer_state === 'begun') return this.ask(payout, true);
    if (payout.transfer_state) throw new PlatformError('PAYOUT_NOT_SETTLEABLE');
    const account = payout.destination?.gateway_account_id;
    if (!account) {
      throw new PlatformError('PAYOUT_DESTINATION_CHANGED', undefined, {
        param: 'reference',
        detail: 'The payout names no connected account: reject it and request the payout again',
      });
    }
    // Never guessed: a transfer from the wrong platform account pays from the wrong balance, and a
    // retry under the other account's key could make a second transfer.
    if (!region) {
      throw new PlatformError('SERVICE_UNAVAILABLE', undefined, {
        detail: "kyc did not say the connected account's region; nothing was paid, retry the request",
      });
    }
    const now = this.options.now();
    const transfer: PayoutTransfer = {
      account,
      region,
      idempotency_key: transferKeyOf(payout),
      transfer_reference: null,
      begun_at: now,
      outcome_note: null,
    };
    const begun = await this.deps.payouts.transition(
      payout.payout_key,
      { withdrawal_status: 'payout_pending', transfer_state: null },
      { transfer_state: 'begun', transfer, updated_at: now },
      [],
    );
    if (begun) return this.ask(begun, false);
    // Someone else began it first (a concurrent settle): ask with theirs, which is the same key.
    const current = await this.deps.payouts.get(payout.merchant_id, payout.mode, payout.reference);
    if (current?.transfer_state !== 'begun') throw new PlatformError('PAYOUT_NOT_SETTLEABLE');
    return this.ask(current, true);
  }

  /** The sweep: begun transfers whose answer was lost (a timeout, a crash) are asked for again. */
  async resumeBegun(limit = 100): Promise<number> {
    const before = this.options.now().getTime() - this.options.staleAfterMs;
    let resumed = 0;
    for (const payout of await this.deps.payouts.transfersBegun(limit)) {
      if (payout.updated_at.getTime() > before) continue;
      await this.ask(payout, true).catch((err: unknown) => {
        // Still unknown (the processor unreachable): it stays begun for the next pass.
        if (!(err instanceof PlatformError)) throw err;
      });
      resumed++;
    }
    return resumed;
  }

  /**
   * The transfer was made (its answer or its `created` event): the payout is paid. `applied` false when
   * the payout had already moved (the other of the answer and the event was first).
   */
  async created(payout: PayoutRecord, transferReference: string): Promise<{ applied: boolean; payout: PayoutRecord }> {
    const now = this.options.now();
    const next: Partial<PayoutRecord> = {
      withdrawal_status: 'paid',
      paid_at: now,
      reservation: 'settling',
      transfer_state: 'created',
      transfer: { ...payout.transfer!, transfer_reference: transferReference },
      updated_at: now,
    };
    const moved = await this.deps.payouts.transition(
      payout.payout_key,
      { withdrawal_status: 'payout_pending', reservation: 'held', transfer_state: 'begun' },
      next,
      [settlementEvent('paid', { ...payout, ...next })],
    );
    if (!moved) return { applied: false, payout: await this.current(payout) };
    this.options.onOutcome?.('created');
    return { applied: true, payout: await this.finish(moved) };
  }

  /**
   * The platform took the transfer back whole after the payout was paid (C27): the withdrawal failed
   * after all, `settlement.failed` says so, and the paid debit is credited back to the wallet.
   */
  async reversed(payout: PayoutRecord): Promise<{ applied: boolean; payout: PayoutRecord }> {
    const now = this.options.now();
    const next: Partial<PayoutRecord> = {
      withdrawal_status: 'failed',
      failed_at: now,
      failure_reason: REVERSED_REASON,
      reservation: 'returning',
      transfer_state: 'reversed',
      transfer: { ...payout.transfer!, outcome_note: 'reversed' },
      updated_at: now,
    };
    const moved = await this.deps.payouts.transition(
      payout.payout_key,
      { withdrawal_status: 'paid', reservation: 'settled', transfer_state: 'created' },
      next,
      [settlementEvent('failed', { ...payout, ...next })],
    );
    if (!moved) return { applied: false, payout: await this.current(payout) };
    this.options.onOutcome?.('reversed');
    return { applied: true, payout: await this.finish(moved) };
  }

  private async ask(payout: PayoutRecord, askedBefore: boolean): Promise<PayoutRecord> {
    let answer: TransferAnswer;
    try {
      answer = await this.deps.processor!.create(transferRequestOf(payout, payout.transfer!, askedBefore));
    } catch (err) {
      // Timeout or unavailable: the transfer may exist. The payout stays begun; the sweep asks again.
      this.options.onOutcome?.('unknown');
      throw err;
    }
    if (answer.outcome === 'created') return (await this.created(payout, answer.transfer_reference)).payout;
    return this.refused(payout, answer.reason);
  }

  /** The processor refused the transfer: nothing moved, the payout failed and its reservation is released. */
  private async refused(payout: PayoutRecord, reason: string): Promise<PayoutRecord> {
    const now = this.options.now();
    const next: Partial<PayoutRecord> = {
      withdrawal_status: 'failed',
      failed_at: now,
      failure_reason: refusedReason(reason),
      reservation: 'releasing',
      transfer_state: 'refused',
      transfer: { ...payout.transfer!, outcome_note: reason.slice(0, 200) },
      updated_at: now,
    };
    const moved = await this.deps.payouts.transition(
      payout.payout_key,
      { withdrawal_status: 'payout_pending', reservation: 'held', transfer_state: 'begun' },
      next,
      [settlementEvent('failed', { ...payout, ...next })],
    );
    if (!moved) return this.current(payout);
    this.options.onOutcome?.('refused');
    return this.finish(moved);
  }

  private async current(payout: PayoutRecord): Promise<PayoutRecord> {
    return (await this.deps.payouts.get(payout.merchant_id, payout.mode, payout.reference)) ?? payout;
  }
}
