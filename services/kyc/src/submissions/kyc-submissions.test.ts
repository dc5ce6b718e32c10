import type { KycPayoutAccountUpdated, KycSubmissionUpdated } from '@ppay/kernel';
import { nubanCheckDigit } from './account-numbers';
import { payoutEligible, submissionResource } from '../cases/kyc-case';
import { CONNECTED_MESSAGE, IN_HOUSE_MESSAGES, type OperatorCaller } from './kyc-submissions';
import { asDecoded, kycWorld, LINK_TTL_MS } from '../memory-ports.test-util';

const OPERATOR = 10;
const SUB = 1001;
const sandbox: OperatorCaller = { operatorId: OPERATOR, mode: 'sandbox' };
const live: OperatorCaller = { operatorId: OPERATOR, mode: 'live' };
const nuban = (code: string, serial: string) => serial + String(nubanCheckDigit(code, serial));
const GOOD_NUBAN = nuban('044', '069012345');
const badCheckDigit = (n: string) => n.slice(0, 9) + String((Number(n[9]) + 1) % 10);

function inHouse(bank: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    id_country: 'NG',
    account_type: 'individual',
    owner: {
      first_name: 'John',
      last_name: 'Adebayo',
      date_of_birth: '1990-05-17',
      id_type: 'nin',
      id_number: '12345678901',
      id_document_url: 'https://files.example.com/id.png',
    },
    bank_account: { bank_name: 'Access Bank', account_number: GOOD_NUBAN, account_name: 'ADEBAYO JOHN', ...bank },
    ...extra,
  };
}

const connectedBody = (extra: Record<string, unknown> = {}) => ({
  country: 'US',
  return_url: 'https://shop.example.com/return',
  refresh_url: 'https://shop.example.com/refresh',
  ...extra,
});

function setup() {
  const w = kycWorld();
  w.directory.addOperator(OPERATOR);
  w.directory.addSub(OPERATOR, SUB);
  return w;
}

const submissionEvents = (w: ReturnType<typeof setup>) =>
  w.cases.events.filter((e) => e.subject === 'kyc.submission.updated').map((e) => e.data as KycSubmissionUpdated);

