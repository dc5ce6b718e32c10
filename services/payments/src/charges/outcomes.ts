import { outboxEvent, PlatformError, SUBJECTS, type Mode } from '@ppay/kernel';
import type { ChargeRecord } from './charge';
import { paymentOutcome } from './payment-outcome';
import type { ChargeRepository } from '../ports';

/**
 * Drives a charge to its final state and emits payment.succeeded / payment.failed through the
 * charge's outbox. Final states are final: repeating the same outcome returns the charge unchanged,
 * asking for the other one is a conflict.
 */
export class OutcomeService {
  constructor(
    private readonly charges: ChargeRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The sandbox helper behind POST /sandbox/charges/{id}/succeed|fail. */
  async simulate(
    merchantId: number,
    mode: Mode,
    chargeId: string,
    outcome: string,
    reason?: string,
  ): Promise<ChargeRecord> {
    if (outcome !== 'succeed' && outcome !== 'fail') {
      throw new PlatformError('VALIDATION_FAILED', 'outcome must be succeed or fail', { param: 'outcome' });
    }
    if (mode !== 'sandbox') {
      throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
    }
    const charge = await this.charges.findForMerchant(merchantId, mode, chargeId);
    if (!charge) throw new PlatformError('CHARGE_NOT_FOUND', undefined, { param: 'charge_id' });
    return (await this.settle(charge, outcome === 'succeed' ? 'succeeded' : 'failed', reason || 'declined')).charge;
  }

  /**
   * The one way a charge reaches its outcome, for the sandbox helper and the processors' events alike.
   * `changed` is false when the charge already had this outcome (a repeat); the other final state, or a
   * charge not yet pending, is a CONFLICT: a final state never moves.
   */
  async settle(
    charge: ChargeRecord,
    target: 'succeeded' | 'failed',
    failureReason: string,
  ): Promise<{ charge: ChargeRecord; changed: boolean }> {
    if (charge.status === target) return { charge, changed: false };
    if (charge.status !== 'pending') {
      throw new PlatformError('CONFLICT', `Charge is already ${charge.status}`, { param: 'charge_id' });
    }
    const completedAt = this.now();
    const reason = target === 'failed' ? failureReason : null;
    const subject = target === 'succeeded' ? SUBJECTS.paymentSucceeded : SUBJECTS.paymentFailed;
    const event = outboxEvent(subject, paymentOutcome(charge, target, reason, completedAt), {
      merchantId: charge.merchant_id,
      mode: charge.mode,
    });
    const completed = await this.charges.complete(charge.charge_id, target, reason, completedAt, event);
    if (completed) return { charge: completed, changed: true };
    // Someone else finished it between our read and write: report what it became.
    const now = await this.charges.findForMerchant(charge.merchant_id, charge.mode, charge.charge_id);
    if (now?.status === target) return { charge: now, changed: false };
    throw new PlatformError('CONFLICT', `Charge is already ${now?.status ?? 'gone'}`, { param: 'charge_id' });
  }
}
