import { outboxEvent, PlatformError, SUBJECTS, type Mode } from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import type { ChargeRepository, SessionRepository } from '../ports';
import type { CardSummary } from '../processors/cards';
import { attemptCharge, paidCharge, sessionOutcome, type GoodsClose, type SessionRecord } from './session';

/**
 * Live hosted checkout, paid on the processor's page (docs/decisions.md, S25–S27): which live sessions
 * are offered, and the use cases that close a live session when its processor says it was paid or
 * expired. Kept apart from SessionService, which is the customer on our own page.
 */

/**
 * Live sessions are one-time payments for now, physical goods included (live-goods.ts: the address
 * collected on the processor's page, the units held for the session's life); subscriptions and
 * installments (the card saved for off-session charges) need more of the processor's session than is
 * built. Refused before anything is asked or stored.
 */
export function assertLiveCheckoutOffered(
  mode: Mode,
  s: { installments: boolean; frequency: string | undefined },
): void {
  if (mode !== 'live') return;
  const kind = s.installments ? 'installment' : s.frequency ? 'subscription' : null;
  if (!kind) return;
  throw new PlatformError('GATEWAY_NOT_CONFIGURED', `Live hosted checkout of ${kind} sessions is not enabled yet`, {
    detail: `only one-time live sessions are offered for now; ${kind} sessions work in sandbox`,
  });
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

/** What the processor's session tells of the card: nothing (its page took it), so the session shows none. */
const CARD_AT_PROCESSOR: CardSummary = { brand: 'card', last4: '' };

export type CloseResult = { result: 'applied' | 'duplicate' | 'stale'; session: SessionRecord };

export class ProcessorCheckout {
  constructor(
    private readonly deps: {
      sessions: Pick<SessionRepository, 'closeFromProcessor' | 'findById'>;
      /** Where a paid session's charge is copied (paidCharge), as a sandbox payment's is. */
      charges: Pick<ChargeRepository, 'insert'>;
    },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The processor took the session's payment (`paymentReference`, its id of the payment): completed with
   * its charge and `payment.succeeded` in one write, as a sandbox success on our page is, then the charge
   * copied. From an expired session too: our clock may have expired it while the processor, whose
   * expiry is the same, was still taking the money. Safe to repeat. A physical product's session
   * (`goods`) takes its shipping address and keeps its units sold in that same write (live-goods.ts).
   */
  async complete(s: SessionRecord, paymentReference: string, goods?: GoodsClose): Promise<CloseResult> {
    if (s.status === 'completed') return { result: 'duplicate', session: await this.recordCharge(s) };
    if (s.status === 'failed') return { result: 'stale', session: s };
    const at = this.now();
    const charge: ChargeRecord = {
      ...attemptCharge(s, at),
      status: 'succeeded',
      processor_reference: paymentReference,
      failure_reason: null,
      completed_at: at,
      updated_at: at,
    };
    const events = [
      outboxEvent(SUBJECTS.paymentSucceeded, sessionOutcome(s, charge, at), {
        merchantId: s.merchant_id,
        mode: s.mode,
      }),
    ];
    const saved = await this.deps.sessions.closeFromProcessor(
      s.session_id,
      { status: 'completed', payment: { ...charge, card: CARD_AT_PROCESSOR }, now: at, ...(goods ? { goods } : {}) },
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
