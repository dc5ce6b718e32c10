import type { DisputeEvent } from '@ppay/kernel';
import { rejectionOf } from '../errors.test-util';
import { DAY, disputeWorld } from './disputes.test-util';

const ngn = (amount: number) => ({ amount, currency: 'NGN' });
const errorOf = async (p: Promise<unknown>) => {
  const e = await rejectionOf(p);
  return [e.code, e.param];
};
// NGN 5,000.00 captured; the naira fee 1.5% + ₦100 = ₦175.00, so the merchant was credited ₦4,825.00.
const CAPTURED = 500_000;
const NET = 482_500;
const FEE = 250_000;

describe('DisputeOpener', () => {
  it('opens a full dispute: holds the charge, withdraws its credit and the fee, due in 7 days', async () => {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    await w.settleLedger();
    const d = await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' });
    expect(d).toMatchObject({
      status: 'needs_response',
      reason: 'general',
      amount: ngn(CAPTURED),
      fee: ngn(FEE),
      funds_withdrawn: [
        { merchant_id: 1000, role: 'merchant', kind: 'dispute_withdrawal', amount: ngn(NET) },
        { merchant_id: 1000, role: 'merchant', kind: 'dispute_fee', amount: ngn(FEE) },
      ],
      funds_reinstated: [],
    });
    expect(d.evidence_due_by.getTime() - w.now().getTime()).toBe(7 * DAY);
    expect(w.subjects()).toEqual(['created', 'funds_withdrawn']);
    const charge = await w.charges.findForMerchant(1000, 'sandbox', chargeId);
    expect(charge).toMatchObject({
      amount_disputed: ngn(CAPTURED),
      dispute: { dispute_id: d.dispute_id, status: 'open', amount: ngn(CAPTURED) },
    });
    await w.settleLedger();
    await w.settleLedger(); // a redelivery moves nothing twice
    // The wallet goes below zero: the fee is owed on top of the whole credit.
    expect(w.balance(1000)).toBe(-FEE);
  });

  it('takes a partial amount and a reason, and writes the payment credits first if nobody had yet', async () => {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    // payment.succeeded not consumed yet: the opener writes the credits (as the reconciler would).
    const d = await w.opener.open({
      merchant_id: 1000,
      mode: 'sandbox',
      charge_id: chargeId,
      amount: 100_000,
      reason: 'fraudulent',
      source: 'sandbox_api',
    });
    // 482500 − floor(482500 · 400000 / 500000)
    expect(d.funds_withdrawn[0]).toMatchObject({ amount: ngn(96_500) });
    expect(d.reason).toBe('fraudulent');
    await w.settleLedger();
    expect(w.balance(1000)).toBe(NET - 96_500 - FEE);
  });

  it('refuses a charge that is not succeeded, an amount beyond what is left, and a second dispute', async () => {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    const open = (changes: object = {}) =>
      w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api', ...changes });
    expect(await errorOf(open({ charge_id: 'ch_missing' }))).toEqual(['CHARGE_NOT_FOUND', 'charge_id']);
    expect(await errorOf(open({ merchant_id: 3000 }))).toEqual(['CHARGE_NOT_FOUND', 'charge_id']);
    await w.refunds.create(1000, 'sandbox', chargeId, { amount: ngn(400_000) });
    expect(await errorOf(open({ amount: 100_001 }))).toEqual(['DISPUTE_AMOUNT_EXCEEDS_CHARGE', 'amount']);
    expect(await errorOf(open({ amount: 0 }))).toEqual(['DISPUTE_AMOUNT_EXCEEDS_CHARGE', 'amount']);
    const d = await open();
    expect(d.amount).toEqual(ngn(100_000)); // everything not refunded
    expect(await errorOf(open())).toEqual(['CHARGE_ALREADY_DISPUTED', 'charge_id']);
    // A processor's repeated notification answers the same dispute.
    expect((await open({ source: 'processor' })).dispute_id).toBe(d.dispute_id);
    expect(w.opened).toEqual([d.dispute_id]);
  });

  it('is finished by the sweep after a crash between any two of its writes', async () => {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    // Crash after the hold, before the dispute opens.
    w.disputes.beforeReplace = () => {
      throw new Error('crash');
    };
    await expect(
      w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' }),
    ).rejects.toThrow('crash');
    const [opening] = [...w.disputes.docs.values()];
    expect(opening!.status).toBe('opening');
    expect(await w.service.list(1000, 'sandbox', {})).toMatchObject({ disputes: [] }); // never visible
    await expect(w.service.get(1000, 'sandbox', opening!.dispute_id)).rejects.toThrow('Dispute not found');
    // A refund while it is opening cannot take its amount: the hold is already on the charge.
    expect(await errorOf(w.refunds.create(1000, 'sandbox', chargeId, {}))).toEqual(['CHARGE_DISPUTED', 'charge_id']);
    w.disputes.beforeReplace = () => undefined;
    expect(await w.opener.resumeStale()).toBe(0); // not stale yet
    w.advance(31_000);
    expect(await w.opener.resumeStale()).toBe(1);
    expect((await w.service.get(1000, 'sandbox', opening!.dispute_id)).status).toBe('needs_response');
    expect(w.subjects()).toEqual(['created', 'funds_withdrawn']);
  });

  it('gives up an opening dispute whose charge was refunded in full meanwhile', async () => {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    let refunded = false;
    w.disputes.beforeReplace = () => undefined;
    const original = w.charges.writeDisputeHold.bind(w.charges);
    w.charges.writeDisputeHold = async (...args) => {
      if (!refunded) {
        refunded = true;
        await w.refunds.create(1000, 'sandbox', chargeId, {});
      }
      return original(...args);
    };
    expect(
      await errorOf(w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' })),
    ).toEqual(['DISPUTE_AMOUNT_EXCEEDS_CHARGE', 'amount']);
    expect(w.disputes.docs.size).toBe(0);
    expect((await w.charges.findForMerchant(1000, 'sandbox', chargeId))!.dispute).toBeNull();
  });
});

describe('refunds of a disputed charge', () => {
  it('are refused while the dispute is open, free again once it is won, and capped for good once it is lost', async () => {
    const w = disputeWorld();
    const won = await w.newCharge();
    const dWon = await w.opener.open({
      merchant_id: 1000,
      mode: 'sandbox',
      charge_id: won,
      amount: 200_000,
      source: 'sandbox_api',
    });
    expect(await errorOf(w.refunds.create(1000, 'sandbox', won, { amount: ngn(1) }))).toEqual([
      'CHARGE_DISPUTED',
      'charge_id',
    ]);
    await w.service.saveEvidence(1000, 'sandbox', dWon.dispute_id, {
      evidence: { uncategorized_text: 'x' },
      submit: true,
    });
    await w.closer.decide(1000, 'sandbox', dWon.dispute_id, 'won');
    expect((await w.charges.findForMerchant(1000, 'sandbox', won))!.amount_disputed).toEqual(ngn(0));
    expect((await w.refunds.create(1000, 'sandbox', won, {})).refund.amount).toEqual(ngn(CAPTURED));

    const lost = await w.newCharge();
    const dLost = await w.opener.open({
      merchant_id: 1000,
      mode: 'sandbox',
      charge_id: lost,
      amount: 200_000,
      source: 'sandbox_api',
    });
    await w.closer.accept(1000, 'sandbox', dLost.dispute_id);
    expect((await w.charges.findForMerchant(1000, 'sandbox', lost))!.dispute).toMatchObject({ status: 'lost' });
    expect(await errorOf(w.refunds.create(1000, 'sandbox', lost, { amount: ngn(300_001) }))).toEqual([
      'REFUND_EXCEEDS_CHARGE',
      'amount',
    ]);
    expect((await w.refunds.create(1000, 'sandbox', lost, {})).refund.amount).toEqual(ngn(300_000));
  });

  it('never reverse more than the credit, with a lost dispute and refunds together', async () => {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    await w.refunds.create(1000, 'sandbox', chargeId, { amount: ngn(123_457) });
    const d = await w.opener.open({
      merchant_id: 1000,
      mode: 'sandbox',
      charge_id: chargeId,
      amount: 111_111,
      source: 'sandbox_api',
    });
    await w.closer.accept(1000, 'sandbox', d.dispute_id);
    await w.refunds.create(1000, 'sandbox', chargeId, {});
    await w.settleLedger();
    // Every part of the capture was refunded or lost: the whole credit went back, plus the fee.
    expect(w.balance(1000)).toBe(-FEE);
  });
});

describe('DisputeService.saveEvidence and DisputeCloser', () => {
  async function openDispute() {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    const d = await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' });
    return { w, d, chargeId };
  }

  it('saves drafts (merged, null clears), then submits once', async () => {
    const { w, d } = await openDispute();
    await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, {
      evidence: { customer_name: 'Ada', shipping_carrier: 'DHL' },
      submit: false,
    });
    const draft = await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, {
      evidence: { shipping_carrier: null, receipt_url: 'https://shop.example/r/1' },
      submit: false,
    });
    expect(draft).toMatchObject({
      status: 'needs_response',
      evidence: { customer_name: 'Ada', shipping_carrier: null, receipt_url: 'https://shop.example/r/1' },
      evidence_submitted_at: null,
    });
    const submitted = await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence: {}, submit: true });
    expect(submitted).toMatchObject({ status: 'under_review', evidence_submitted_at: w.now() });
    expect(w.disputeProcessors.submitted).toEqual([d.dispute_id]);
    const again = w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence: {}, submit: true });
    expect(await errorOf(again)).toEqual(['DISPUTE_EVIDENCE_SUBMITTED', 'submit']);
    expect(await errorOf(w.closer.accept(1000, 'sandbox', d.dispute_id))).toEqual([
      'DISPUTE_EVIDENCE_SUBMITTED',
      'dispute_id',
    ]);
    expect(w.subjects()).toEqual(['created', 'funds_withdrawn', 'updated', 'updated', 'updated']);
  });

  it('refuses evidence that is empty on submit, malformed, too long, or past the due date', async () => {
    const { w, d } = await openDispute();
    const save = (evidence: Record<string, string | null>, submit = false) =>
      errorOf(w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence, submit }));
    expect(await save({}, true)).toEqual(['VALIDATION_FAILED', 'evidence']);
    expect(await save({ receipt_url: 'http://shop.example/r' })).toEqual(['VALIDATION_FAILED', 'evidence.receipt_url']);
    expect(await save({ shipping_date: '2026-02-30' })).toEqual(['VALIDATION_FAILED', 'evidence.shipping_date']);
    expect(await save({ customer_email: 'nobody' })).toEqual(['VALIDATION_FAILED', 'evidence.customer_email']);
    expect(await save({ shipping_carrier: 'x'.repeat(101) })).toEqual([
      'VALIDATION_FAILED',
      'evidence.shipping_carrier',
    ]);
    w.advance(7 * DAY);
    expect(await save({ customer_name: 'Ada' })).toEqual(['DISPUTE_PAST_DUE', 'dispute_id']);
    expect(await errorOf(w.service.get(3000, 'sandbox', d.dispute_id))).toEqual(['DISPUTE_NOT_FOUND', 'dispute_id']);
  });

  it('gives everything back when won, and moves nothing more when lost', async () => {
    const { w, d } = await openDispute();
    await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence: { customer_name: 'Ada' }, submit: true });
    expect(await errorOf(w.closer.decide(1000, 'sandbox', 'dp_nope', 'won'))).toEqual([
      'DISPUTE_NOT_FOUND',
      'dispute_id',
    ]);
    const won = await w.closer.decide(1000, 'sandbox', d.dispute_id, 'won');
    expect(won).toMatchObject({ status: 'won', closed_at: w.now(), funds_reinstated: d.funds_withdrawn });
    expect(await errorOf(w.closer.decide(1000, 'sandbox', d.dispute_id, 'lost'))).toEqual([
      'DISPUTE_CLOSED',
      'dispute_id',
    ]);
    await w.settleLedger();
    expect(w.balance(1000)).toBe(NET);
    expect(w.subjects().slice(-2)).toEqual(['closed', 'funds_reinstated']);
    const closedEvent = w.disputes.events.find((e) => e.subject === 'payments.dispute.closed')!.data as DisputeEvent;
    expect(closedEvent.dispute).toMatchObject({ status: 'won', dispute_id: d.dispute_id });
    expect(w.closed).toEqual([`${d.dispute_id}:won:processor`]);
  });

  it('decides only a dispute under review', async () => {
    const { w, d } = await openDispute();
    expect(await errorOf(w.closer.decide(1000, 'sandbox', d.dispute_id, 'won'))).toEqual([
      'DISPUTE_NOT_UNDER_REVIEW',
      'dispute_id',
    ]);
  });

  it('loses an unanswered dispute at its due date (the sweep), and at once on the sandbox expire', async () => {
    const { w, d } = await openDispute();
    expect(await w.closer.expireDue()).toBe(0);
    w.advance(7 * DAY);
    expect(await w.closer.expireDue()).toBe(1);
    expect((await w.service.get(1000, 'sandbox', d.dispute_id)).status).toBe('lost');
    const other = await w.newCharge();
    const d2 = await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: other, source: 'sandbox_api' });
    expect(await w.closer.expireNow(1000, 'sandbox', d2.dispute_id)).toMatchObject({
      status: 'lost',
      evidence_due_by: w.now(),
    });
    expect(w.closed).toEqual([`${d.dispute_id}:lost:expired`, `${d2.dispute_id}:lost:expired`]);
  });

  it('applies an outcome the processor scheduled from the evidence when its time comes', async () => {
    const { w, d } = await openDispute();
    w.disputeProcessors.answer = { scheduled_outcome: { status: 'lost', after_ms: 2_000 } };
    await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, {
      evidence: { uncategorized_text: 'x' },
      submit: true,
    });
    expect(await w.closer.decideDue()).toBe(0);
    w.advance(2_000);
    expect(await w.closer.decideDue()).toBe(1);
    expect((await w.service.get(1000, 'sandbox', d.dispute_id)).status).toBe('lost');
  });

  it('closes once and moves money once when submit, accept and outcomes race', async () => {
    const { w, d } = await openDispute();
    const calls = Array.from({ length: 50 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return w.service.saveEvidence(1000, 'sandbox', d.dispute_id, {
            evidence: { customer_name: `n${i}` },
            submit: true,
          });
        case 1:
          return w.closer.accept(1000, 'sandbox', d.dispute_id);
        case 2:
          return w.closer.decide(1000, 'sandbox', d.dispute_id, 'won');
        default:
          return w.closer.decide(1000, 'sandbox', d.dispute_id, 'lost');
      }
    });
    await Promise.allSettled(calls);
    const subjects = w.subjects();
    expect(subjects.filter((s) => s === 'closed')).toHaveLength(1);
    expect(subjects.filter((s) => s === 'funds_withdrawn')).toHaveLength(1);
    expect(subjects.filter((s) => s === 'funds_reinstated').length).toBeLessThanOrEqual(1);
    expect(w.closed).toHaveLength(1);
  });
});

