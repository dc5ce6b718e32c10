import type { KycPayoutAccountUpdated } from '@ppay/kernel';
import type { KycCaseRecord } from '../cases/kyc-case';
import { FakeSealer, MemoryCases, OPERATOR, SUB } from '../memory-ports.test-util';
import { BankDirectory } from '../payout-accounts/banks';
import { IN_HOUSE_MESSAGES, InHouseRoute } from './in-house-route';
import { attemptOn, bankPayoutIn, changes, LATER } from './route-attempts.test-util';
import type { InHouseSubmission } from './submission';
import { ACCESS_NUBAN, inHouseBody, normalise, NOW, OWNER } from './submission-bodies.test-util';

const input = (bank?: Record<string, unknown>, extra?: Record<string, unknown>) =>
  normalise(inHouseBody(bank, extra)) as InHouseSubmission;
const ghanaian = () =>
  input(
    { bank_name: 'GCB Bank', account_number: '1234567890123' },
    { id_country: 'GH', owner: { ...OWNER, id_type: 'passport', id_number: 'G1234567' } },
  );

function routeWorld() {
  const cases = new MemoryCases();
  const sealer = new FakeSealer();
  const route = new InHouseRoute({ cases, banks: BankDirectory.bundled(), sealer });
  const attempt = (submission: InHouseSubmission, existing: KycCaseRecord | null = null, at = NOW) =>
    attemptOn(route, submission, { existing, at });
  return { cases, sealer, attempt };
}

describe('InHouseRoute', () => {
  it('approves a first submission that passes auto-approval at once, by the algorithm', async () => {
    const { attempt } = routeWorld();
    const outcome = await attempt(input());
    expect(outcome.result).toMatchObject({ kind: 'in_house', message: IN_HOUSE_MESSAGES.approved });
    expect(outcome.result.kyc).toMatchObject({
      id: 1,
      merchant_id: SUB,
      mode: 'sandbox',
      marketplace_id: OPERATOR,
      business_name: 'Adebayo Foods',
      status: 'approved',
      route: 'in_house',
      provider: 'service',
      connected: null,
      link: null,
      payout: null,
      submitted_at: NOW,
      reviewed_at: NOW,
      version: 1,
      created_at: NOW,
    });
    expect(outcome.result.kyc.history).toEqual([
      {
        action: 'auto_approve',
        from_status: 'not_started',
        to_status: 'approved',
        actor: 'auto',
        actor_id: null,
        reason: null,
        at: NOW,
      },
    ]);
    expect(changes(outcome)).toEqual(['auto_approved']);
  });

  it('stores the owner and bank account with their numbers sealed and masked, never in clear', async () => {
    const { attempt, sealer } = routeWorld();
    const { kyc } = (await attempt(input())).result;
    expect(sealer.sealed).toEqual(['12345678901', ACCESS_NUBAN]);
    expect(kyc.owner).toMatchObject({ first_name: 'John', id_type: 'nin', id_number_masked: '*******8901' });
    expect(kyc.bank_account).toMatchObject({
      bank_name: 'Access Bank',
      account_number_masked: `******${ACCESS_NUBAN.slice(-4)}`,
      account_name: 'ADEBAYO JOHN',
    });
    expect(kyc.owner).not.toHaveProperty('id_number');
    expect(kyc.bank_account).not.toHaveProperty('account_number');
  });

  it('sends a submission that fails auto-approval to a reviewer, with the reasons in its history', async () => {
    const { attempt } = routeWorld();
    const outcome = await attempt(input({ account_name: 'Ngozi Eze' }));
    expect(outcome.result.message).toBe(IN_HOUSE_MESSAGES.pending_review);
    expect(outcome.result.kyc).toMatchObject({ status: 'pending_review', reviewed_at: null });
    expect(outcome.result.kyc.history[0]).toMatchObject({
      action: 'submit',
      actor: 'operator',
      actor_id: `operator:${OPERATOR}`,
      reason: 'name_mismatch:0.00',
    });
    expect(changes(outcome)).toEqual(['submitted']);
  });

  it('keeps the case on a resubmission and sends it to a reviewer even when it would pass', async () => {
    const { attempt } = routeWorld();
    const first = (await attempt(input({ account_name: 'Somebody Else' }))).result.kyc;
    const rejected: KycCaseRecord = { ...first, status: 'rejected', rejection_reason: 'Blurry document' };
    const outcome = await attempt(input(), rejected, LATER);
    expect(outcome.result.kyc).toMatchObject({
      id: first.id,
      status: 'pending_review',
      rejection_reason: null,
      submitted_at: LATER,
      reviewed_at: null,
      version: first.version + 1,
      created_at: NOW,
      updated_at: LATER,
    });
    expect(outcome.result.kyc.history.map((h) => [h.action, h.from_status, h.to_status])).toEqual([
      ['submit', 'not_started', 'pending_review'],
      ['resubmit', 'rejected', 'pending_review'],
    ]);
    expect(changes(outcome)).toEqual(['resubmitted']);
  });

  it('refuses a second submission while one is pending, allocating no id', async () => {
    const { attempt, cases } = routeWorld();
    const first = (await attempt(input({ account_name: 'Somebody Else' }))).result.kyc;
    await expect(attempt(input(), first)).rejects.toMatchObject({
      code: 'KYC_TRANSITION_NOT_ALLOWED',
      detail: 'pending_review',
    });
    expect(await cases.nextId()).toBe(2);
  });

  it('detaches a payout account the resubmission no longer settles in, saying so in history and an event', async () => {
    const { attempt } = routeWorld();
    const first = (await attempt(input({ account_name: 'Somebody Else' }))).result.kyc;
    const rejected: KycCaseRecord = { ...first, status: 'rejected', payout: bankPayoutIn('NGN') };
    const outcome = await attempt(ghanaian(), rejected, LATER);
    expect(outcome.result.kyc).toMatchObject({
      settlement_currency: 'GHS',
      payout: { set_up_at: NOW, updated_at: LATER, account: null },
    });
    expect(outcome.result.kyc.history.at(-1)).toMatchObject({
      action: 'payout_account_detached',
      from_status: 'pending_review',
      to_status: 'pending_review',
    });
    expect(changes(outcome)).toEqual(['resubmitted', 'detached']);
    expect(outcome.events[1].data as KycPayoutAccountUpdated).toMatchObject({ account: null });
  });
});
