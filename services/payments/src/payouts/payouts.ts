import { PlatformError, requireMerchant, requireMode, type CallerInfo, type Mode } from '@ppay/kernel';
import {
  newPayout,
  payoutDebit,
  payoutReturn,
  reservationKeyOf,
  settlementEvent,
  type PayoutRecord,
  type PayoutRequestInput,
  type ReservationState,
} from './payout';
import { walletIdOf } from '../wallets/wallet';
import type { LedgerRepository, WalletStore } from '../ports';
import type { CurrentDestination, PayoutDestinations, PayoutRepository } from './ports';
import type { PayoutTransferProcessor } from './payout-transfer';
import { paidByTransfer, PayoutTransfers, type TransferOutcome } from './payout-transfers';

/**
 * Staged payouts (spec 2.10, 3.4, 4.10) over two documents, the payout request and the wallet, with
 * no transaction. The payout records which wallet step it has begun (`reservation`); each step is
 * idempotent on the wallet (a reservation is a keyed field set once and removed once; the final debit
 * is a ledger entry with a unique key), and a step begun but not confirmed is finished by a repeat of
 * the request or by the sweep (`finishUnfinished`). See docs/architecture.md, "Wallets and payouts".
 */
export class PayoutService {
  /** Live connected-account payouts' transfers (payout-transfers.ts), for settlement and their events. */
  readonly transfers: PayoutTransfers;

  constructor(
    private readonly deps: {
      payouts: PayoutRepository;
      wallets: WalletStore;
      ledger: LedgerRepository;
      destinations: PayoutDestinations;
      /** The card gateway's transfers; null when it is not configured (such payouts cannot be paid). */
      transfers?: PayoutTransferProcessor | null;
    },
    private readonly now: () => Date = () => new Date(),
    options: { transferStaleAfterMs?: number; onTransfer?: (outcome: TransferOutcome) => void } = {},
  ) {
    this.transfers = new PayoutTransfers(
      { payouts: deps.payouts, processor: deps.transfers ?? null },
      (p) => this.finish(p),
      { now, staleAfterMs: options.transferStaleAfterMs ?? 30_000, onOutcome: options.onTransfer },
    );
  }

  /** Sub-merchant: reserve the amount and stage the request. Repeating a reference answers the same request. */
  async initiate(merchantId: number, mode: Mode, input: PayoutRequestInput): Promise<PayoutRecord> {
    let payout = await this.deps.payouts.get(merchantId, mode, input.reference);
    if (!payout) {
      const fresh = newPayout(await this.deps.payouts.nextId(), merchantId, mode, input, this.now());
      payout = (await this.deps.payouts.insert(fresh))
        ? fresh
        : await this.deps.payouts.get(merchantId, mode, input.reference);
      if (!payout) throw new PlatformError('CONFLICT');
    }
    if (
      payout.amount.amount !== input.amount.amount ||
      payout.amount.currency !== input.amount.currency ||
      payout.payout_method !== input.payout_method
    ) {
      throw new PlatformError('PAYOUT_REFERENCE_REUSED', undefined, { param: 'reference' });
    }
    if (payout.reservation === 'pending') return this.reserve(payout);
    return payout;
  }

  /** Spec 4.10 approve: pending (and reserved) → approved, withdrawal payout_pending; no processor call. */
  async approve(merchantId: number, mode: Mode, reference: string, operatorId: number): Promise<PayoutRecord> {
    const payout = await this.visible(merchantId, mode, reference, operatorId);
    await this.assertNotInDebt(payout);
    await this.assertDestinationHolds(payout);
    const now = this.now();
    const next: Partial<PayoutRecord> = {
      request_status: 'approved',
      withdrawal_id: payout.payout_request_id,
      withdrawal_status: 'payout_pending',
      approved_at: now,
      updated_at: now,
    };
    const approved = await this.deps.payouts.transition(
      payout.payout_key,
      { request_status: 'pending', reservation: 'held' },
      next,
      [settlementEvent('approved', { ...payout, ...next })],
    );
    if (!approved) throw new PlatformError('PAYOUT_ALREADY_CLAIMED');
    return approved;
  }

  /**
   * A dispute (or a refund) may take a wallet below zero after its payouts were reserved: the balance
   * then no longer covers them, and none is approved until later credits pay the debt.
   */
  private async assertNotInDebt(payout: PayoutRecord): Promise<void> {
    const wallet = await this.deps.wallets.get(walletIdOf(payout.merchant_id, payout.mode, payout.amount.currency));
    if (wallet && wallet.available.amount < 0) {
      throw new PlatformError('WALLET_IN_DEBT', undefined, {
        param: 'reference',
        detail: `available ${wallet.available.amount} ${wallet.currency}: later credits pay the debt first`,
      });
    }
  }