describe('in-house KYC submission', () => {
  it('auto-approves valid Nigerian bank details without mismatch, sealing and masking the numbers', async () => {
    const w = setup();
    const res = await w.kyc.submit(sandbox, SUB, asDecoded('SubmitKyc', inHouse()));
    expect(res.kind).toBe('in_house');
    expect(res.message).toBe(IN_HOUSE_MESSAGES.approved);
    const c = res.kyc;
    expect(c).toMatchObject({
      status: 'approved',
      provider: 'service',
      legal_name: 'John Adebayo',
      settlement_currency: 'NGN',
      country_mismatch: false,
      review: { decision: 'auto_approve', reasons: [] },
    });
    expect(c.reviewed_at).toEqual(w.clock.now());
    expect(c.review!.name_match_score).toBeGreaterThanOrEqual(0.85);
    // Account and ID numbers are stored sealed, shown masked.
    expect(w.sealer.sealed).toEqual(['12345678901', GOOD_NUBAN]);
    expect(JSON.stringify(w.cases.docs.get(c.id))).not.toContain(GOOD_NUBAN);
    expect(JSON.stringify(w.cases.docs.get(c.id))).not.toContain('12345678901');
    expect(submissionResource(c, SUB)).toMatchObject({
      bank_account_number: `******${GOOD_NUBAN.slice(-4)}`,
      bank_sort_code: null,
      payouts_enabled: false,
    });
    expect(submissionEvents(w)).toEqual([
      expect.objectContaining({
        submission_id: c.id,
        merchant_id: SUB,
        marketplace_id: OPERATOR,
        mode: 'sandbox',
        status: 'approved',
        previous_status: 'not_started',
        change: 'auto_approved',
        payout_eligible: false,
        version: 1,
      }),
    ]);
    expect(w.cases.events[0]).toMatchObject({ merchant_id: OPERATOR, mode: 'sandbox' });
  });

  it.each([
    ['a name that does not match', { account_name: 'Ngozi Eze' }, {}, ['name_mismatch:0.00']],
    [
      'a country mismatch',
      {},
      { id_country: 'GH', owner: { ...inHouse().owner, id_type: 'passport', id_number: 'G1234567' } },
      ['country_mismatch'],
    ],
    [
      'a bad check digit at a microfinance bank',
      { bank_name: 'Kuda Microfinance Bank', account_number: badCheckDigit(nuban('950211', '200123456')) },
      {},
      ['invalid_nuban'],
    ],
    ['a wallet without a check digit', { bank_name: 'Opay', account_number: '8031234567' }, {}, ['no_check_digit']],
    [
      'a bank outside Nigeria',
      { bank_name: 'GCB Bank', account_number: '1234567890123' },
      { id_country: 'GH', owner: { ...inHouse().owner, id_type: 'passport', id_number: 'G1234567' } },
      ['not_nigerian_bank'],
    ],
  ])('sends %s to manual review with the evidence', async (_what, bank, extra, reasons) => {
    const w = setup();
    const res = await w.kyc.submit(sandbox, SUB, inHouse(bank, extra));
    expect(res.message).toBe(IN_HOUSE_MESSAGES.pending_review);
    expect(res.kyc).toMatchObject({ status: 'pending_review', review: { decision: 'manual_review', reasons } });
    expect(res.kyc.reviewed_at).toBeNull();
    expect(submissionEvents(w)[0]).toMatchObject({ change: 'submitted', status: 'pending_review' });
  });

  it('refuses a bad check digit at a commercial bank and an unknown bank, naming the field', async () => {
    const w = setup();
    await expect(
      w.kyc.submit(sandbox, SUB, inHouse({ account_number: badCheckDigit(GOOD_NUBAN) })),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'bank_account.account_number',
      message: 'bank_account.account_number must be a valid 10-digit NUBAN for Access Bank',
    });
    await expect(w.kyc.submit(sandbox, SUB, inHouse({ bank_name: 'Bank of Nowhere' }))).rejects.toMatchObject({
      param: 'bank_account.bank_name',
      message: 'bank_account.bank_name "Bank of Nowhere" is not a supported bank; see GET /marketplace/payout/banks',
    });
    expect(w.cases.docs.size).toBe(0);
  });

  it('checks the body (spec 7.2 order) before the operator and the relationship', async () => {
    const w = setup();
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'country or id_country is required'],
      [{ id_country: 'NG' }, 'account_type is required'],
      [{ country: 'KE', account_type: 'individual' }, 'owner object is required for African markets'],
      [
        { id_country: 'ZA', account_type: 'registered_business', owner: inHouse().owner },
        'business object is required for registered businesses',
      ],
      [{ country: 'FR' }, 'return_url and refresh_url are required for connected-account onboarding'],
    ];
    for (const [body, message] of cases) {
      // As decoded by the gRPC contract: absent strings are '' and absent messages null.
      await expect(
        w.kyc.submit({ operatorId: 999, mode: 'sandbox' }, 424242, asDecoded('SubmitKyc', body)),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message,
      });
    }
    expect(w.directory.calls).toBe(0);
    await expect(w.kyc.submit({ operatorId: 999, mode: 'sandbox' }, SUB, inHouse())).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    w.directory.addOperator(20);
    await expect(w.kyc.submit({ operatorId: 20, mode: 'sandbox' }, SUB, inHouse())).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    w.directory.addSub(OPERATOR, 1002, 'NG', 'NGN', false);
    await expect(w.kyc.submit(sandbox, 1002, inHouse())).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
  });

  it('accepts the flat (legacy) body and a registered business', async () => {
    const w = setup();
    const flat = {
      country: 'NG',
      account_type: 'registered_business',
      first_name: 'John',
      last_name: 'Adebayo',
      date_of_birth: '1990-05-17',
      id_type: 'bvn',
      id_number: '22345678901',
      business_name: 'Adebayo Foods Ltd',
      registration_number: 'RC123456',
      bank_name: 'Access Bank',
      account_number: GOOD_NUBAN,
      account_name: 'ADEBAYO FOODS LIMITED',
    };
    const res = await w.kyc.submit(sandbox, SUB, asDecoded('SubmitKyc', flat));
    expect(res.kyc).toMatchObject({
      format: 'flat',
      business_type: 'registered_business',
      legal_name: 'Adebayo Foods Ltd',
      business: { registered_name: 'Adebayo Foods Ltd', registration_number: 'RC123456' },
      status: 'approved',
    });
  });
});

