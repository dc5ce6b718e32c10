import type { KycPayoutAccountUpdated } from '@ppay/kernel';
import { payoutEligible, submissionResource } from '../cases/kyc-case';
import {
  asDecoded,
  LINK_TTL_MS,
  live,
  OPERATOR,
  operatorWorld,
  sandbox,
  SUB,
  submissionEvents,
  type kycWorld,
} from '../memory-ports.test-util';
import type { KycMetrics } from '../ports';
import { CONNECTED_MESSAGE } from './connected-account-route';
import { IN_HOUSE_MESSAGES } from './in-house-route';
import { KycSubmissionService, submissionRoutes } from './kyc-submissions';
import type { KycSubmissionInput } from './submission';
import { ACCESS_NUBAN, badCheckDigit, connectedBody, inHouseBody, nuban } from './submission-bodies.test-util';
import type { SubmissionAttempt, SubmissionRoute } from './submission-route';

const US_SUB = 1002;

/** The service over the real routes, each wrapped to record the attempts it is given. */
function spiedService(w: ReturnType<typeof kycWorld>) {
  const attempts: [string, SubmissionAttempt<KycSubmissionInput>][] = [];
  const submitted: string[] = [];
  const metrics: KycMetrics = {
    submitted: (route, status) => submitted.push(`${route}:${status}`),
    decided() {},
    payoutAccount() {},
    nameEnquiry() {},
  };
  const routes = submissionRoutes(
    { cases: w.cases, banks: w.banks, sealer: w.sealer, providers: { sandbox: w.gateway }, nameEnquiry: w.nameEnquiry },
    { linkTtlMs: LINK_TTL_MS },
  );
  const spy = <S extends KycSubmissionInput>(name: string, route: SubmissionRoute<S>): SubmissionRoute<S> => ({
    attempt(attempt) {
      attempts.push([name, attempt]);
      return route.attempt(attempt);
    },
  });
  const service = new KycSubmissionService({
    cases: w.cases,
    directory: w.directory,
    banks: w.banks,
    metrics,
    now: w.clock.now,
    routes: {
      in_house: spy('in_house', routes.in_house),
      connected_account: spy('connected_account', routes.connected_account),
    },
  });
  return { service, attempts, submitted };
}

describe('KycSubmissionService', () => {
  it('hands each submission to the route of its country and writes what the route built', async () => {
    const w = operatorWorld();
    w.directory.addSub(OPERATOR, US_SUB, 'US', 'USD');
    const { service, attempts, submitted } = spiedService(w);
    const ng = await service.submit(sandbox, SUB, inHouseBody());
    const us = await service.submit(sandbox, US_SUB, connectedBody());
    expect(attempts.map(([route, a]) => [route, a.merchantId, a.existing, a.previous])).toEqual([
      ['in_house', SUB, null, null],
      ['connected_account', US_SUB, null, null],
    ]);
    expect(attempts[0][1]).toMatchObject({ caller: sandbox, sub: { marketplace_id: OPERATOR } });
    expect(await w.cases.findById(ng.kyc.id)).toEqual(ng.kyc);
    expect(await w.cases.findById(us.kyc.id)).toEqual(us.kyc);
    expect(submitted).toEqual(['in_house:approved', 'connected_account:pending_onboarding']);
  });

  it('tries again on the case as it is now when the write lost a race, telling the route what it built', async () => {
    const w = operatorWorld();
    const { service, attempts, submitted } = spiedService(w);
    const first = await service.submit(sandbox, SUB, connectedBody());
    w.cases.loseNextSave = true;
    const again = await service.submit(sandbox, SUB, connectedBody());
    const [, lost] = attempts[1];
    const [, retried] = attempts[2];
    expect(attempts).toHaveLength(3);
    expect(lost).toMatchObject({ existing: { version: 1 }, previous: null });
    expect(retried).toMatchObject({ existing: { version: 2 } });
    expect(retried.previous?.result.kyc.connected).toEqual(first.kyc.connected);
    expect(again.kyc).toMatchObject({ version: 3, connected: first.kyc.connected });
    expect(w.gateway.created).toBe(1);
    expect(submitted).toEqual(['connected_account:pending_onboarding', 'connected_account:pending_onboarding']);
  });

  it('answers CONFLICT when every attempt loses its race', async () => {
    const w = operatorWorld();
    const { service, attempts } = spiedService(w);
    await service.submit(sandbox, SUB, connectedBody());
    w.cases.save = async () => false;
    await expect(service.submit(sandbox, SUB, connectedBody())).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(attempts).toHaveLength(4);
  });

  it('checks the operator and the relationship before the body, then the body in spec 7.2 order (Hardening 2 item 12)', async () => {
    const w = operatorWorld();
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'country or id_country is required'],
      [{ id_country: 'NG' }, 'account_type is required'],
      [{ country: 'KE', account_type: 'individual' }, 'owner object is required for African markets'],
      [
        { id_country: 'ZA', account_type: 'registered_business', owner: inHouseBody().owner },
        'business object is required for registered businesses',
      ],
      [{ country: 'FR' }, 'return_url and refresh_url are required for connected-account onboarding'],
      [{ id_country: 'NG', account_type: 'individual', owner: { first_name: 'Ada' } }, 'owner.last_name is required'],
    ];
    w.directory.addOperator(20);
    w.directory.addSub(OPERATOR, 1002, 'NG', 'NGN', false);
    for (const [body, message] of cases) {
      // As decoded by the gRPC contract: absent strings are '' and absent messages null.
      const decoded = asDecoded('SubmitKyc', body);
      await expect(w.submissions.submit({ operatorId: 999, mode: 'sandbox' }, SUB, decoded)).rejects.toMatchObject({
        code: 'MARKETPLACE_OPERATOR_REQUIRED',
      });
      for (const [operatorId, merchantId] of [
        [20, SUB], // another operator's sub-merchant
        [OPERATOR, 424242], // nobody's
        [OPERATOR, 1002], // suspended
      ]) {
        await expect(w.submissions.submit({ operatorId, mode: 'sandbox' }, merchantId, decoded)).rejects.toMatchObject({
          code: 'RELATIONSHIP_NOT_FOUND',
        });
      }
      await expect(w.submissions.submit(sandbox, SUB, decoded)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message,
      });
    }
    expect(await w.cases.findByMerchant(SUB, 'sandbox')).toBeNull();
  });
});

