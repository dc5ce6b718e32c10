import Stripe from 'stripe';
import { PlatformError, SUBJECTS, type DisputeEvent as DisputeMessage, type PaymentOutcome } from '@ppay/kernel';
import { testCharge, testFees } from '../charges/charge.test-util';
import { OutcomeService } from '../charges/outcomes';
import { FakeSplits, MemoryCharges, MemoryLedger } from '../memory-ports.test-util';
import { PaymentEventApplier } from '../processors/payment-events';
import { ProcessorEventInbox } from '../processors/processor-events';
import { processorEventHandlers } from '../processors/processor-events.handlers';
import { appliersOf, MemoryProcessorEvents, ScriptedAbandons } from '../processors/processor-events.test-util';
import { StripeEventVerifier } from '../processors/stripe/stripe-events.adapter';
import { WalletCredits } from '../wallets/wallet-credits';
import { DisputeCloser } from './dispute-closing';
import { DisputeEventApplier } from './dispute-events';
import { disputeLedger } from './dispute-ledger';
import { FakeDisputeProcessors, MemoryDisputes } from './dispute-memory.test-util';
import { DisputeOpener } from './dispute-opening';
import { stripeEventJson } from '../processors/stripe/stripe.test-util';

/**
 * Live disputes from Stripe's events, in memory: a live charge paid by its signed
 * payment_intent.succeeded, then charge.dispute.* events signed as Stripe signs them, verified, stored
 * once and applied through the dispute lifecycle (opening, withdrawal, decision, reinstatement), in
 * order, out of order and repeated.
 */
const SECRET = 'whsec_unit_disputes000';

/** The inbox applied by the test alone (no background run racing it), so each event's verdict is exact. */
class ManualInbox extends ProcessorEventInbox {
  override applySoon(): void {}
}
const DAY = 86_400_000;
const DUE_BY = 1_767_225_600; // 2026-12-31T00:00:00Z, Stripe's seconds