describe('DisputeService.list', () => {
  it('pages newest first with a cursor, and filters by status and charge', async () => {
    const w = disputeWorld();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const chargeId = await w.newCharge();
      ids.push(
        (await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' }))
          .dispute_id,
      );
      w.advance(1_000);
    }
    await w.closer.accept(1000, 'sandbox', ids[1]!);
    const first = await w.service.list(1000, 'sandbox', { limit: 2 });
    expect(first.disputes.map((d) => d.dispute_id)).toEqual([ids[4], ids[3]]);
    expect(first.has_more).toBe(true);
    const second = await w.service.list(1000, 'sandbox', { limit: 2, cursor: first.next_cursor! });
    expect(second.disputes.map((d) => d.dispute_id)).toEqual([ids[2], ids[1]]);
    const last = await w.service.list(1000, 'sandbox', { limit: 2, cursor: second.next_cursor! });
    expect(last).toMatchObject({ has_more: false, next_cursor: null });
    expect(last.disputes.map((d) => d.dispute_id)).toEqual([ids[0]]);
    const lost = await w.service.list(1000, 'sandbox', { status: 'lost' });
    expect(lost.disputes.map((d) => d.dispute_id)).toEqual([ids[1]]);
    expect((await w.service.list(3000, 'sandbox', {})).disputes).toEqual([]);
    expect(await errorOf(w.service.list(1000, 'sandbox', { cursor: 'bm9wZQ' }))).toEqual(['INVALID_CURSOR', 'cursor']);
  });
});
