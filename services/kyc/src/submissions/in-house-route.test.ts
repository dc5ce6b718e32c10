import type { KycPayoutAccountUpdated } from '@ppay/kernel';
import type { KycCaseRecord } from '../cases/kyc-case';
import { FakeSealer, MemoryCases, OPERATOR, SUB } from '../memory-ports.test-util';
import { BankDirectory } from '../payout-accounts/banks';
import { IN_HOUSE_MESSAGES, InHouseRoute } from './in-house-route';
import type { NameEnquiryAnswer, NameEnquiryProviders } from './ports';
import { SANDBOX_NAME_ENQUIRY_ACCOUNTS, SandboxNameEnquiry } from './sandbox-name-enquiry.adapter';
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

function routeWorld(nameEnquiry: NameEnquiryProviders = { sandbox: new SandboxNameEnquiry() }) {
  const cases = new MemoryCases();
  const sealer = new FakeSealer();
  const route = new InHouseRoute({ cases, banks: BankDirectory.bundled(), sealer, nameEnquiry });
  const attempt = (submission: InHouseSubmission, existing: KycCaseRecord | null = null, at = NOW) =>
    attemptOn(route, submission, { existing, at });
  const attemptLive = (submission: InHouseSubmission) =>
    attemptOn(route, submission, { caller: { operatorId: OPERATOR, mode: 'live' } });
  return { cases, sealer, attempt, attemptLive };
}

/** A live provider whose bank says `holder` holds every account (or answers `answer`). */
const liveProvider = (answer: () => Promise<NameEnquiryAnswer>): NameEnquiryProviders => ({
  sandbox: new SandboxNameEnquiry(),
  live: { provider: 'test_bank_api', resolve: answer },
});

describe('live KYC is not self-attested: the name enquiry decides (Hardening 2 item 6)', () => {
  it('sends every live submission to a reviewer while no live provider is configured', async () => {
    const { attemptLive } = routeWorld();
    const { kyc } = (await attemptLive(input())).result;
    expect(kyc.status).toBe('pending_review');
    expect(kyc.review).toMatchObject({
      decision: 'manual_review',
      reasons: ['name_enquiry_unconfigured'],
      name_enquiry: { provider: null, outcome: 'unconfigured', account_name: null },
    });
  });

  it("approves on the bank's holder name, never on the typed one", async () => {
    const confirms = routeWorld(liveProvider(async () => ({ outcome: 'found', account_name: 'JOHN ADEBAYO' })));
    const approved = (await confirms.attemptLive(input({ account_name: 'Anything At All' }))).result.kyc;
    expect(approved.status).toBe('approved');
    expect(approved.review).toMatchObject({
      decision: 'auto_approve',
      name_match_score: 1,
      name_enquiry: { provider: 'test_bank_api', outcome: 'found', account_name: 'JOHN ADEBAYO' },
    });
    const other = routeWorld(liveProvider(async () => ({ outcome: 'found', account_name: 'NGOZI EZE' })));
    const refused = (await other.attemptLive(input())).result.kyc; // the typed name matches: not enough
    expect(refused.status).toBe('pending_review');
    expect(refused.review?.reasons).toEqual([expect.stringMatching(/^name_mismatch:/)]);
  });

  it('a provider that fails or finds no account sends the submission to a reviewer, never an error', async () => {
    for (const [answer, reason] of [
      [async () => Promise.reject(new Error('timeout')), 'name_enquiry_unavailable'],
      [async () => ({ outcome: 'not_found' as const }), 'account_not_found'],
    ] as const) {
      const w = routeWorld(liveProvider(answer as () => Promise<NameEnquiryAnswer>));
      const { kyc } = (await w.attemptLive(input())).result;
      expect([kyc.status, kyc.review?.reasons]).toEqual(['pending_review', [reason]]);
    }
  });

  it("sandbox keeps NUBAN + name-match auto-approval, with the provider's test accounts", async () => {
    const { attempt } = routeWorld();
    expect((await attempt(input())).result.kyc.status).toBe('approved');
    const cases: [string, string[]][] = [
      ['0000000017', [expect.stringMatching(/^name_mismatch:/) as unknown as string]],
      ['0000000024', ['account_not_found']],
      ['0000000031', ['name_enquiry_unavailable']],
    ];
    for (const [number, reasons] of cases) {
      expect(SANDBOX_NAME_ENQUIRY_ACCOUNTS[number]).toBeDefined();
      const { kyc } = (await routeWorld().attempt(input({ account_number: number }))).result;
      expect([number, kyc.status, kyc.review?.reasons]).toEqual([number, 'pending_review', reasons]);
    }
  });

  it('asks no provider about a bank outside Nigeria', async () => {
    let asked = 0;
    const w = routeWorld(
      liveProvider(async () => {
        asked++;
        return { outcome: 'found', account_name: 'X' };
      }),
    );
    const { kyc } = (await w.attemptLive(ghanaian())).result;
    expect(asked).toBe(0);
    expect(kyc.review?.name_enquiry).toEqual({ provider: null, outcome: 'not_asked', account_name: null });
  });
});

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

  it('stores the owner and bank account with their numbers and personal data sealed, never in clear', async () => {
    const { attempt, sealer } = routeWorld();
    const personal = {
      phone_number: '08031234567',
      email: 'john@example.com',
      selfie_url: 'https://files.example.com/selfie.png',
      address: { street: '1 Marina', city: 'Lagos', state: 'Lagos', postal_code: '101001', country: 'NG' },
    };
    const { kyc } = (await attempt(input({}, { owner: { ...OWNER, ...personal } }))).result;
    // The ID number, then the personal fields as one sealed value (Hardening 2 item 9), then the account number.
    expect(sealer.sealed).toHaveLength(3);
    expect([sealer.sealed[0], sealer.sealed[2]]).toEqual(['12345678901', ACCESS_NUBAN]);
    expect(JSON.parse(sealer.sealed[1]!)).toMatchObject({
      ...personal,
      date_of_birth: '1990-05-17',
      phone_number: '+2348031234567', // normalised to E.164
    });
    const stored = JSON.stringify(kyc);
    for (const clear of ['1990-05-17', '8031234567', 'john@example.com', 'selfie.png', '1 Marina', '101001']) {
      expect(stored).not.toContain(clear);
    }
    expect(kyc.owner).toMatchObject({ first_name: 'John', id_type: 'nin', id_number_masked: '*******8901' });
    expect(kyc.owner).not.toHaveProperty('date_of_birth');
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