describe('in-house submissions through the service', () => {
  it('auto-approves valid Nigerian bank details without mismatch, sealing and masking the numbers', async () => {
    const w = operatorWorld();
    const res = await w.submissions.submit(sandbox, SUB, asDecoded('SubmitKyc', inHouseBody()));
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
    expect([w.sealer.sealed[0], w.sealer.sealed.at(-1)]).toEqual(['12345678901', ACCESS_NUBAN]);
    expect(JSON.stringify(w.cases.docs.get(c.id))).not.toContain(ACCESS_NUBAN);
    expect(JSON.stringify(w.cases.docs.get(c.id))).not.toContain('12345678901');
    expect(submissionResource(c, SUB)).toMatchObject({
      bank_account_number: `******${ACCESS_NUBAN.slice(-4)}`,
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
      { id_country: 'GH', owner: { ...inHouseBody().owner, id_type: 'passport', id_number: 'G1234567' } },
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
      { id_country: 'GH', owner: { ...inHouseBody().owner, id_type: 'passport', id_number: 'G1234567' } },
      ['not_nigerian_bank'],
    ],
  ])('sends %s to manual review with the evidence', async (_what, bank, extra, reasons) => {
    const w = operatorWorld();
    const res = await w.submissions.submit(sandbox, SUB, inHouseBody(bank, extra));
    expect(res.message).toBe(IN_HOUSE_MESSAGES.pending_review);
    expect(res.kyc).toMatchObject({ status: 'pending_review', review: { decision: 'manual_review', reasons } });
    expect(res.kyc.reviewed_at).toBeNull();
    expect(submissionEvents(w)[0]).toMatchObject({ change: 'submitted', status: 'pending_review' });
  });

  it('refuses a bad check digit at a commercial bank and an unknown bank, naming the field', async () => {
    const w = operatorWorld();
    await expect(
      w.submissions.submit(sandbox, SUB, inHouseBody({ account_number: badCheckDigit(ACCESS_NUBAN) })),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'bank_account.account_number',
      message: 'bank_account.account_number must be a valid 10-digit NUBAN for Access Bank',
    });
    await expect(
      w.submissions.submit(sandbox, SUB, inHouseBody({ bank_name: 'Bank of Nowhere' })),
    ).rejects.toMatchObject({
      param: 'bank_account.bank_name',
      message: 'bank_account.bank_name "Bank of Nowhere" is not a supported bank; see GET /marketplace/payout/banks',
    });
    expect(w.cases.docs.size).toBe(0);
  });

  it('accepts the flat (legacy) body and a registered business', async () => {
    const w = operatorWorld();
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
      account_number: ACCESS_NUBAN,
      account_name: 'ADEBAYO FOODS LIMITED',
    };
    const res = await w.submissions.submit(sandbox, SUB, asDecoded('SubmitKyc', flat));
    expect(res.kyc).toMatchObject({
      format: 'flat',
      business_type: 'registered_business',
      legal_name: 'Adebayo Foods Ltd',
      business: { registered_name: 'Adebayo Foods Ltd' },
      status: 'approved',
    });
    // The registration number is sealed (Hardening 2 item 9); the reviewer reads it opened.
    expect(JSON.stringify(res.kyc)).not.toContain('RC123456');
    expect(w.reviews.reviewOf(res.kyc).business).toEqual({
      registered_name: 'Adebayo Foods Ltd',
      registration_number: 'RC123456',
      tax_id: null,
    });
  });
});

