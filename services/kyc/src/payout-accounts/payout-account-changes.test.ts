import type { KycPayoutAccountUpdated } from '@ppay/kernel';
import { MAX_HISTORY } from '../cases/case-history';
import { live, operatorWorld, sandbox, SUB } from '../memory-ports.test-util';
import { ACCESS_NUBAN, connectedBody, inHouseBody, nuban } from '../submissions/submission-bodies.test-util';
import type { AccountNameEnquiry } from '../submissions/ports';
import { payoutSettingsResource } from './payout-account';

/** Sandbox name enquiry table (sandbox-name-enquiry.adapter.ts): valid Access Bank NUBANs. */
const HELD_BY_OTHER = '0000000017';
const NO_SUCH_ACCOUNT = '0000000024';
const NO_ANSWER = '0000000031';
/** Any other Access Bank account: the sandbox bank says it is held by the declared (kept) name. */
const ANOTHER_ACCESS = nuban('044', '069012399');

const payoutEvents = (w: ReturnType<typeof operatorWorld>) =>
  w.cases.events
    .filter((e) => e.subject === 'kyc.payout_account.updated')
    .map((e) => e.data as KycPayoutAccountUpdated);

/** A sandbox merchant with approved KYC and the KYC submission's account live for payouts. */
async function withLiveAccount() {
  const w = operatorWorld();
  await w.submissions.submit(sandbox, SUB, inHouseBody());
  await w.payoutAccounts.setup(sandbox, SUB, {});
  return w;
}

const stored = async (w: ReturnType<typeof operatorWorld>, mode: 'sandbox' | 'live' = 'sandbox') =>
  (await w.cases.findByMerchant(SUB, mode))!;

