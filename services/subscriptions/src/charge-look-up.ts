import type { Mode, Money } from '@ppay/kernel';
import type { ChargeOutcome, PaymentsPort } from './ports';

/**
 * What became of an off-session charge left in flight on something cancelled since (a subscription's
 * renewal, an installment plan's part): payments is asked for the charge made with its key, a read that
 * never makes one. Found succeeded or declined: that outcome. Found still in flight at payments: `finish`
 * repeats the request with the same key, which answers that charge (the key exists: no new charge). Not
 * found: null, nothing was charged (the scheduler stopped before asking). A charge under the key with
 * another amount is not ours (a partner's own reference): payments would have refused our request with it.
 * Throws when payments cannot answer: the outcome is unknown, so the caller writes nothing and asks later.
 */
export async function lookUpChargeInFlight(
  payments: PaymentsPort,
  charge: { merchantId: number; mode: Mode; idempotencyKey: string; amount: Money },
  finish: () => Promise<ChargeOutcome>,
  deadline?: Date,
): Promise<ChargeOutcome | null> {
  const found = await payments.findCharge(charge.merchantId, charge.mode, charge.idempotencyKey, deadline);
  const ours =
    found && found.amount.amount === charge.amount.amount && found.amount.currency === charge.amount.currency;
  if (!found || !ours) return null;
  if (found.status === 'pending') return finish();
  return { charge_id: found.charge_id, status: found.status, decline_code: found.decline_code };
}
