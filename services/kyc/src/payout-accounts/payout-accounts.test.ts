import type { KycPayoutAccountUpdated } from '@ppay/kernel';
import { payoutEligible } from '../cases/kyc-case';
import { asDecoded, live, OPERATOR, operatorWorld, sandbox, SUB as NG_SUB } from '../memory-ports.test-util';
import {
  ACCESS_NUBAN as ACCESS,
  badCheckDigit,
  connectedBody,
  inHouseBody,
  nuban,
} from '../submissions/submission-bodies.test-util';
import { payoutAccountResource, payoutSettingsResource } from './payout-account';
import { payoutAccountHandlers } from './payout-accounts.handlers';
import { AT_LEAST_ONE_FIELD, NON_AFRICAN_CALLBACK } from './payout-accounts';

const US_SUB = 1002;
const ZENITH = nuban('057', '101234567');
const kycBody = inHouseBody();
const connected = connectedBody();

function setup() {
  const w = operatorWorld();
  w.directory.addSub(OPERATOR, US_SUB, 'US', 'USD');
  return w;
}
const payoutEvents = (w: ReturnType<typeof setup>) =>
  w.cases.events
    .filter((e) => e.subject === 'kyc.payout_account.updated')
    .map((e) => e.data as KycPayoutAccountUpdated);

describe('payout banks', () => {
  it('lists by currency from memory for operators; an unknown currency is a clear 400', async () => {
    const w = setup();
    const ngn = await w.payoutAccounts.listBanks(OPERATOR, 'NGN');
    expect(ngn.length).toBeGreaterThan(20);
    expect(ngn.every((b) => b.country_iso_code === 'NG' && b.currency === 'NGN')).toBe(true);
    expect((await w.payoutAccounts.listBanks(OPERATOR)).length).toBe(72);
    await expect(w.payoutAccounts.listBanks(OPERATOR, 'USD')).rejects.toThrow(
      'currency must be one of GHS, KES, NGN, ZAR',
    );
    await expect(w.payoutAccounts.listBanks(NG_SUB)).rejects.toMatchObject({ code: 'MARKETPLACE_OPERATOR_REQUIRED' });
    // A non-operator hears 403 whatever currency it asked for (Hardening 2 item 12).
    await expect(w.payoutAccounts.listBanks(NG_SUB, 'USD')).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
  });

  it("passes the caller's deadline on to every marketplace lookup", async () => {
    const w = setup();
    const deadline = new Date(Date.now() + 2_000);
    await w.payoutAccounts.listBanks(OPERATOR, 'NGN', deadline);
    await w.submissions.submit({ ...sandbox, deadline }, NG_SUB, kycBody);
    await w.payoutAccounts.setup({ ...sandbox, deadline }, NG_SUB, {});
    await w.submissions.status({ ...sandbox, deadline }, NG_SUB);
    expect(w.directory.deadlines.length).toBeGreaterThanOrEqual(4);
    expect(w.directory.deadlines.every((d) => d === deadline)).toBe(true);
  });
});