describe('a new account number is confirmed by the bank, never by the name kept with it', () => {
  it('sandbox: the bank names another holder → review, and payouts keep going to the approved account', async () => {
    const w = await withLiveAccount();
    const res = await w.payoutAccounts.update(sandbox, SUB, { account_number: HELD_BY_OTHER });
    expect(payoutSettingsResource(res)).toMatchObject({
      change_status: 'pending_review',
      bank_account_number: `******${HELD_BY_OTHER.slice(-4)}`,
      bank_account_name: 'ADEBAYO JOHN',
    });
    const c = await stored(w);
    expect(c.payout!.account!.account_number_masked).toBe(`******${ACCESS_NUBAN.slice(-4)}`);
    expect(c.payout!.pending_change!.reason).toMatch(/^bank_name_mismatch:0\.\d\d$/);
    expect(w.reviews.reviewOf(c).payout_change).toMatchObject({
      account_number_masked: `******${HELD_BY_OTHER.slice(-4)}`,
      name_enquiry: { provider: 'sandbox', outcome: 'found', account_name: 'SANDBOX OTHER HOLDER' },
    });
    expect(payoutEvents(w).map((e) => e.change)).toEqual(['created']);
  });

  it('sandbox: the bank confirms the holder on record → live at once, announced', async () => {
    const w = await withLiveAccount();
    const res = await w.payoutAccounts.update(sandbox, SUB, { account_number: ANOTHER_ACCESS });
    expect(payoutSettingsResource(res)).toMatchObject({ change_status: 'applied' });
    const c = await stored(w);
    expect(c.payout!.account).toMatchObject({
      account_number_masked: `******${ANOTHER_ACCESS.slice(-4)}`,
      name_enquiry: { provider: 'sandbox', outcome: 'found', account_name: 'ADEBAYO JOHN' },
    });
    expect(c.payout!.pending_change).toBeNull();
    expect(payoutEvents(w).map((e) => e.change)).toEqual(['created', 'updated']);
  });

  it('no such account, or no answer from the bank → review with its reason', async () => {
    const w = await withLiveAccount();
    await w.payoutAccounts.update(sandbox, SUB, { account_number: NO_SUCH_ACCOUNT });
    expect((await stored(w)).payout!.pending_change!.reason).toBe('account_not_found');
    await w.payoutAccounts.update(sandbox, SUB, { account_number: NO_ANSWER });
    expect((await stored(w)).payout!.pending_change!.reason).toBe('name_enquiry_unavailable');
    expect(payoutEvents(w)).toHaveLength(1);
  });

  it('a provider that fails or hangs past the deadline is no confirmation → review', async () => {
    const w = await withLiveAccount();
    const failing: AccountNameEnquiry = { provider: 'test', resolve: () => Promise.reject(new Error('boom')) };
    w.nameEnquiry.sandbox = failing;
    await w.payoutAccounts.update(sandbox, SUB, { account_number: ANOTHER_ACCESS });
    expect((await stored(w)).payout!.pending_change!.reason).toBe('name_enquiry_unavailable');
    const hanging: AccountNameEnquiry = { provider: 'test', resolve: () => new Promise(() => undefined) };
    w.nameEnquiry.sandbox = hanging;
    const started = Date.now();
    const res = await w.payoutAccounts.update({ ...sandbox, deadline: new Date(Date.now() + 400) }, SUB, {
      account_number: nuban('044', '069012388'),
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(payoutSettingsResource(res)).toMatchObject({ change_status: 'pending_review' });
    expect((await stored(w)).payout!.account!.account_number_masked).toBe(`******${ACCESS_NUBAN.slice(-4)}`);
  });

  it('live without a provider: a number change (and an account named at setup) waits for a reviewer', async () => {
    const w = operatorWorld();
    const kyc = await w.submissions.submit(live, SUB, inHouseBody());
    expect(kyc.kyc.status).toBe('pending_review'); // no live provider: reviewed by hand
    await w.reviews.decideAsAdmin('usr_admin', kyc.kyc.id, { action: 'approve' });
    const named = await w.payoutAccounts.setup(live, SUB, {
      settlement_bank: 'Access Bank',
      account_number: ANOTHER_ACCESS,
      account_name: 'Adebayo John',
    });
    expect(payoutSettingsResource(named)).toMatchObject({ change_status: 'pending_review' });
    expect((await stored(w, 'live')).payout!.pending_change!.reason).toBe('name_enquiry_unconfigured');
    await expect(w.payoutAccounts.account(SUB, 'live')).rejects.toMatchObject({ code: 'PAYOUT_ACCOUNT_NOT_FOUND' });
    await w.reviews.decideAsAdmin('usr_admin', kyc.kyc.id, { action: 'approve_payout_change' });

    const res = await w.payoutAccounts.update(live, SUB, { account_number: nuban('044', '069012377') });
    expect(payoutSettingsResource(res)).toMatchObject({ change_status: 'pending_review' });
    const c = await stored(w, 'live');
    expect(c.payout!.pending_change!.reason).toBe('name_enquiry_unconfigured');
    expect(c.payout!.account!.account_number_masked).toBe(`******${ANOTHER_ACCESS.slice(-4)}`);
    // A change of the holder name alone is not a new destination: the legal-name match decides, as before.
    const renamed = await w.payoutAccounts.update(live, SUB, { account_name: 'ADEBAYO JOHN' });
    expect(payoutSettingsResource(renamed)).toMatchObject({ change_status: 'applied' });
  });
});

describe('payout changes that change nothing, and the bounded history', () => {
  it('a repeated identical PATCH records nothing and announces nothing', async () => {
    const w = await withLiveAccount();
    await w.payoutAccounts.update(sandbox, SUB, { account_name: 'Adebayo John O.' });
    const after = await stored(w);
    const events = w.cases.events.length;
    for (let i = 0; i < 5; i++) {
      const res = await w.payoutAccounts.update(sandbox, SUB, { account_name: 'Adebayo John O.' });
      expect(payoutSettingsResource(res)).toMatchObject({
        change_status: 'applied',
        bank_account_name: 'Adebayo John O.',
      });
    }
    // Naming the whole current account is no change either.
    await w.payoutAccounts.update(sandbox, SUB, { settlement_bank: 'Access Bank', account_name: 'Adebayo John O.' });
    expect(await stored(w)).toEqual(after);
    expect(w.cases.events).toHaveLength(events);

    // The same change already waiting for review: still nothing new, and no second enquiry.
    await w.payoutAccounts.update(sandbox, SUB, { account_number: HELD_BY_OTHER });
    const pending = await stored(w);
    let asked = 0;
    const sandboxEnquiry = w.nameEnquiry.sandbox!;
    w.nameEnquiry.sandbox = { provider: 'sandbox', resolve: (i) => (asked++, sandboxEnquiry.resolve(i)) };
    const again = await w.payoutAccounts.update(sandbox, SUB, { account_number: HELD_BY_OTHER });
    expect(payoutSettingsResource(again)).toMatchObject({ change_status: 'pending_review' });
    expect([await stored(w), asked, w.cases.events.length]).toEqual([pending, 0, events]);
  });

  it('many real changes keep the history at its cap, the oldest entries summarised', async () => {
    const w = await withLiveAccount();
    const first = await stored(w);
    const changes = MAX_HISTORY + 30;
    for (let i = 0; i < changes; i++) {
      await w.payoutAccounts.update(sandbox, SUB, { account_name: i % 2 ? 'ADEBAYO JOHN' : 'Adebayo John O.' });
      w.clock.advance(1_000);
    }
    const c = await stored(w);
    const total = first.history.length + changes;
    expect(c.history).toHaveLength(MAX_HISTORY);
    expect(c.history.at(-1)).toMatchObject({ action: 'payout_account_updated' });
    expect(c.history_summary).toEqual({
      dropped: total - MAX_HISTORY,
      first_at: first.history[0]!.at,
      // Every entry before the loop, then the first 30 changes (one a second).
      last_at: new Date(first.updated_at.getTime() + 29_000),
      actions: expect.objectContaining({
        auto_approve: 1,
        payout_account_created: 1,
        payout_account_updated: total - MAX_HISTORY - 2,
      }),
    });
    expect(c.history[0]!.at).toEqual(new Date(first.updated_at.getTime() + 30_000));
    // The reviewer sees how much history was folded away, and what it was.
    expect(w.reviews.reviewOf(c).history_summary).toMatchObject({
      dropped: total - MAX_HISTORY,
      actions: [
        { action: 'payout_account_updated', count: total - MAX_HISTORY - 2 },
        { action: 'auto_approve', count: 1 },
        { action: 'payout_account_created', count: 1 },
      ],
    });
    // Every change was still announced: the cap is on the case's history, not on what happened.
    expect(payoutEvents(w)).toHaveLength(changes + 1);
  });

  it('resubmissions are capped the same way (each new onboarding link is a history entry)', async () => {
    const w = operatorWorld();
    for (let i = 0; i < MAX_HISTORY + 10; i++) await w.submissions.submit(sandbox, SUB, connectedBody());
    const c = await stored(w);
    expect(c.history).toHaveLength(MAX_HISTORY);
    expect(c.history_summary).toMatchObject({ dropped: 10, actions: { start_onboarding: 10 } });
    expect(c.status).toBe('pending_onboarding');
  });
});
