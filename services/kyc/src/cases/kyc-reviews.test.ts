import { operatorWorld, OPERATOR, live, sandbox, SUB, submissionEvents } from '../memory-ports.test-util';
import { inHouseBody } from '../submissions/submission-bodies.test-util';

describe('the status machine through the service (spec 3.3)', () => {
  it('walks every in-house transition and refuses illegal ones with the current status', async () => {
    const w = operatorWorld();
    const first = await w.submissions.submit(sandbox, SUB, inHouseBody({ account_name: 'Somebody Else' }));
    const id = first.kyc.id;
    expect(first.kyc.status).toBe('pending_review');
    await expect(w.submissions.submit(sandbox, SUB, inHouseBody())).rejects.toMatchObject({
      code: 'KYC_TRANSITION_NOT_ALLOWED',
      message: 'KYC submission is pending_review; cannot submit',
      detail: 'pending_review',
    });
    await expect(w.reviews.decideInSandbox(sandbox, id, { action: 'revoke', reason: 'fraud' })).rejects.toMatchObject({
      code: 'KYC_TRANSITION_NOT_ALLOWED',
    });
    const rejected = await w.reviews.decideInSandbox(sandbox, id, { action: 'reject', reason: 'Blurry document' });
    expect(rejected).toMatchObject({ status: 'rejected', rejection_reason: 'Blurry document' });
    // A resubmission goes to a person even when it would pass auto-approval.
    const again = await w.submissions.submit(sandbox, SUB, inHouseBody());
    expect(again.kyc).toMatchObject({ id, status: 'pending_review', rejection_reason: null });
    const info = await w.reviews.decideInSandbox(sandbox, id, {
      action: 'request_info',
      message: 'Back of the ID card',
    });
    expect(info).toMatchObject({ status: 'additional_info_requested', additional_info_request: 'Back of the ID card' });
    expect((await w.submissions.submit(sandbox, SUB, inHouseBody())).kyc.status).toBe('pending_review');
    const approved = await w.reviews.decideInSandbox(sandbox, id, { action: 'approve' });
    expect(approved.status).toBe('approved');
    await expect(w.reviews.decideInSandbox(sandbox, id, { action: 'approve' })).rejects.toMatchObject({
      message: 'KYC submission is approved; cannot approve',
    });
    const revoked = await w.reviews.decideInSandbox(sandbox, id, { action: 'revoke', reason: 'Chargeback fraud' });
    expect(revoked).toMatchObject({ status: 'revoked', rejection_reason: 'Chargeback fraud' });
    await expect(w.submissions.submit(sandbox, SUB, inHouseBody())).rejects.toMatchObject({
      message: 'KYC submission is revoked; cannot submit',
    });
    expect(submissionEvents(w).map((e) => [e.previous_status, e.change, e.status])).toEqual([
      ['not_started', 'submitted', 'pending_review'],
      ['pending_review', 'rejected', 'rejected'],
      ['rejected', 'resubmitted', 'pending_review'],
      ['pending_review', 'info_requested', 'additional_info_requested'],
      ['additional_info_requested', 'resubmitted', 'pending_review'],
      ['pending_review', 'approved', 'approved'],
      ['approved', 'revoked', 'revoked'],
    ]);
    expect(submissionEvents(w).map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(w.cases.docs.get(id)!.history.map((h) => [h.action, h.actor])).toEqual([
      ['submit', 'operator'],
      ['reject', 'sandbox'],
      ['resubmit', 'operator'],
      ['request_info', 'sandbox'],
      ['resubmit', 'operator'],
      ['approve', 'sandbox'],
      ['revoke', 'sandbox'],
    ]);
  });

  it('validates reasons and messages', async () => {
    const w = operatorWorld();
    const { kyc } = await w.submissions.submit(sandbox, SUB, inHouseBody({ account_name: 'Somebody Else' }));
    await expect(w.reviews.decideInSandbox(sandbox, kyc.id, { action: 'reject', reason: 'no' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'reason',
    });
    await expect(
      w.reviews.decideInSandbox(sandbox, kyc.id, { action: 'request_info', message: ' ' }),
    ).rejects.toMatchObject({
      param: 'message',
    });
  });

  it('retries a write that lost a race', async () => {
    const w = operatorWorld();
    const { kyc } = await w.submissions.submit(sandbox, SUB, inHouseBody({ account_name: 'Somebody Else' }));
    w.cases.loseNextSave = true;
    expect((await w.reviews.decideInSandbox(sandbox, kyc.id, { action: 'approve' })).status).toBe('approved');
  });
});

describe('review decisions: sandbox helpers and the admin queue are kept apart by mode', () => {
  it('sandbox helpers need a sandbox key and a sandbox submission of one of the operator’s merchants', async () => {
    const w = operatorWorld();
    const s = await w.submissions.submit(sandbox, SUB, inHouseBody({ account_name: 'Somebody Else' }));
    const l = await w.submissions.submit(live, SUB, inHouseBody({ account_name: 'Somebody Else' }));
    expect(s.kyc.id).not.toBe(l.kyc.id);
    await expect(w.reviews.decideInSandbox(live, s.kyc.id, { action: 'approve' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(w.reviews.decideInSandbox(sandbox, l.kyc.id, { action: 'approve' })).rejects.toMatchObject({
      code: 'KYC_SUBMISSION_NOT_FOUND',
    });
    w.directory.addOperator(20);
    await expect(
      w.reviews.decideInSandbox({ operatorId: 20, mode: 'sandbox' }, s.kyc.id, { action: 'approve' }),
    ).rejects.toMatchObject({ code: 'KYC_SUBMISSION_NOT_FOUND' });
    await expect(w.reviews.decideInSandbox(sandbox, 999, { action: 'approve' })).rejects.toMatchObject({
      code: 'KYC_SUBMISSION_NOT_FOUND',
    });
  });

  it('the admin queue lists live pending submissions only, oldest first, and decides on live ones only', async () => {
    const w = operatorWorld();
    w.directory.addSub(OPERATOR, 1002);
    await w.submissions.submit(sandbox, SUB, inHouseBody({ account_name: 'Somebody Else' }));
    const first = await w.submissions.submit(live, SUB, inHouseBody({ account_name: 'Somebody Else' }));
    w.clock.advance(1000);
    const second = await w.submissions.submit(live, 1002, inHouseBody({ account_name: 'Somebody Else' }));
    const queue = await w.reviews.listForReview('pending_review', 1, 20);
    expect(queue.items.map((c) => c.id)).toEqual([first.kyc.id, second.kyc.id]);
    expect(queue.total).toBe(2);
    const sandboxCase = (await w.cases.findByMerchant(SUB, 'sandbox'))!;
    await expect(w.reviews.decideAsAdmin('usr_admin', sandboxCase.id, { action: 'approve' })).rejects.toMatchObject({
      code: 'KYC_SUBMISSION_NOT_FOUND',
    });
    await expect(w.reviews.getForReview(sandboxCase.id)).rejects.toMatchObject({ code: 'KYC_SUBMISSION_NOT_FOUND' });
    const approved = await w.reviews.decideAsAdmin('usr_admin', first.kyc.id, { action: 'approve' });
    expect(approved.history.at(-1)).toMatchObject({ action: 'approve', actor: 'admin', actor_id: 'usr_admin' });
    expect((await w.reviews.listForReview('pending_review', 1, 20)).items.map((c) => c.id)).toEqual([second.kyc.id]);
    expect(await w.cases.queueStats('live')).toEqual({ count: 1, oldest: second.kyc.submitted_at });
  });
});