function setup() {
  let now = new Date('2026-12-01T10:00:00Z');
  const clock = () => now;
  const charges = new MemoryCharges();
  const ledger = new MemoryLedger();
  const credits = new WalletCredits(ledger, new FakeSplits(), clock);
  const disputes = new MemoryDisputes();
  const processors = new FakeDisputeProcessors();
  const opener = new DisputeOpener(
    { charges, disputes, credits },
    { fees: { USD: 1_500 }, responseWindowMs: 7 * DAY },
    clock,
    async () => undefined,
  );
  const closer = new DisputeCloser({ charges, disputes, processors }, {}, clock);
  const events = new MemoryProcessorEvents();
  const inbox = new ManualInbox(
    {
      events,
      appliers: appliersOf({
        payment: new PaymentEventApplier({
          charges,
          outcomes: new OutcomeService(charges, clock),
          processors: new ScriptedAbandons(),
        }),
        dispute: new DisputeEventApplier({ charges, disputes, opener, closer }, clock),
      }),
    },
    { unmatchedAfterMs: 60_000, retryMs: 1_000, now: clock },
  );
  const handler = processorEventHandlers(
    inbox,
    { stripe: new StripeEventVerifier(Stripe.webhooks, [SECRET]) },
    () => undefined,
    (err) => {
      throw err;
    },
  ).ReceiveProcessorEvent!;
  const post = async (payload: string) => {
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    const call = handler as (req: unknown, ctx: unknown) => Promise<{ outcome: string }>;
    const answer = await call({ processor: 'stripe', payload: Buffer.from(payload), signature }, {});
    await inbox.applyDue();
    await settleLedger();
    return answer.outcome;
  };
  const moves = disputeLedger(ledger, clock);
  const handled = new Set<string>();
  /** The consumers of payment.succeeded and the dispute's funds events, each event once. */
  const settleLedger = async () => {
    for (const e of [...charges.events, ...disputes.events]) {
      if (handled.has(e.event_id)) continue;
      handled.add(e.event_id);
      if (e.subject === SUBJECTS.paymentSucceeded) await credits.record(e.data as PaymentOutcome, 'live', e.event_id);
      if (e.subject === SUBJECTS.disputeFundsWithdrawn)
        await moves.withdrawals.record(e.data as DisputeMessage, 'live', e.event_id);
      if (e.subject === SUBJECTS.disputeFundsReinstated)
        await moves.reinstatements.record(e.data as DisputeMessage, 'live', e.event_id);
    }
  };
  const balance = () =>
    [...ledger.entries.values()]
      .filter((e) => e.merchant_id === 1000 && e.mode === 'live' && e.amount.currency === 'USD')
      .reduce((sum, e) => sum + (e.kind === 'credit' ? e.amount.amount : -e.amount.amount), 0);
  return {
    charges,
    disputes,
    events,
    processors,
    closer,
    post,
    balance,
    status: (id: string) => events.docs.get(`stripe:${id}`)?.status,
    subjects: () => disputes.events.map((e) => e.subject.replace('payments.dispute.', '')),
    only: () => [...disputes.docs.values()],
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}

/** A pending live USD 25.00 charge of merchant 1000 on PaymentIntent pi_live_1 (fee 1.00). */
const liveCharge = () =>
  testCharge({
    charge_id: 'ch_live_1',
    merchant_id: 1000,
    mode: 'live',
    status: 'pending',
    processor_group: 'card',
    payment_gateway: 'card_gateway',
    processor_reference: 'pi_live_1',
    amount: { amount: 2_500, currency: 'USD' },
    total: { amount: 2_500, currency: 'USD' },
    fee_details: testFees('USD', 2_500, 100),
  });

const succeeded = (id = 'evt_paid') =>
  stripeEventJson(id, 'payment_intent.succeeded', {
    id: 'pi_live_1',
    object: 'payment_intent',
    amount: 2_500,
    currency: 'usd',
    metadata: { charge_id: 'ch_live_1', merchant_id: '1000', mode: 'live' },
    last_payment_error: null,
  });

/** A charge.dispute.* event as Stripe sends it: the Dispute object as of the event. */
function disputeEvent(id: string, type: string, dispute: Record<string, unknown> = {}) {
  return stripeEventJson(id, `charge.dispute.${type}`, {
    id: 'du_live_1',
    object: 'dispute',
    amount: 2_500,
    currency: 'usd',
    charge: 'ch_3Stripe',
    payment_intent: 'pi_live_1',
    reason: 'fraudulent',
    status: 'needs_response',
    evidence_details: { due_by: DUE_BY, has_evidence: false, past_due: false, submission_count: 0 },
    metadata: {},
    ...dispute,
  });
}

async function paidWorld() {
  const t = setup();
  await t.charges.insert(liveCharge());
  expect(await t.post(succeeded())).toBe('received');
  // The merchant's live wallet: 25.00 less the 1.00 fee.
  expect(t.balance()).toBe(2_400);
  return t;
}

describe('live disputes from Stripe events', () => {
  it('charge.dispute.created opens the dispute with Stripe’s due date, withdraws the funds once, and a repeat doubles nothing', async () => {
    const t = await paidWorld();
    const created = disputeEvent('evt_d1', 'created');
    expect(await t.post(created)).toBe('received');
    expect(t.status('evt_d1')).toBe('applied');
    const [dispute, ...others] = t.only();
    expect(others).toHaveLength(0);
    expect(dispute).toMatchObject({
      charge_id: 'ch_live_1',
      mode: 'live',
      status: 'needs_response',
      reason: 'fraudulent',
      source: 'processor',
      processor_reference: 'du_live_1',
      amount: { amount: 2_500, currency: 'USD' },
      evidence_due_by: new Date(DUE_BY * 1_000),
    });
    expect(t.subjects()).toEqual(['created', 'funds_withdrawn']);
    // 24.00 credited, the disputed share (all of it) and the 15.00 fee taken.
    expect(t.balance()).toBe(2_400 - 2_400 - 1_500);
    expect(t.charges.docs.get('ch_live_1')!.dispute).toMatchObject({ dispute_id: dispute!.dispute_id, status: 'open' });

    // The same delivery again is a duplicate at the door; Stripe's own funds_withdrawn changes nothing.
    expect(await t.post(created)).toBe('duplicate');
    expect(await t.post(disputeEvent('evt_d2', 'funds_withdrawn'))).toBe('received');
    expect(t.status('evt_d2')).toBe('duplicate');
    expect(t.only()).toHaveLength(1);
    expect(t.subjects()).toEqual(['created', 'funds_withdrawn']);
    expect(t.balance()).toBe(-1_500);
  });

  it('a whole lifecycle won: under review, closed won, funds reinstated; each step once', async () => {
    const t = await paidWorld();
    await t.post(disputeEvent('evt_c', 'created'));
    await t.post(disputeEvent('evt_u', 'updated', { status: 'under_review' }));
    expect(t.status('evt_u')).toBe('applied');
    expect(t.only()[0]).toMatchObject({ status: 'under_review' });
    expect(t.only()[0]!.evidence_submitted_at).not.toBeNull();
    // Nothing is sent to the processor: it told us the evidence is there.
    expect(t.processors.submitted).toEqual([]);
    await t.post(disputeEvent('evt_w', 'closed', { status: 'won' }));
    expect(t.status('evt_w')).toBe('applied');
    await t.post(disputeEvent('evt_r', 'funds_reinstated', { status: 'won' }));
    expect(t.status('evt_r')).toBe('duplicate');
    expect(t.only()[0]).toMatchObject({ status: 'won' });
    expect(t.subjects()).toEqual(['created', 'funds_withdrawn', 'updated', 'closed', 'funds_reinstated']);
    // Everything withdrawn came back.
    expect(t.balance()).toBe(2_400);
    expect(t.charges.docs.get('ch_live_1')!.dispute).toMatchObject({ status: 'won' });
  });

  it('out of order: closed lost before created opens and decides it; the late created and updated are stale', async () => {
    const t = await paidWorld();
    await t.post(disputeEvent('evt_l', 'closed', { status: 'lost' }));
    expect(t.status('evt_l')).toBe('applied');
    expect(t.only()[0]).toMatchObject({ status: 'lost', processor_reference: 'du_live_1' });
    await t.post(disputeEvent('evt_c', 'created'));
    await t.post(disputeEvent('evt_u', 'updated', { status: 'under_review' }));
    expect([t.status('evt_c'), t.status('evt_u')]).toEqual(['stale', 'stale']);
    expect(t.only()).toHaveLength(1);
    expect(t.only()[0]!.status).toBe('lost');
    expect(t.subjects()).toEqual(['created', 'funds_withdrawn', 'closed']);
    expect(t.balance()).toBe(-1_500);
  });

  it('funds reinstated before closed won closes it won; a contradicting lost afterwards is stale', async () => {
    const t = await paidWorld();
    await t.post(disputeEvent('evt_c', 'created'));
    await t.post(disputeEvent('evt_r', 'funds_reinstated', { status: 'under_review' }));
    expect(t.status('evt_r')).toBe('applied');
    await t.post(disputeEvent('evt_w', 'closed', { status: 'won' }));
    expect(t.status('evt_w')).toBe('duplicate');
    await t.post(disputeEvent('evt_x', 'closed', { status: 'lost' }));
    expect(t.status('evt_x')).toBe('stale');
    expect(t.only()[0]!.status).toBe('won');
    expect(t.balance()).toBe(2_400);
  });

  it('an updated due date is taken while the dispute waits for a response', async () => {
    const t = await paidWorld();
    await t.post(disputeEvent('evt_c', 'created'));
    const later = DUE_BY + 3 * 86_400;
    await t.post(
      disputeEvent('evt_u', 'updated', { evidence_details: { due_by: later, has_evidence: false, past_due: false } }),
    );
    expect(t.status('evt_u')).toBe('applied');
    expect(t.only()[0]!.evidence_due_by).toEqual(new Date(later * 1_000));
    expect(t.subjects()).toEqual(['created', 'funds_withdrawn', 'updated']);
  });

  it('a dispute before its charge is paid waits for it; one for a payment never ours is unmatched', async () => {
    const t = setup();
    await t.charges.insert(liveCharge());
    await t.post(disputeEvent('evt_early', 'created'));
    expect(t.status('evt_early')).toBe('received');
    await t.post(disputeEvent('evt_orphan', 'created', { id: 'du_other', payment_intent: 'pi_unknown' }));
    t.advance(2_000);
    await t.post(succeeded());
    t.advance(2_000);
    await t.post(succeeded('evt_nudge'));
    expect(t.status('evt_early')).toBe('applied');
    expect(t.only()).toHaveLength(1);
    t.advance(61_000);
    await t.post(succeeded('evt_nudge2'));
    expect(t.status('evt_orphan')).toBe('unmatched');
  });

  it('an amount or currency not matching the charge, or a second Stripe dispute of it, is kept and not applied', async () => {
    const t = await paidWorld();
    await t.post(disputeEvent('evt_amount', 'created', { amount: 2_501 }));
    await t.post(disputeEvent('evt_currency', 'created', { currency: 'eur' }));
    expect([t.status('evt_amount'), t.status('evt_currency')]).toEqual(['mismatch', 'mismatch']);
    expect(t.only()).toHaveLength(0);
    await t.post(disputeEvent('evt_c', 'created'));
    await t.post(disputeEvent('evt_other', 'created', { id: 'du_live_2' }));
    await t.post(disputeEvent('evt_smaller', 'updated', { amount: 2_000 }));
    expect([t.status('evt_other'), t.status('evt_smaller')]).toEqual(['mismatch', 'mismatch']);
    expect(t.only()).toHaveLength(1);
    expect(t.balance()).toBe(-1_500);
  });

  it('accepting a live dispute closes it at its processor first; a processor that fails leaves it open', async () => {
    const t = await paidWorld();
    await t.post(disputeEvent('evt_c', 'created'));
    const id = t.only()[0]!.dispute_id;
    const accept = t.processors.forMode().accept;
    t.processors.forMode = () => ({
      submitEvidence: async () => ({ scheduled_outcome: null }),
      accept: async () => {
        throw new PlatformError('SERVICE_UNAVAILABLE');
      },
    });
    await expect(t.closer.accept(1000, 'live', id)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(t.only()[0]!.status).toBe('needs_response');
    t.processors.forMode = () => ({ submitEvidence: async () => ({ scheduled_outcome: null }), accept });
    expect((await t.closer.accept(1000, 'live', id)).status).toBe('lost');
    expect(t.processors.accepted).toEqual([id]);
    // Stripe's own closed event for it afterwards is a repeat.
    await t.post(disputeEvent('evt_l', 'closed', { status: 'lost' }));
    expect(t.status('evt_l')).toBe('duplicate');
  });

  it('inquiries, prevented disputes and disputes of payments without a PaymentIntent are acknowledged and ignored', async () => {
    const t = await paidWorld();
    for (const [id, changes] of [
      ['evt_w1', { status: 'warning_needs_response' }],
      ['evt_w2', { status: 'warning_closed' }],
      ['evt_p', { status: 'prevented' }],
      ['evt_nopi', { payment_intent: null }],
    ] as const) {
      expect(await t.post(disputeEvent(id, 'created', changes))).toBe('ignored');
    }
    expect(t.only()).toHaveLength(0);
    // An inquiry that escalates comes back as needs_response: it opens then.
    await t.post(disputeEvent('evt_escalated', 'updated', { reason: 'noncompliant' }));
    expect(t.status('evt_escalated')).toBe('applied');
    expect(t.only()[0]).toMatchObject({ status: 'needs_response', reason: 'general' });
  });
});
