import { PlatformError, type DisputeReason, type Mode, type PaymentOutcome } from '@ppay/kernel';
import { paidCharge } from '../checkout/session';
import type { ChargeRepository, SessionRepository } from '../ports';
import type { CardSummary } from '../processors/cards';
import type { DisputeRecord } from './dispute';
import type { DisputeOpener } from './dispute-opening';

/**
 * The sandbox processor's chargebacks: a hosted-checkout payment made with a dispute test card
 * (4000 0000 0000 0259 fraudulent, …2685 product_not_received) is disputed as soon as its
 * payment.succeeded is consumed, as a live processor's dispute notification would be. Repeats answer
 * the same dispute; a payment that can no longer be disputed (refunded in full meanwhile) is left alone.
 */
export class SandboxCardDisputes {
  constructor(
    private readonly deps: {
      sessions: Pick<SessionRepository, 'findById'>;
      charges: Pick<ChargeRepository, 'insert'>;
      opener: Pick<DisputeOpener, 'open'>;
      /** The dispute a sandbox card brings (the sandbox card processor's table). */
      disputeReasonOf: (card: CardSummary) => DisputeReason | null;
    },
  ) {}

  async onPaymentSucceeded(outcome: PaymentOutcome, mode: Mode): Promise<DisputeRecord | null> {
    if (mode !== 'sandbox' || !outcome.session_id) return null;
    const session = await this.deps.sessions.findById(outcome.session_id);
    const reason = session?.payment ? this.deps.disputeReasonOf(session.payment.card) : null;
    const charge = session ? paidCharge(session) : null;
    if (!session || !charge || !reason) return null;
    // The copy the page made may not be there yet (or was lost to a crash): the dispute needs it.
    await this.deps.charges.insert(charge);
    try {
      return await this.deps.opener.open({
        merchant_id: session.merchant_id,
        mode,
        charge_id: charge.charge_id,
        reason,
        source: 'sandbox_card',
      });
    } catch (err) {
      // Only infrastructure failures are worth a redelivery; a refused dispute stays refused.
      if (err instanceof PlatformError && err.group !== 'infrastructure') return null;
      throw err;
    }
  }
}