  /**
   * The payout goes where KYC said when it was requested, or not at all: KYC is still approved in the
   * payout's mode and the payout account still has the fingerprint the request recorded (Hardening 2
   * item 5). A request made before destinations were recorded has none to compare: it is refused too
   * (reject it; the sub-merchant asks again).
   */
  private async assertDestinationHolds(payout: PayoutRecord): Promise<CurrentDestination> {
    const current = await this.deps.destinations.current(payout.merchant_id, payout.mode);
    if (current.found && current.kyc_status !== 'approved') {
      throw new PlatformError('PAYOUT_KYC_NOT_APPROVED', undefined, {
        param: 'reference',
        detail: `The sub-merchant's KYC is ${current.kyc_status}`,
      });
    }
    if (!current.found && current.why === 'KYC_NOT_SUBMITTED') {
      throw new PlatformError('PAYOUT_KYC_NOT_APPROVED', undefined, { param: 'reference', detail: 'No KYC case' });
    }
    const now = current.found ? current.fingerprint : null;
    if (!current.found || !payout.destination || now !== payout.destination.fingerprint) {
      throw new PlatformError('PAYOUT_DESTINATION_CHANGED', undefined, {
        param: 'reference',
        detail: !payout.destination
          ? 'This request was made before payout destinations were recorded: reject it and request the payout again'
          : current.found
            ? 'The payout account was changed after this request: reject it and request the payout again'
            : 'The sub-merchant has no payout account any more',
      });
    }
    return current;
  }

  /** Spec 4.10 reject: pending → rejected, the reservation released (the merchant may ask again). */
  async reject(
    merchantId: number,
    mode: Mode,
    reference: string,
    operatorId: number,
    reason: string,
  ): Promise<PayoutRecord> {
    const payout = await this.visible(merchantId, mode, reference, operatorId);
    const now = this.now();
    const next: Partial<PayoutRecord> = {
      request_status: 'rejected',
      rejection_reason: reason,
      rejected_at: now,
      reservation: 'releasing',
      updated_at: now,
    };
    const rejected = await this.deps.payouts.transition(
      payout.payout_key,
      { request_status: 'pending', reservation: 'held' },
      next,
      [settlementEvent('rejected', { ...payout, ...next })],
    );
    if (!rejected) throw new PlatformError('PAYOUT_ALREADY_CLAIMED');
    return this.finish(rejected);
  }

  /**
   * Settlement (platform admin, or the sandbox helper): payout_pending → paid (the final wallet
   * debit) or failed (the reservation released).
   */
  async settle(
    merchantId: number,
    mode: Mode,
    reference: string,
    outcome: 'paid' | 'failed',
    failureReason: string | null = null,
  ): Promise<PayoutRecord> {
    const payout = await this.deps.payouts.get(merchantId, mode, reference);
    if (!payout || payout.reservation === 'pending') throw new PlatformError('PAYOUT_REQUEST_NOT_FOUND');
    // Paying out needs the destination to hold still; a failure is always recorded (nothing was paid).
    if (outcome === 'paid' && payout.withdrawal_status === 'payout_pending') {
      const current = await this.assertDestinationHolds(payout);
      // A live connected account is paid by the gateway's transfer, whose answer settles it (C23).
      if (paidByTransfer(payout))
        return this.transfers.pay(payout, current.found ? (current.gateway_region ?? null) : null);
    }
    // Once a transfer began only its outcome settles the payout: it may have been made (C25).
    if (payout.transfer_state === 'begun') throw new PlatformError('PAYOUT_NOT_SETTLEABLE');
    const now = this.now();
    const next: Partial<PayoutRecord> =
      outcome === 'paid'
        ? { withdrawal_status: 'paid', paid_at: now, reservation: 'settling', updated_at: now }
        : {
            withdrawal_status: 'failed',
            failed_at: now,
            failure_reason: failureReason ?? 'failed',
            reservation: 'releasing',
            updated_at: now,
          };
    const moved = await this.deps.payouts.transition(payout.payout_key, { withdrawal_status: 'payout_pending' }, next, [
      settlementEvent(outcome, { ...payout, ...next }),
    ]);
    if (!moved) throw new PlatformError('PAYOUT_NOT_SETTLEABLE');
    return this.finish(moved);
  }

