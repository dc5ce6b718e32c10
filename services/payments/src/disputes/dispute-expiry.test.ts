import { DAY, disputeWorld } from './disputes.test-util';

async function openDispute() {
  const w = disputeWorld();
  const chargeId = await w.newCharge();
  await w.settleLedger();
  const d = await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' });
  await w.settleLedger();
  return { w, d, chargeId };
}

describe('DisputeCloser at the evidence due date', () => {
  it('submits a saved draft instead of losing the dispute, and moves no money', async () => {
    const { w, d, chargeId } = await openDispute();
    await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, {
      evidence: { customer_name: 'Ada', receipt_url: 'https://shop.example/r/1' },
      submit: false,
    });
    const balance = w.balance(1000);
    w.advance(7 * DAY);
    const due = w.now();
    expect(await w.closer.expireDue()).toBe(1);
    const after = await w.service.get(1000, 'sandbox', d.dispute_id);
    expect(after).toMatchObject({
      status: 'under_review',
      evidence_submitted_at: due,
      closed_at: null,
      evidence: { customer_name: 'Ada', receipt_url: 'https://shop.example/r/1' },
    });
    expect(w.disputeProcessors.submitted).toEqual([d.dispute_id]);
    expect(w.subjects()).toEqual(['created', 'funds_withdrawn', 'updated', 'updated']);
    expect(w.closed).toEqual([]);
    expect((await w.charges.findForMerchant(1000, 'sandbox', chargeId))!.dispute).toMatchObject({ status: 'open' });
    await w.settleLedger();
    expect(w.balance(1000)).toBe(balance);
    // Nothing left for the sweep; the processor decides it as any submitted dispute.
    expect(await w.closer.expireDue()).toBe(0);
    expect((await w.closer.decide(1000, 'sandbox', d.dispute_id, 'won')).status).toBe('won');
  });

  it('schedules the outcome the processor announces for a draft it submits', async () => {
    const { w, d } = await openDispute();
    await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, {
      evidence: { uncategorized_text: 'winning_evidence' },
      submit: false,
    });
    w.disputeProcessors.answer = { scheduled_outcome: { status: 'won', after_ms: 2_000 } };
    w.advance(7 * DAY);
    expect(await w.closer.expireDue()).toBe(1);
    w.advance(2_000);
    expect(await w.closer.decideDue()).toBe(1);
    expect((await w.service.get(1000, 'sandbox', d.dispute_id)).status).toBe('won');
  });

  it('loses a dispute with nothing saved, including a draft whose every field was cleared', async () => {
    const { w, d } = await openDispute();
    await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence: { customer_name: 'Ada' }, submit: false });
    await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence: { customer_name: null }, submit: false });
    w.advance(7 * DAY);
    expect(await w.closer.expireDue()).toBe(1);
    expect((await w.service.get(1000, 'sandbox', d.dispute_id)).status).toBe('lost');
    expect(w.disputeProcessors.submitted).toEqual([]);
    expect(w.closed).toEqual([`${d.dispute_id}:lost:expired`]);
  });

  it('does the same at once on the sandbox expire: a draft is submitted, no draft is lost', async () => {
    const { w, d } = await openDispute();
    await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence: { customer_name: 'Ada' }, submit: false });
    expect(await w.closer.expireNow(1000, 'sandbox', d.dispute_id)).toMatchObject({
      status: 'under_review',
      evidence_due_by: w.now(),
      evidence_submitted_at: w.now(),
    });
    const other = await w.newCharge();
    const d2 = await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: other, source: 'sandbox_api' });
    expect((await w.closer.expireNow(1000, 'sandbox', d2.dispute_id)).status).toBe('lost');
  });

  it('goes on past a dispute its processor fails on, which the next sweep submits', async () => {
    const { w, d } = await openDispute();
    await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence: { customer_name: 'Ada' }, submit: false });
    const other = await w.newCharge();
    const d2 = await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: other, source: 'sandbox_api' });
    w.advance(7 * DAY);
    const forMode = w.disputeProcessors.forMode.bind(w.disputeProcessors);
    w.disputeProcessors.forMode = () => ({
      submitEvidence: async () => {
        throw new Error('processor timed out');
      },
      accept: async () => undefined,
    });
    await expect(w.closer.expireDue()).rejects.toThrow('processor timed out');
    expect((await w.service.get(1000, 'sandbox', d.dispute_id)).status).toBe('needs_response');
    expect((await w.service.get(1000, 'sandbox', d2.dispute_id)).status).toBe('lost');
    w.disputeProcessors.forMode = forMode;
    expect(await w.closer.expireDue()).toBe(1);
    expect((await w.service.get(1000, 'sandbox', d.dispute_id)).status).toBe('under_review');
  });
});