describe('first-time payout setup (POST)', () => {
  it('needs a KYC submission, then adopts its bank account; approved + account = eligible', async () => {
    const w = setup();
    await expect(w.payoutAccounts.setup(sandbox, NG_SUB, {})).rejects.toMatchObject({ code: 'KYC_NOT_SUBMITTED' });
    const { kyc } = await w.submissions.submit(sandbox, NG_SUB, kycBody);
    expect(kyc.status).toBe('approved');
    const res = await w.payoutAccounts.setup(sandbox, NG_SUB, asDecoded('SetupPayout', {}));
    expect(payoutSettingsResource(res)).toEqual({
      kind: 'bank_account',
      merchant_id: NG_SUB,
      baseline_currency: 'NGN',
      country: 'NG',
      settlement_currency: 'NGN',
      bank_name: 'Access Bank',
      bank_account_number: `******${ACCESS.slice(-4)}`,
      bank_account_name: 'ADEBAYO JOHN',
      institution_id: w.banks.findByName('Access Bank')!.institution_id,
      account_number_type: 'bank_account_number',
      change_status: 'applied',
    });
    expect(payoutEligible(res.kyc)).toBe(true);
    expect(payoutEvents(w)).toEqual([
      expect.objectContaining({
        change: 'created',
        payout_eligible: true,
        account: expect.objectContaining({
          payment_gateway: 'naira_gateway',
          payout_method: 'bank_transfer',
          account_number_masked: `******${ACCESS.slice(-4)}`,
        }),
      }),
    ]);
    await expect(w.payoutAccounts.setup(sandbox, NG_SUB, {})).rejects.toMatchObject({ code: 'PAYOUT_ALREADY_SET_UP' });
    const account = await w.payoutAccounts.account(NG_SUB, 'sandbox');
    expect(account.account).toMatchObject({ currency: 'NGN', account_number_masked: `******${ACCESS.slice(-4)}` });
    await expect(w.payoutAccounts.account(NG_SUB, 'live')).rejects.toMatchObject({ code: 'KYC_NOT_SUBMITTED' });
  });

  it('a complete new account must be valid and in the settlement currency the KYC locked', async () => {
    const w = setup();
    await w.submissions.submit(sandbox, NG_SUB, kycBody);
    await expect(w.payoutAccounts.setup(sandbox, NG_SUB, { account_number: ZENITH })).rejects.toMatchObject({
      param: 'settlement_bank',
      message: 'settlement_bank is required',
    });
    await expect(
      w.payoutAccounts.setup(sandbox, NG_SUB, {
        settlement_bank: 'Zenith',
        account_number: ZENITH,
        account_name: 'J A',
      }),
    ).rejects.toMatchObject({
      param: 'settlement_bank',
      message: 'settlement_bank "Zenith" is not a supported bank; see GET /marketplace/payout/banks',
    });
    await expect(
      w.payoutAccounts.setup(sandbox, NG_SUB, {
        settlement_bank: 'GCB Bank',
        account_number: '1234567890',
        account_name: 'J A',
      }),
    ).rejects.toMatchObject({ param: 'settlement_bank', message: expect.stringContaining('paying out in NGN') });
    await expect(
      w.payoutAccounts.setup(sandbox, NG_SUB, {
        settlement_bank: 'Zenith Bank',
        account_number: '1234567890',
        account_name: 'J A',
      }),
    ).rejects.toMatchObject({
      param: 'account_number',
      message: 'account_number must be a valid 10-digit NUBAN for Zenith Bank',
    });
    await expect(
      w.payoutAccounts.setup(sandbox, NG_SUB, { settlement_bank: 'Zenith Bank', account_number: ZENITH }),
    ).rejects.toMatchObject({ param: 'account_name' });
    const res = await w.payoutAccounts.setup(sandbox, NG_SUB, {
      institution_id: w.banks.findByName('Zenith Bank')!.institution_id,
      account_number: ZENITH,
      account_name: 'John Adebayo',
    });
    expect(payoutSettingsResource(res)).toMatchObject({ bank_name: 'Zenith Bank', bank_account_name: 'John Adebayo' });
    expect(w.sealer.sealed).toContain(ZENITH);
  });

  it('non-African merchants send callback_url and get the onboarding link of their connected account', async () => {
    const w = setup();
    await expect(w.payoutAccounts.setup(sandbox, US_SUB, {})).rejects.toMatchObject({ message: NON_AFRICAN_CALLBACK });
    const kyc = await w.submissions.submit(sandbox, US_SUB, connected);
    const res = await w.payoutAccounts.setup(sandbox, US_SUB, { callback_url: 'https://shop.example.com/payouts' });
    expect(payoutSettingsResource(res)).toMatchObject({
      kind: 'connected_account',
      merchant_id: US_SUB,
      baseline_currency: 'USD',
      country: 'US',
      client_secret: expect.stringMatching(/_secret_/),
      onboarding_token: expect.stringMatching(/^onb_/),
    });
    if (res.kind !== 'connected_account') throw new Error('connected');
    // The submission still waits for onboarding, so this link completes it.
    const done = await w.onboarding.finishOnboarding(res.token, 'complete');
    expect(done.redirectUrl).toBe('https://shop.example.com/payouts');
    const after = (await w.cases.findById(kyc.kyc.id))!;
    expect(after.status).toBe('approved');
    expect(payoutEligible(after)).toBe(true);
    expect((await w.payoutAccounts.account(US_SUB, 'sandbox')).account).toMatchObject({
      payment_gateway: 'card_gateway',
      payout_method: 'connected_account',
      gateway_account_id: kyc.kyc.connected!.gateway_account_id,
    });
    // Payments pays a connected account from its region's platform account (docs/decisions.md C28).
    const get = payoutAccountHandlers(w.payoutAccounts).GetPayoutAccount as unknown as (
      req: unknown,
      ctx: unknown,
    ) => Promise<Record<string, unknown>>;
    const internal = { caller: { auth: 'internal', requestId: 'req_1' } };
    expect(await get({ merchant_id: US_SUB, mode: 'sandbox' }, internal)).toMatchObject({
      payout_method: 'connected_account',
      gateway_region: 'US',
    });
    await w.submissions.submit(sandbox, NG_SUB, kycBody);
    await w.payoutAccounts.setup(sandbox, NG_SUB, {});
    expect((await get({ merchant_id: NG_SUB, mode: 'sandbox' }, internal)).gateway_region).toBeUndefined();
  });
});