describe('the status machine through the service (spec 3.3)', () => {
  it('walks every in-house transition and refuses illegal ones with the current status', async () => {
    const w = setup();
    const first = await w.kyc.submit(sandbox, SUB, inHouse({ account_name: 'Somebody Else' }));
    const id = first.kyc.id;
    expect(first.kyc.status).toBe('pending_review');
    await expect(w.kyc.submit(sandbox, SUB, inHouse())).rejects.toMatchObject({
      code: 'KYC_TRANSITION_NOT_ALLOWED',
      message: 'KYC submission is pending_review; cannot submit',
      detail: 'pending_review',
    });
    await expect(w.kyc.decideInSandbox(sandbox, id, { action: 'revoke', reason: 'fraud' })).rejects.toMatchObject({
      code: 'KYC_TRANSITION_NOT_ALLOWED',
    });
    const rejected = await w.kyc.decideInSandbox(sandbox, id, { action: 'reject', reason: 'Blurry document' });
    expect(rejected).toMatchObject({ status: 'rejected', rejection_reason: 'Blurry document' });
    // A resubmission goes to a person even when it would pass auto-approval.
    const again = await w.kyc.submit(sandbox, SUB, inHouse());
    expect(again.kyc).toMatchObject({ id, status: 'pending_review', rejection_reason: null });
    const info = await w.kyc.decideInSandbox(sandbox, id, { action: 'request_info', message: 'Back of the ID card' });
    expect(info).toMatchObject({ status: 'additional_info_requested', additional_info_request: 'Back of the ID card' });
    expect((await w.kyc.submit(sandbox, SUB, inHouse())).kyc.status).toBe('pending_review');
    const approved = await w.kyc.decideInSandbox(sandbox, id, { action: 'approve' });
    expect(approved.status).toBe('approved');
    await expect(w.kyc.decideInSandbox(sandbox, id, { action: 'approve' })).rejects.toMatchObject({
      message: 'KYC submission is approved; cannot approve',
    });
    const revoked = await w.kyc.decideInSandbox(sandbox, id, { action: 'revoke', reason: 'Chargeback fraud' });
    expect(revoked).toMatchObject({ status: 'revoked', rejection_reason: 'Chargeback fraud' });
    await expect(w.kyc.submit(sandbox, SUB, inHouse())).rejects.toMatchObject({
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
    const w = setup();
    const { kyc } = await w.kyc.submit(sandbox, SUB, inHouse({ account_name: 'Somebody Else' }));
    await expect(w.kyc.decideInSandbox(sandbox, kyc.id, { action: 'reject', reason: 'no' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'reason',
    });
    await expect(
      w.kyc.decideInSandbox(sandbox, kyc.id, { action: 'request_info', message: ' ' }),
    ).rejects.toMatchObject({
      param: 'message',
    });
  });

  it('retries a write that lost a race', async () => {
    const w = setup();
    const { kyc } = await w.kyc.submit(sandbox, SUB, inHouse({ account_name: 'Somebody Else' }));
    w.cases.loseNextSave = true;
    expect((await w.kyc.decideInSandbox(sandbox, kyc.id, { action: 'approve' })).status).toBe('approved');
  });
});

describe('review decisions: sandbox helpers and the admin queue are kept apart by mode', () => {
  it('sandbox helpers need a sandbox key and a sandbox submission of one of the operator’s merchants', async () => {
    const w = setup();
    const s = await w.kyc.submit(sandbox, SUB, inHouse({ account_name: 'Somebody Else' }));
    const l = await w.kyc.submit(live, SUB, inHouse({ account_name: 'Somebody Else' }));
    expect(s.kyc.id).not.toBe(l.kyc.id);
    await expect(w.kyc.decideInSandbox(live, s.kyc.id, { action: 'approve' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(w.kyc.decideInSandbox(sandbox, l.kyc.id, { action: 'approve' })).rejects.toMatchObject({
      code: 'KYC_SUBMISSION_NOT_FOUND',
    });
    w.directory.addOperator(20);
    await expect(
      w.kyc.decideInSandbox({ operatorId: 20, mode: 'sandbox' }, s.kyc.id, { action: 'approve' }),
    ).rejects.toMatchObject({ code: 'KYC_SUBMISSION_NOT_FOUND' });
    await expect(w.kyc.decideInSandbox(sandbox, 999, { action: 'approve' })).rejects.toMatchObject({
      code: 'KYC_SUBMISSION_NOT_FOUND',
    });
  });

  it('the admin queue lists live pending submissions only, oldest first, and decides on live ones only', async () => {
    const w = setup();
    w.directory.addSub(OPERATOR, 1002);
    await w.kyc.submit(sandbox, SUB, inHouse({ account_name: 'Somebody Else' }));
    const first = await w.kyc.submit(live, SUB, inHouse({ account_name: 'Somebody Else' }));
    w.clock.advance(1000);
    const second = await w.kyc.submit(live, 1002, inHouse({ account_name: 'Somebody Else' }));
    const queue = await w.kyc.listForReview('pending_review', 1, 20);
    expect(queue.items.map((c) => c.id)).toEqual([first.kyc.id, second.kyc.id]);
    expect(queue.total).toBe(2);
    const sandboxCase = (await w.cases.findByMerchant(SUB, 'sandbox'))!;
    await expect(w.kyc.decideAsAdmin('usr_admin', sandboxCase.id, { action: 'approve' })).rejects.toMatchObject({
      code: 'KYC_SUBMISSION_NOT_FOUND',
    });
    await expect(w.kyc.getForReview(sandboxCase.id)).rejects.toMatchObject({ code: 'KYC_SUBMISSION_NOT_FOUND' });
    const approved = await w.kyc.decideAsAdmin('usr_admin', first.kyc.id, { action: 'approve' });
    expect(approved.history.at(-1)).toMatchObject({ action: 'approve', actor: 'admin', actor_id: 'usr_admin' });
    expect((await w.kyc.listForReview('pending_review', 1, 20)).items.map((c) => c.id)).toEqual([second.kyc.id]);
    expect(await w.cases.queueStats('live')).toEqual({ count: 1, oldest: second.kyc.submitted_at });
  });
});

describe('connected-account route', () => {
  it('creates a sandbox connected account and a single-use onboarding link', async () => {
    const w = setup();
    const res = await w.kyc.submit(
      sandbox,
      SUB,
      asDecoded('SubmitKyc', connectedBody({ business_type: 'registered_business' })),
    );
    if (res.kind !== 'connected') throw new Error('expected the connected route');
    expect(res.message).toBe(CONNECTED_MESSAGE);
    expect(res.kyc).toMatchObject({
      status: 'pending_onboarding',
      provider: 'gateway',
      settlement_currency: 'USD',
      business_type: 'registered_business',
      connected: { gateway_account_id: 'acct_test1', gateway_region: 'US', country: 'US' },
    });
    expect(res.token).toMatch(/^onb_[A-Za-z0-9]{32}$/);
    expect(res.client_secret).toMatch(/^acct_test1_secret_/);
    expect(res.expires_at.getTime() - w.clock.now().getTime()).toBe(LINK_TTL_MS);
    const stored = JSON.stringify(w.cases.docs.get(res.kyc.id));
    expect(stored).not.toContain(res.token);
    expect(stored).not.toContain(res.client_secret);
    expect(submissionEvents(w)[0]).toMatchObject({ change: 'onboarding_started', provider: 'gateway' });

    const view = await w.kyc.onboardingLink(res.token);
    expect(view).toMatchObject({ state: 'active', refreshUrl: 'https://shop.example.com/refresh' });
    const done = await w.kyc.finishOnboarding(res.token, 'complete');
    expect(done).toEqual({ state: 'done', redirectUrl: 'https://shop.example.com/return' });
    expect((await w.cases.findById(res.kyc.id))!.status).toBe('approved');
    expect(submissionEvents(w).at(-1)).toMatchObject({ change: 'onboarding_completed', status: 'approved' });
    // Single use: the same link now leads to refresh_url and changes nothing.
    expect(await w.kyc.finishOnboarding(res.token, 'abandon')).toEqual({
      state: 'used',
      redirectUrl: 'https://shop.example.com/refresh',
    });
    await expect(w.kyc.onboardingLink('onb_' + 'x'.repeat(32))).rejects.toMatchObject({
      code: 'ONBOARDING_LINK_NOT_FOUND',
    });
    await expect(w.kyc.onboardingLink('nonsense')).rejects.toMatchObject({ code: 'ONBOARDING_LINK_NOT_FOUND' });
  });

  it('abandoning keeps the status; a new link supersedes the old one; an expired link goes to refresh_url', async () => {
    const w = setup();
    const first = await w.kyc.submit(sandbox, SUB, connectedBody());
    if (first.kind !== 'connected') throw new Error('connected');
    const second = await w.kyc.submit(sandbox, SUB, connectedBody({ refresh_url: 'https://shop.example.com/again' }));
    if (second.kind !== 'connected') throw new Error('connected');
    expect(second.kyc.connected!.gateway_account_id).toBe(first.kyc.connected!.gateway_account_id);
    expect(w.gateway.created).toBe(1);
    expect(submissionEvents(w)).toHaveLength(1); // a new link is not a status change
    expect(await w.kyc.finishOnboarding(first.token, 'complete')).toEqual({
      state: 'used',
      redirectUrl: 'https://shop.example.com/refresh',
    });
    expect(await w.kyc.finishOnboarding(second.token, 'abandon')).toEqual({
      state: 'done',
      redirectUrl: 'https://shop.example.com/return',
    });
    expect((await w.cases.findById(second.kyc.id))!.status).toBe('pending_onboarding');

    const third = await w.kyc.submit(sandbox, SUB, connectedBody());
    if (third.kind !== 'connected') throw new Error('connected');
    w.clock.advance(LINK_TTL_MS);
    expect((await w.kyc.onboardingLink(third.token)).state).toBe('expired');
    expect(await w.kyc.finishOnboarding(third.token, 'complete')).toEqual({
      state: 'expired',
      redirectUrl: 'https://shop.example.com/refresh',
    });
    expect((await w.cases.findById(third.kyc.id))!.status).toBe('pending_onboarding');
  });

  it('the sandbox gateway may decline (rejected), after which onboarding can start again', async () => {
    const w = setup();
    const first = await w.kyc.submit(sandbox, SUB, connectedBody());
    if (first.kind !== 'connected') throw new Error('connected');
    await w.kyc.finishOnboarding(first.token, 'reject');
    expect((await w.cases.findById(first.kyc.id))!).toMatchObject({
      status: 'rejected',
      rejection_reason: 'Declined by the connected-account gateway',
    });
    expect((await w.kyc.submit(sandbox, SUB, connectedBody())).kyc.status).toBe('pending_onboarding');
    // The sandbox helper's approve ends onboarding too.
    expect((await w.kyc.decideInSandbox(sandbox, first.kyc.id, { action: 'approve' })).status).toBe('approved');
    await expect(w.kyc.submit(sandbox, SUB, connectedBody())).rejects.toMatchObject({
      message: 'KYC submission is approved; cannot start_onboarding',
    });
  });

  it('live keys get no connected account (no live gateway is configured)', async () => {
    const w = setup();
    await expect(w.kyc.submit(live, SUB, connectedBody())).rejects.toMatchObject({ code: 'GATEWAY_NOT_CONFIGURED' });
    expect(w.gateway.created).toBe(0);
  });

  it('an explicit preferred_currency wins; EU countries default to EUR in the EU region', async () => {
    const w = setup();
    w.directory.addSub(OPERATOR, 1002);
    expect((await w.kyc.submit(sandbox, SUB, connectedBody({ country: 'DE' }))).kyc).toMatchObject({
      settlement_currency: 'EUR',
      connected: { gateway_region: 'EU' },
    });
    expect(
      (await w.kyc.submit(sandbox, 1002, connectedBody({ country: 'GB', preferred_currency: 'usd' }))).kyc
        .settlement_currency,
    ).toBe('USD');
  });
});

describe('payout eligibility and the payout account on resubmission', () => {
  it('a resubmission that moves the settlement currency detaches the payout account', async () => {
    const w = setup();
    const first = await w.kyc.submit(sandbox, SUB, inHouse({ account_name: 'Somebody Else' }));
    await w.payouts.setup(sandbox, SUB, {});
    expect(payoutEligible((await w.cases.findById(first.kyc.id))!)).toBe(false);
    await w.kyc.decideInSandbox(sandbox, first.kyc.id, { action: 'reject', reason: 'Wrong bank' });
    const ghana = inHouse(
      { bank_name: 'GCB Bank', account_number: '1234567890123' },
      { id_country: 'GH', owner: { ...inHouse().owner, id_type: 'passport', id_number: 'G1234567' } },
    );
    const again = await w.kyc.submit(sandbox, SUB, ghana);
    expect(again.kyc.settlement_currency).toBe('GHS');
    expect(again.kyc.payout).toMatchObject({ account: null });
    const detached = w.cases.events
      .filter((e) => e.subject === 'kyc.payout_account.updated')
      .map((e) => e.data as KycPayoutAccountUpdated);
    expect(detached.map((e) => e.change)).toEqual(['created', 'detached']);
    expect(detached[1]).toMatchObject({ account: null, payout_eligible: false });
  });
});
