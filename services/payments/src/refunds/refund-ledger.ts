import type { Mode, PaymentRefunded } from '@ppay/kernel';
import { isPaymentCredit, newLedgerEntry, type LedgerEntry, type SplitRecord } from '../wallets/ledger-entry';
import type { WalletCredits } from '../wallets/wallet-credits';
import type { ChargeRepository, LedgerRepository } from '../ports';

/** The part of `credit` that the slice [0, refundedSoFar) of `captured` reverses, rounded down. */
function shareOf(credit: number, refundedSoFar: number, captured: number): number {
  return Number((BigInt(credit) * BigInt(refundedSoFar)) / BigInt(captured));
}

/**
 * The ledger debits of one succeeded refund: every credit the charge made is reversed in proportion
 * to the slice of the capture this refund covers (docs/decisions.md, Refunds). Rounding is cumulative:
 * a credit C is reversed by floor(C·after/captured) − floor(C·before/captured), so over any sequence
 * of refunds the debits of one credit add up to floor(C·refunded/captured) exactly, and to C itself
 * once the charge is refunded in full; no refund ever reverses more than its share.
 *
 * A marketplace charge reverses the operator's credit (reason `refund`) and the sub-merchant's split
 * credit (reason `marketplace_split_reversal`); the latter carries the reversed gross product amount
 * split into commission and net, which add up to it exactly.
 */
export function reversalsFor(
  credits: LedgerEntry[],
  event: Pick<PaymentRefunded, 'charge_id' | 'amount_captured' | 'refund'>,
  mode: Mode,
  eventId: string,
  now: Date,
): LedgerEntry[] {
  const captured = event.amount_captured.amount;
  const before = event.refund.refunded_before;
  const after = before + event.refund.amount.amount;
  if (captured <= 0) return [];
  const slice = (value: number) => shareOf(value, after, captured) - shareOf(value, before, captured);
  const debits: LedgerEntry[] = [];
  for (const credit of credits) {
    if (!isPaymentCredit(credit) || credit.charge_id !== event.charge_id) continue;
    const amount = slice(credit.amount.amount);
    if (amount <= 0) continue;
    const reason: LedgerEntry['reason'] =
      credit.reason === 'marketplace_split' ? 'marketplace_split_reversal' : 'refund';
    const split = credit.conversion_details as SplitRecord | null;
    const gross = split?.source === 'marketplace_split' ? slice(split.gross_product_amount) : 0;
    debits.push(
      newLedgerEntry(
        {
          // Unique per refund and beneficiary: a redelivered event debits nothing twice.
          idempotency_key: `${event.refund.refund_id}:${credit.merchant_id}:${reason}`,
          merchant_id: credit.merchant_id,
          mode,
          kind: 'debit',
          reason,
          amount: { amount, currency: credit.amount.currency },
          charge_id: event.charge_id,
          event_id: eventId,
          conversion_details:
            reason === 'marketplace_split_reversal' && split?.source === 'marketplace_split'
              ? {
                  source: 'marketplace_split_reversal',
                  marketplace_id: split.marketplace_id,
                  refund_id: event.refund.refund_id,
                  commission_rate: split.commission_rate,
                  gross_reversed: gross,
                  commission_reversed: gross - amount,
                  net_reversed: amount,
                  cart_identifier: split.cart_identifier,
                }
              : null,
        },
        now,
      ),
    );
  }
  return debits;
}

/**
 * payment.refunded → ledger debits. The consumer of the event comes here; the entries' idempotency
 * keys (refund id and beneficiary) make any number of redeliveries harmless, and a crash between
 * the charge's write and this append only delays it (the event sits in the charge's outbox until
 * published, and JetStream redelivers until this succeeds).
 */
export class RefundLedger {
  constructor(
    private readonly deps: { charges: ChargeRepository; ledger: LedgerRepository; credits: WalletCredits },
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(
    event: PaymentRefunded,
    mode: Mode,
    eventId: string,
  ): Promise<{ inserted: LedgerEntry[]; duplicates: number }> {
    const charge = await this.deps.charges.findForMerchant(event.merchant_id, mode, event.charge_id);
    // A charge deleted with its merchant (delete-merchant) has no wallets left to debit.
    if (!charge) return { inserted: [], duplicates: 0 };
    const credits = await this.deps.credits.creditsOf(charge, mode);
    return this.deps.ledger.append(reversalsFor(credits, event, mode, eventId, this.now()));
  }
}