describe('payout update (PATCH) — spec 7.4', () => {
  it('answers each 7.4 message in its condition', async () => {
    const w = setup();
    await expect(w.payoutAccounts.update(sandbox, NG_SUB, asDecoded('UpdatePayout', {}))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: AT_LEAST_ONE_FIELD,
    });
    await expect(w.payoutAccounts.update(sandbox, US_SUB, { account_name: 'X' })).rejects.toMatchObject({
      message: NON_AFRICAN_CALLBACK,
      param: 'callback_url',
    });
    await expect(w.payoutAccounts.update(sandbox, NG_SUB, { account_name: 'X' })).rejects.toMatchObject({
      code: 'PAYOUT_NOT_SET_UP',
    });
    await w.submissions.submit(sandbox, NG_SUB, kycBody);
    await expect(w.payoutAccounts.update(sandbox, NG_SUB, { account_name: 'X' })).rejects.toMatchObject({
      code: 'PAYOUT_NOT_SET_UP',
    });
    await expect(
      w.payoutAccounts.update({ operatorId: 99, mode: 'sandbox' }, NG_SUB, { account_name: 'X' }),
    ).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    w.directory.addOperator(20);
    await expect(
      w.payoutAccounts.update({ operatorId: 20, mode: 'sandbox' }, NG_SUB, { account_name: 'X' }),
    ).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    w.directory.subs.get(NG_SUB)!.merchant = null;
    await expect(w.payoutAccounts.update(sandbox, NG_SUB, { account_name: 'X' })).rejects.toMatchObject({
      code: 'MERCHANT_PORTFOLIO_NOT_FOUND',
    });
  });

  it('No payout account found: set up once, then a resubmission on another route detached the account', async () => {
    const w = setup();
    const first = await w.submissions.submit(sandbox, NG_SUB, {
      ...kycBody,
      bank_account: { ...kycBody.bank_account, account_name: 'Someone Else' },
    });
    await w.payoutAccounts.setup(sandbox, NG_SUB, {});
    await w.reviews.decideInSandbox(sandbox, first.kyc.id, { action: 'reject', reason: 'Name does not match' });
    // The owner resubmits with a US document: connected-account route, settlement in USD.
    await w.submissions.submit(sandbox, NG_SUB, connected);
    await expect(w.payoutAccounts.update(sandbox, NG_SUB, { account_name: 'X' })).rejects.toMatchObject({
      code: 'PAYOUT_ACCOUNT_NOT_FOUND',
      message: 'No payout account found',
    });
    await expect(w.payoutAccounts.account(NG_SUB, 'sandbox')).rejects.toMatchObject({
      code: 'PAYOUT_ACCOUNT_NOT_FOUND',
    });
  });

  it('changes what is sent and keeps the rest; a new bank needs its account number', async () => {
    const w = setup();
    await w.submissions.submit(sandbox, NG_SUB, kycBody);
    await w.payoutAccounts.setup(sandbox, NG_SUB, {});
    const renamed = await w.payoutAccounts.update(sandbox, NG_SUB, { account_name: 'Adebayo John O.' });
    expect(payoutSettingsResource(renamed)).toMatchObject({
      bank_name: 'Access Bank',
      bank_account_number: `******${ACCESS.slice(-4)}`,
      bank_account_name: 'Adebayo John O.',
    });
    await expect(w.payoutAccounts.update(sandbox, NG_SUB, { settlement_bank: 'Zenith Bank' })).rejects.toMatchObject({
      param: 'account_number',
      message: 'account_number is required when the bank changes',
    });
    await expect(
      w.payoutAccounts.update(sandbox, NG_SUB, { settlement_bank: 'Not A Bank', account_number: ZENITH }),
    ).rejects.toMatchObject({
      param: 'settlement_bank',
      message: expect.stringContaining('"Not A Bank" is not a supported bank'),
    });
    await expect(
      w.payoutAccounts.update(sandbox, NG_SUB, { account_number: badCheckDigit(ACCESS) }),
    ).rejects.toMatchObject({
      param: 'account_number',
    });
    const moved = await w.payoutAccounts.update(sandbox, NG_SUB, {
      settlement_bank: 'Zenith Bank',
      account_number: ZENITH,
    });
    expect(payoutSettingsResource(moved)).toMatchObject({
      bank_name: 'Zenith Bank',
      bank_account_number: `******${ZENITH.slice(-4)}`,
      bank_account_name: 'Adebayo John O.',
    });
    expect(payoutEvents(w).map((e) => e.change)).toEqual(['created', 'updated', 'updated']);
    expect(payoutEvents(w).every((e) => e.payout_eligible)).toBe(true);
  });

  it('non-African merchants get a fresh update link; sandbox and live payouts are separate', async () => {
    const w = setup();
    const kyc = await w.submissions.submit(sandbox, US_SUB, connected);
    await w.reviews.decideInSandbox(sandbox, kyc.kyc.id, { action: 'approve' });
    await w.payoutAccounts.setup(sandbox, US_SUB, { callback_url: 'https://shop.example.com/payouts' });
    const res = await w.payoutAccounts.update(sandbox, US_SUB, { callback_url: 'https://shop.example.com/again' });
    if (res.kind !== 'connected_account') throw new Error('connected');
    expect((await w.onboarding.onboardingLink(res.token)).kyc.link).toMatchObject({ purpose: 'update' });
    await w.onboarding.finishOnboarding(res.token, 'complete');
    expect((await w.cases.findById(kyc.kyc.id))!.status).toBe('approved');
    await expect(
      w.payoutAccounts.update(live, US_SUB, { callback_url: 'https://shop.example.com/again' }),
    ).rejects.toMatchObject({
      code: 'PAYOUT_NOT_SET_UP',
    });
  });
});

