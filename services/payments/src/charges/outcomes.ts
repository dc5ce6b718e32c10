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
    const target = outcome === 'succeed' ? 'succeeded' : 'failed';
    if (charge.status === target) return charge;
    if (charge.status !== 'pending') {
      throw new PlatformError('CONFLICT', `Charge is already ${charge.status}`, { param: 'charge_id' });
    }
    const completedAt = this.now();
    const failureReason = target === 'failed' ? reason || 'declined' : null;
    const subject = target === 'succeeded' ? SUBJECTS.paymentSucceeded : SUBJECTS.paymentFailed;
    const event = outboxEvent(subject, paymentOutcome(charge, target, failureReason, completedAt), {
      merchantId: charge.merchant_id,
      mode: charge.mode,
    });
    const completed = await this.charges.complete(charge.charge_id, target, failureReason, completedAt, event);
    if (completed) return completed;
    // Someone else finished it between our read and write: report what it became.
    const now = await this.charges.findForMerchant(merchantId, mode, chargeId);
    if (now?.status === target) return now;
    throw new PlatformError('CONFLICT', `Charge is already ${now?.status ?? 'gone'}`, { param: 'charge_id' });
  }
}
