import { outboxEvent, SUBJECTS, type Mode } from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import type { ChargeRepository, SessionRepository } from '../ports';
import type { CheckoutIntent, ProcessorRegistry } from '../processors/ports';
import type { PaymentMethodService } from '../payment-methods/payment-methods';
import { installmentCheckoutCompleted } from './installment-checkout';
import { attemptCharge, paidCharge, sessionOutcome, type GoodsClose, type SessionRecord } from './session';
import { subscriptionCheckoutCompleted } from './subscription-checkout';

/**
 * Live hosted checkout, paid on the processor's page (docs/decisions.md, S25–S27, S32–S35, S40–S42):
 * what the customer does there, and the use cases that close a live session when its processor says it
 * was paid or expired. Kept apart from SessionService, which is the customer on our own page.
 */

/**
 * What the customer does on the processor's page: a subscription's free trial only keeps the card, a
 * subscription's first period and an installment's first part are paid with the card kept for the
 * off-session charges that follow, anything else is paid once.
 */
export function checkoutPurpose(
  s: Pick<SessionRecord, 'installments' | 'subscription_frequency_key' | 'trial_days'>,
): CheckoutIntent['purpose'] {
  if (s.installments) return 'pay_and_save';
  if (!s.subscription_frequency_key) return 'pay';
  return s.trial_days !== null ? 'save' : 'pay_and_save';
}

/**
 * A live create repeated with its Idempotency-Key answers the session it made, before the processor is
 * asked again: a second processor session (never shown to anyone) would only expire, its event matching
 * nothing of ours. Sandbox replays are left as they were (answered by the insert).
 */
export async function liveReplay(
  sessions: Pick<SessionRepository, 'findByIdempotencyKey'>,
  merchantId: number,
  mode: Mode,
  idempotencyKey: string | undefined,
): Promise<SessionRecord | null> {
  const key = idempotencyKey?.trim();
  if (mode !== 'live' || !key) return null;
  return sessions.findByIdempotencyKey(merchantId, mode, key);
}

export type CloseResult =
  | { result: 'applied' | 'duplicate' | 'stale'; session: SessionRecord }
  | { result: 'mismatch'; session: SessionRecord; note: string };

export class ProcessorCheckout {
  constructor(
    private readonly deps: {
      sessions: Pick<SessionRepository, 'closeFromProcessor' | 'findById'>;
      /** Where a paid session's charge is copied (paidCharge), as a sandbox payment's is. */
      charges: Pick<ChargeRepository, 'insert'>;
      /** The session's processor, asked what the customer paid with. */
      processors: Pick<ProcessorRegistry, 'adapterFor'>;
      /** Keeps the card of a subscription or installment session for its off-session charges. */
      paymentMethods: Pick<PaymentMethodService, 'saveFromCheckout'>;
    },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The processor says the customer finished the session (`paymentReference`: its id of the payment
   * taken, null when the session only kept the card). What the customer paid with is read back from the
   * processor, not taken from the event; a subscription or installment session's card is saved as a
   * payment method first (one per session: a repeat finds it), so the completion never names a method
   * that does not exist. Then, in one write, as a sandbox success on our page: the session completed
   * with its charge, `payment.succeeded` (none for a free trial) and the subscription's or plan's
   * completion; then the charge copied. From an expired session too: our clock may have expired it
   * while the processor, whose expiry is the same, was still taking the money. Safe to repeat; a
   * processor that cannot be asked throws (ask again later). A physical product's session (`goods`)
   * takes its shipping address and keeps its units sold in that same write (live-goods.ts).
   */
  async complete(s: SessionRecord, paymentReference: string | null, goods?: GoodsClose): Promise<CloseResult> {
    if (s.status === 'completed') return { result: 'duplicate', session: await this.recordCharge(s) };
    if (s.status === 'failed') return { result: 'stale', session: s };
    const purpose = checkoutPurpose(s);
    const paid = await this.deps.processors
      .adapterFor(s.processor_group, s.mode, 'checkout')
      .checkoutPayment(s.gateway_session_id);
    const payment = purpose === 'save' ? null : paid.payment_reference;
    if (payment !== paymentReference) {
      return { result: 'mismatch', session: s, note: `the processor's session holds payment ${payment ?? 'none'}` };
    }
    if (purpose !== 'pay' && !paid.saved_card) {
      return { result: 'mismatch', session: s, note: 'the processor kept no card for off-session charges' };
    }
    const at = this.now();
    const charge: ChargeRecord | null = payment
      ? {
          ...attemptCharge(s, at),
          status: 'succeeded',
          processor_reference: payment,
          failure_reason: null,
          completed_at: at,
          updated_at: at,
        }
      : null;
    const scope = { merchantId: s.merchant_id, mode: s.mode };
    const events = charge ? [outboxEvent(SUBJECTS.paymentSucceeded, sessionOutcome(s, charge, at), scope)] : [];
    if (paid.saved_card) {
      const method = await this.deps.paymentMethods.saveFromCheckout({
        session_id: s.session_id,
        merchant_id: s.merchant_id,
        mode: s.mode,
        customer_email: s.customer.email,
        card: paid.saved_card,
      });
      events.push(
        s.installments
          ? installmentCheckoutCompleted(s, method, charge!, at)
          : subscriptionCheckoutCompleted(s, method, charge, at),
      );
    }
    const saved = await this.deps.sessions.closeFromProcessor(
      s.session_id,
      { status: 'completed', payment: charge && { ...charge, card: paid.card }, now: at, ...(goods ? { goods } : {}) },
      events,
    );
    if (saved) return { result: 'applied', session: await this.recordCharge(saved) };
    return this.closedMeanwhile(s, 'completed');
  }

  /** The processor's session expired unpaid: pending → expired; a session that is already closed stays so. */
  async expire(s: SessionRecord): Promise<CloseResult> {
    if (s.status === 'expired') return { result: 'duplicate', session: s };
    if (s.status !== 'pending') return { result: 'stale', session: s };
    const saved = await this.deps.sessions.closeFromProcessor(s.session_id, { status: 'expired', now: this.now() }, []);
    if (saved) return { result: 'applied', session: saved };
    return this.closedMeanwhile(s, 'expired');
  }

  /** Another writer closed the session between our read and write: the same end is a repeat, another is stale. */
  private async closedMeanwhile(s: SessionRecord, target: 'completed' | 'expired'): Promise<CloseResult> {
    const now = (await this.deps.sessions.findById(s.session_id)) ?? s;
    if (now.status !== target) return { result: 'stale', session: now };
    return { result: 'duplicate', session: target === 'completed' ? await this.recordCharge(now) : now };
  }

  /** A failure here does not undo the payment; the ledger reconciler copies the charge later. */
  private async recordCharge(s: SessionRecord): Promise<SessionRecord> {
    const charge = paidCharge(s);
    if (charge) await this.deps.charges.insert(charge).catch(() => false);
    return s;
  }
}