describe('payout destination and its changes (Hardening 2 item 5)', () => {
  const fingerprintOf = async (w: ReturnType<typeof setup>) =>
    (await w.payoutAccounts.account(NG_SUB, 'sandbox')).account.fingerprint;

  it('fingerprints the destination: the same while it stays, another once bank, number or holder change', async () => {
    const w = setup();
    await w.submissions.submit(sandbox, NG_SUB, kycBody);
    await w.payoutAccounts.setup(sandbox, NG_SUB, {});
    const adopted = await fingerprintOf(w);
    expect(adopted).toMatch(/^pdf_[0-9a-f]{40}$/);
    const { kyc, account } = await w.payoutAccounts.account(NG_SUB, 'sandbox');
    expect(payoutAccountResource(kyc, account).destination_fingerprint).toBe(adopted);
    // Same holder in other letters: the same destination.
    await w.payoutAccounts.update(sandbox, NG_SUB, { account_name: 'adebayo john' });
    expect(await fingerprintOf(w)).toBe(adopted);
    await w.payoutAccounts.update(sandbox, NG_SUB, { account_name: 'Adebayo John O.' });
    const renamed = await fingerprintOf(w);
    expect(renamed).not.toBe(adopted);
    await w.payoutAccounts.update(sandbox, NG_SUB, { settlement_bank: 'Zenith Bank', account_number: ZENITH });
    const moved = await fingerprintOf(w);
    await w.payoutAccounts.update(sandbox, NG_SUB, { account_number: ZENITH });
    expect(await fingerprintOf(w)).toBe(moved); // the same number again
    expect(new Set([adopted, renamed, moved]).size).toBe(3);
    // Never the number itself, nor anything derived from it without the case's secret salt.
    const stored = JSON.stringify((await w.cases.findByMerchant(NG_SUB, 'sandbox'))!.payout!.account);
    expect(stored).not.toContain(ZENITH);
  });

  it('changes a bank account only while KYC is approved', async () => {
    const w = setup();
    // A holder name that does not match: the submission waits for a reviewer.
    await w.submissions.submit(sandbox, NG_SUB, inHouseBody({ account_name: 'Ngozi Eze' }));
    await w.payoutAccounts.setup(sandbox, NG_SUB, {});
    const refused = await w.payoutAccounts
      .update(sandbox, NG_SUB, { account_number: nuban('044', '069012399') })
      .catch((e) => e);
    expect(refused).toMatchObject({
      code: 'PAYOUT_CHANGE_NEEDS_APPROVED_KYC',
      detail: 'The KYC submission is pending_review',
    });
  });

  it('a holder name that does not match the legal name waits for review: approved it goes live, rejected it is dropped', async () => {
    const w = setup();
    await w.submissions.submit(sandbox, NG_SUB, kycBody);
    await w.payoutAccounts.setup(sandbox, NG_SUB, {});
    const live = await fingerprintOf(w);
    const res = await w.payoutAccounts.update(sandbox, NG_SUB, {
      settlement_bank: 'Zenith Bank',
      account_number: ZENITH,
      account_name: 'Chinedu Okafor',
    });
    expect(payoutSettingsResource(res)).toMatchObject({ change_status: 'pending_review', bank_name: 'Zenith Bank' });
    // Payouts still go to the approved account; nothing was announced.
    const c = (await w.cases.findByMerchant(NG_SUB, 'sandbox'))!;
    expect([c.payout!.account!.bank_name, await fingerprintOf(w), payoutEvents(w).length]).toEqual([
      'Access Bank',
      live,
      1,
    ]);
    expect(c.payout!.pending_change).toMatchObject({
      reason: 'name_mismatch:0.00',
      requested_by: `operator:${OPERATOR}`,
    });
    expect(c.history.at(-1)).toMatchObject({ action: 'payout_change_pending', reason: 'name_mismatch:0.00' });
    expect(w.reviews.reviewOf(c).payout_change).toMatchObject({
      bank_name: 'Zenith Bank',
      account_number_masked: `******${ZENITH.slice(-4)}`,
      account_name: 'Chinedu Okafor',
    });
    expect((await w.cases.listPayoutChanges('sandbox', 1, 20)).items.map((i) => i.id)).toEqual([c.id]);
    // The reviewer approves it: it goes live, announced like any change.
    const approved = await w.reviews.decideInSandbox(sandbox, c.id, { action: 'approve_payout_change' });
    expect([approved.payout!.account!.bank_name, approved.payout!.pending_change, approved.status]).toEqual([
      'Zenith Bank',
      null,
      'approved',
    ]);
    expect(await fingerprintOf(w)).not.toBe(live);
    expect(payoutEvents(w).map((e) => e.change)).toEqual(['created', 'updated']);
    await expect(
      w.reviews.decideInSandbox(sandbox, c.id, { action: 'reject_payout_change', reason: 'Not theirs' }),
    ).rejects.toMatchObject({ code: 'PAYOUT_CHANGE_NOT_PENDING' });
    // Another one, rejected: dropped, with the reviewer's reason in history.
    await w.payoutAccounts.update(sandbox, NG_SUB, { account_name: 'Someone Else' });
    const rejected = await w.reviews.decideInSandbox(sandbox, c.id, {
      action: 'reject_payout_change',
      reason: 'Not the owner',
    });
    expect([rejected.payout!.account!.account_name, rejected.payout!.pending_change]).toEqual(['Chinedu Okafor', null]);
    expect(rejected.history.at(-1)).toMatchObject({ action: 'payout_change_rejected', reason: 'Not the owner' });
    expect((await w.cases.listPayoutChanges('sandbox', 1, 20)).total).toBe(0);
  });
});
