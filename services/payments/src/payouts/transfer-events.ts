import type { EventApplier, PayoutTransferEvent, Verdict } from '../processors/processor-event';
import type { PayoutRecord } from './payout';
import type { PayoutTransfers } from './payout-transfers';
import type { PayoutRepository } from './ports';

/**
 * A payout's transfer event (docs/decisions.md C26), applied through the transfer use case's own
 * conditional writes, so it and the call's answer settle the payout once whichever comes first.
 * `created` pays a payout whose transfer is begun (the answer was lost); `reversed` in full takes a paid
 * payout back (C27). Anything that does not match the payout (another transfer, amount, account) is a
 * mismatch, kept for an operator and never applied.
 */
export class PayoutTransferEventApplier implements EventApplier<PayoutTransferEvent> {
  constructor(
    private readonly deps: {
      payouts: Pick<PayoutRepository, 'get'>;
      transfers: Pick<PayoutTransfers, 'created' | 'reversed'>;
    },
  ) {}

  async apply(e: PayoutTransferEvent): Promise<Verdict> {
    const payout = await this.deps.payouts.get(e.merchant_id, e.mode, e.payout_reference);
    // The transfer is begun on the payout before it is asked for: a race at most.
    if (!payout) return 'later';
    const wrong = this.mismatch(payout, e);
    if (wrong) return { status: 'mismatch', note: wrong };
    return e.change === 'created' ? this.created(payout, e) : this.reversed(payout, e);
  }

  private mismatch(p: PayoutRecord, e: PayoutTransferEvent): string | null {
    if (p.payout_request_id !== e.payout_request_id) return `payout ${e.payout_request_id} is not this reference's`;
    if (!p.transfer || !p.transfer_state) return 'the payout never began a transfer';
    if (p.transfer.account !== e.account_reference) return `account ${e.account_reference} is not the payout's`;
    if (p.transfer.transfer_reference !== null && p.transfer.transfer_reference !== e.transfer_reference) {
      return `transfer ${e.transfer_reference} is not the payout's ${p.transfer.transfer_reference}`;
    }
    if (p.amount.amount !== e.amount.amount || p.amount.currency !== e.amount.currency) {
      return `event ${e.amount.amount} ${e.amount.currency}, payout ${p.amount.amount} ${p.amount.currency}`;
    }
    return null;
  }

  private async created(p: PayoutRecord, e: PayoutTransferEvent): Promise<Verdict> {
    if (p.transfer_state === 'refused') {
      return { status: 'mismatch', note: `transfer ${e.transfer_reference} made for a payout failed as refused` };
    }
    if (p.transfer_state !== 'begun') return { status: 'duplicate', note: `payout is ${p.withdrawal_status}` };
    const { applied, payout } = await this.deps.transfers.created(p, e.transfer_reference);
    return { status: applied ? 'applied' : 'duplicate', note: `payout is ${payout.withdrawal_status}` };
  }

  private async reversed(p: PayoutRecord, e: PayoutTransferEvent): Promise<Verdict> {
    if (p.transfer_state === 'reversed') return { status: 'duplicate', note: 'payout already reversed' };
    // Made, but the payout has not recorded it yet (its created answer or event comes first).
    if (p.transfer_state === 'begun') return 'later';
    if (p.transfer_state !== 'created') return { status: 'mismatch', note: `a ${p.transfer_state} transfer reversed` };
    // The platform only ever reverses a payout whole (C27); a part is for an operator to settle.
    if (!e.fully_reversed || e.amount_reversed !== p.amount.amount) {
      return { status: 'mismatch', note: `partial reversal ${e.amount_reversed} of ${p.amount.amount}: not applied` };
    }
    // The paid debit is still being appended: the sweep finishes it, then the reversal applies.
    if (p.reservation !== 'settled') return 'later';
    const { applied, payout } = await this.deps.transfers.reversed(p);
    return { status: applied ? 'applied' : 'duplicate', note: `payout is ${payout.withdrawal_status}` };
  }
}