describe('connected-account submissions through the service', () => {
  it('creates a sandbox connected account and an onboarding link', async () => {
    const w = operatorWorld();
    const res = await w.submissions.submit(
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
  });

  it("live keys onboard at the live gateway: its account and client secret, never the sandbox's", async () => {
    const w = operatorWorld();
    const res = await w.submissions.submit(live, SUB, connectedBody());
    if (res.kind !== 'connected') throw new Error('expected the connected route');
    expect(res.kyc).toMatchObject({ mode: 'live', status: 'pending_onboarding' });
    expect(res.kyc.connected!.gateway_account_id).toBe('acct_live1');
    expect(res.client_secret).toBe('acct_live1_secret_1');
    expect(res.publishable_key).toBe('pk_acct_live_US');
    expect(res.token).toMatch(/^onb_[A-Za-z0-9]{32}$/);
    expect([w.gateway.created, w.liveGateway.created]).toEqual([0, 1]);
    // Submitting again while onboarding is pending: the same account, a fresh secret and link.
    const again = await w.submissions.submit(live, SUB, connectedBody());
    if (again.kind !== 'connected') throw new Error('expected the connected route');
    expect(again.kyc.connected!.gateway_account_id).toBe('acct_live1');
    expect(again.client_secret).toBe('acct_live1_secret_2');
    expect(again.token).not.toBe(res.token);
    expect(w.liveGateway.created).toBe(1);
  });

  it('answers GATEWAY_NOT_CONFIGURED for live when no live gateway is configured, creating nothing', async () => {
    const w = operatorWorld();
    delete (w.providers as Partial<typeof w.providers>).live;
    await expect(w.submissions.submit(live, SUB, connectedBody())).rejects.toMatchObject({
      code: 'GATEWAY_NOT_CONFIGURED',
    });
    expect(w.liveGateway.created).toBe(0);
  });

  it('an explicit preferred_currency wins; EU countries default to EUR in the EU region', async () => {
    const w = operatorWorld();
    w.directory.addSub(OPERATOR, 1002);
    expect((await w.submissions.submit(sandbox, SUB, connectedBody({ country: 'DE' }))).kyc).toMatchObject({
      settlement_currency: 'EUR',
      connected: { gateway_region: 'EU' },
    });
    expect(
      (await w.submissions.submit(sandbox, 1002, connectedBody({ country: 'GB', preferred_currency: 'usd' }))).kyc
        .settlement_currency,
    ).toBe('USD');
  });
});

describe('payout eligibility and the payout account on resubmission', () => {
  it('a resubmission that moves the settlement currency detaches the payout account', async () => {
    const w = operatorWorld();
    const first = await w.submissions.submit(sandbox, SUB, inHouseBody({ account_name: 'Somebody Else' }));
    await w.payoutAccounts.setup(sandbox, SUB, {});
    expect(payoutEligible((await w.cases.findById(first.kyc.id))!)).toBe(false);
    await w.reviews.decideInSandbox(sandbox, first.kyc.id, { action: 'reject', reason: 'Wrong bank' });
    const ghana = inHouseBody(
      { bank_name: 'GCB Bank', account_number: '1234567890123' },
      { id_country: 'GH', owner: { ...inHouseBody().owner, id_type: 'passport', id_number: 'G1234567' } },
    );
    const again = await w.submissions.submit(sandbox, SUB, ghana);
    expect(again.kyc.settlement_currency).toBe('GHS');
    expect(again.kyc.payout).toMatchObject({ account: null });
    const detached = w.cases.events
      .filter((e) => e.subject === 'kyc.payout_account.updated')
      .map((e) => e.data as KycPayoutAccountUpdated);
    expect(detached.map((e) => e.change)).toEqual(['created', 'detached']);
    expect(detached[1]).toMatchObject({ account: null, payout_eligible: false });
  });
});