  /**
   * Settlement as its caller may ask for it: the platform admin (or a platform-internal caller) settles
   * the live withdrawals of the merchant it names (the processor's answer); a merchant's own key settles
   * its sandbox withdrawals (the sandbox helper), and nothing live.
   */
  async settleFor(
    caller: CallerInfo,
    namedMerchantId: number,
    reference: string,
    outcome: string,
    failureReason: string | null,
  ): Promise<PayoutRecord> {
    if (outcome !== 'paid' && outcome !== 'failed') {
      throw new PlatformError('VALIDATION_FAILED', 'outcome must be paid or failed', { param: 'outcome' });
    }
    if (caller.auth === 'admin' || caller.auth === 'internal') {
      return this.settle(namedMerchantId, 'live', reference, outcome, failureReason);
    }
    const merchantId = requireMerchant(caller).merchantId;
    const mode = requireMode(caller);
    if (mode !== 'sandbox') {
      throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
    }
    return this.settle(merchantId, mode, reference, outcome, failureReason);
  }

  /** The sweep: finishes wallet steps and transfers a crash (or a lost answer) left begun. */
  async finishUnfinished(limit = 100): Promise<number> {
    let finished = await this.transfers.resumeBegun(limit);
    for (const payout of await this.deps.payouts.unfinished(limit)) {
      await this.finish(payout).catch((err: unknown) => {
        if (!(err instanceof PlatformError && err.code === 'INSUFFICIENT_BALANCE')) throw err;
      });
      finished++;
    }
    return finished;
  }

  /** The request as the operator may act on it: 404 when it is not (yet) there, 403 for another marketplace. */
  private async visible(merchantId: number, mode: Mode, reference: string, operatorId: number) {
    const payout = await this.deps.payouts.get(merchantId, mode, reference);
    // A request still reserving is not staged yet: nothing an operator could approve.
    if (!payout || payout.reservation === 'pending') throw new PlatformError('PAYOUT_REQUEST_NOT_FOUND');
    if (payout.marketplace_id !== operatorId) throw new PlatformError('PERMISSION_DENIED');
    return payout;
  }

  private async finish(payout: PayoutRecord): Promise<PayoutRecord> {
    switch (payout.reservation) {
      case 'pending':
        return this.reserve(payout);
      case 'releasing': {
        await this.deps.wallets.release(
          this.walletOf(payout),
          reservationKeyOf(payout),
          payout.amount.amount,
          this.now(),
        );
        return this.confirm(payout, 'releasing', 'released');
      }
      case 'settling': {
        await this.deps.ledger.append([payoutDebit(payout, this.now())]);
        return this.confirm(payout, 'settling', 'settled');
      }
      case 'returning': {
        await this.deps.ledger.append([payoutReturn(payout, this.now())]);
        return this.confirm(payout, 'returning', 'returned');
      }
      default:
        return payout;
    }
  }

  /** The reservation (conditional on available); without the money the staged request is discarded. */
  private async reserve(payout: PayoutRecord): Promise<PayoutRecord> {
    const result = await this.deps.wallets.reserve(
      this.walletOf(payout),
      reservationKeyOf(payout),
      payout.amount.amount,
      this.now(),
    );
    if (result.outcome === 'insufficient') {
      if (await this.deps.payouts.discardUnreserved(payout.payout_key)) {
        throw new PlatformError('INSUFFICIENT_BALANCE', undefined, { param: 'amount' });
      }
      // Someone else confirmed it meanwhile (a concurrent repeat that did reserve): answer theirs.
      const current = await this.deps.payouts.get(payout.merchant_id, payout.mode, payout.reference);
      if (!current) throw new PlatformError('INSUFFICIENT_BALANCE', undefined, { param: 'amount' });
      return current;
    }
    const held = await this.deps.payouts.transition(
      payout.payout_key,
      { reservation: 'pending' },
      { reservation: 'held', updated_at: this.now() },
      [settlementEvent('requested', { ...payout, reservation: 'held' })],
    );
    if (held) return held;
    const current = await this.deps.payouts.get(payout.merchant_id, payout.mode, payout.reference);
    if (current) return current;
    // The request was discarded between our reservation and its confirmation: give the money back.
    await this.deps.wallets.release(this.walletOf(payout), reservationKeyOf(payout), payout.amount.amount, this.now());
    throw new PlatformError('INSUFFICIENT_BALANCE', undefined, { param: 'amount' });
  }

  private async confirm(payout: PayoutRecord, from: ReservationState, to: ReservationState): Promise<PayoutRecord> {
    const done = await this.deps.payouts.transition(
      payout.payout_key,
      { reservation: from },
      { reservation: to, updated_at: this.now() },
      [],
    );
    return done ?? (await this.deps.payouts.get(payout.merchant_id, payout.mode, payout.reference)) ?? payout;
  }

  private walletOf(payout: PayoutRecord): string {
    return walletIdOf(payout.merchant_id, payout.mode, payout.amount.currency);
  }
}
