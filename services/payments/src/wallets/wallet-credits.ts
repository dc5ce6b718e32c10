import { PlatformError, subtractMoney, type Mode, type Money, type PaymentOutcome } from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import { subMerchantShare } from '../charges/marketplace-share';
import { paymentOutcome } from '../charges/payment-outcome';
import { isPaymentCredit, newLedgerEntry, type LedgerEntry, type SplitRecord } from './ledger-entry';
import type { LedgerRepository, SplitResolver, SplitTerms } from '../ports';

/**
 * Wallet credits for a successful payment.
 * - Plain charge: the merchant is credited merchant_net in its pricing currency (total_currency).
 * - Marketplace charge (spec 4.1 steps 1–4): the operator is credited what the customer paid minus
 *   the platform fee, in the charge currency; an active sub-merchant is additionally credited
 *   total_amount minus commission in total_currency (no further platform fee); an inactive one is
 *   skipped and the operator is still credited.
 */
export function creditsFor(
  outcome: PaymentOutcome,
  mode: Mode,
  split: SplitTerms | null,
  eventId: string,
  now: Date,
): LedgerEntry[] {
  const entry = (
    merchantId: number,
    reason: LedgerEntry['reason'],
    amount: Money,
    details: SplitRecord | null = null,
  ): LedgerEntry =>
    newLedgerEntry(
      {
        idempotency_key: `${outcome.charge_id}:${merchantId}:${reason}`,
        merchant_id: merchantId,
        mode,
        kind: 'credit',
        reason,
        amount,
        charge_id: outcome.charge_id,
        event_id: eventId,
        conversion_details: details,
      },
      now,
    );
  if (!outcome.sub_merchant_id) {
    return positive([entry(outcome.merchant_id, 'payment', outcome.breakdown.merchant_net)]);
  }
  const operatorCredit = subtractMoney(outcome.amount, outcome.transaction_fee);
  const entries: LedgerEntry[] = [];
  // The sub-merchant's credit is written first: an operator credit without one means it was skipped
  // (WalletCredits.decidedSplit), even after a crash between the two writes.
  if (split?.active) {
    const { commission, net } = subMerchantShare(outcome.total, split.commission_rate);
    entries.push(
      entry(outcome.sub_merchant_id, 'marketplace_split', net, {
        source: 'marketplace_split',
        marketplace_id: outcome.merchant_id,
        charge_currency: outcome.amount.currency,
        gross_product_amount: outcome.total.amount,
        commission_rate: split.commission_rate,
        commission_amount: commission.amount,
        net_credited: net.amount,
        cart_identifier: outcome.reference ?? outcome.charge_id,
      }),
    );
  }
  entries.push(entry(outcome.merchant_id, 'marketplace_operator', operatorCredit));
  return positive(entries);
}

/** A credit is never negative or zero (a fee at least the payment credits nothing, it owes nothing). */
function positive(entries: LedgerEntry[]): LedgerEntry[] {
  return entries.filter((e) => e.amount.amount > 0);
}

/** A sub-merchant that gets nothing of the payment (not active, or no longer the operator's). */
const SKIPPED: SplitTerms = { active: false, commission_rate: '0', commission_source: 'none' };

/**
 * Records the wallet credits of a successful payment: the consumer of payment.succeeded and the
 * reconciler that repairs a payment the ledger never saw both come here, and the idempotency keys of
 * the entries make any number of repeats harmless.
 */
export class WalletCredits {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly splits: SplitResolver,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(
    outcome: PaymentOutcome,
    mode: Mode,
    eventId: string,
  ): Promise<{ inserted: LedgerEntry[]; duplicates: number }> {
    let split: SplitTerms | null = null;
    if (outcome.sub_merchant_id) {
      const subMerchantId = outcome.sub_merchant_id;
      // Activeness is judged when the payment succeeds (spec 4.1 step 4), not when it was created.
      split =
        (await this.decidedSplit(outcome.charge_id)) ??
        (await this.splits.resolve(outcome.merchant_id, subMerchantId, mode).catch((err: unknown) => {
          // Only a definite "no such relationship" skips the sub-merchant; anything else retries later.
          if (err instanceof PlatformError && err.code === 'RELATIONSHIP_NOT_FOUND') return SKIPPED;
          throw err;
        }));
    }
    return this.ledger.append(creditsFor(outcome, mode, split, eventId, this.now()));
  }

  /**
   * A marketplace payment's split is judged once: whoever writes its credits first (the ledger's consumer,
   * the order of a physical sale, the reconciler) decides, and any later delivery repeats that decision
   * (finishing its writes) instead of judging a sub-merchant suspended or reactivated since. null: not
   * judged yet.
   */
  private async decidedSplit(chargeId: string): Promise<SplitTerms | null> {
    const credits = (await this.ledger.entriesForCharge(chargeId)).filter(isPaymentCredit);
    for (const e of credits) {
      if (e.reason === 'marketplace_split' && e.conversion_details?.source === 'marketplace_split') {
        return { active: true, commission_rate: e.conversion_details.commission_rate, commission_source: 'ledger' };
      }
    }
    return credits.some((e) => e.reason === 'marketplace_operator') ? SKIPPED : null;
  }

  /**
   * The payment credits of a succeeded charge, which refunds reverse and disputes share: written first
   * (idempotently, as the reconciler would) when its payment.succeeded has not been handled yet.
   */
  async creditsOf(charge: ChargeRecord, mode: Mode): Promise<LedgerEntry[]> {
    const credits = (await this.ledger.entriesForCharge(charge.charge_id)).filter(isPaymentCredit);
    if (credits.length || !charge.completed_at) return credits;
    await this.record(
      paymentOutcome(charge, 'succeeded', null, charge.completed_at),
      mode,
      `repair:${charge.charge_id}`,
    );
    return (await this.ledger.entriesForCharge(charge.charge_id)).filter(isPaymentCredit);
  }
}
