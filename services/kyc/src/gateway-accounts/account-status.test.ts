import { asDecoded, kycWorld, LINK_TTL_MS, live, OPERATOR, submissionEvents } from '../memory-ports.test-util';
import { KycSubmissionService, submissionRoutes } from '../submissions/kyc-submissions';
import { connectedBody } from '../submissions/submission-bodies.test-util';
import { payoutEligible } from '../cases/kyc-case';
import { INFO_REQUEST_MAX } from '../cases/kyc-status';
import {
  ConnectedAccountStatusService,
  DEAUTHORIZED_REASON,
  gatewayVerdict,
  type ConnectedAccountSnapshot,
} from './account-status';

const SUB = 2001;

/** A live connected-account submission of OPERATOR's US sub-merchant (the fake gateway made its account). */
async function liveCase() {
  const w = kycWorld();
  w.directory.addOperator(OPERATOR);
  w.directory.addSub(OPERATOR, SUB, 'US', 'USD');
  const deps = { cases: w.cases, directory: w.directory, sealer: w.sealer, banks: w.banks, now: w.clock.now };
  const routes = submissionRoutes(
    { ...deps, providers: { live: w.gateway }, nameEnquiry: w.nameEnquiry },
    { linkTtlMs: LINK_TTL_MS },
  );
  const res = await new KycSubmissionService({ ...deps, routes }).submit(
    live,
    SUB,
    asDecoded('SubmitKyc', connectedBody()),
  );
  if (res.kind !== 'connected') throw new Error('expected the connected route');
  const changed: string[] = [];
  const statuses = new ConnectedAccountStatusService({
    cases: w.cases,
    now: w.clock.now,
    changed: (to) => changed.push(to),
  });
  const accountId = res.kyc.connected!.gateway_account_id;
  const stored = async () => (await w.cases.findByMerchant(SUB, 'live'))!;
  return { ...w, statuses, changed, accountId, stored };
}

let seq = 0;
const T0 = new Date('2026-12-01T10:00:00Z');

/** A snapshot of `account` at T0 + `second` seconds; by default onboarding not done (details due). */
function snapshot(account: string, over: Partial<ConnectedAccountSnapshot> = {}, second = 0): ConnectedAccountSnapshot {
  return {
    gateway_account_id: account,
    event_id: `evt_${++seq}`,
    event_type: 'account.updated',
    occurred_at: new Date(T0.getTime() + second * 1_000),
    charges_enabled: false,
    payouts_enabled: false,
    details_submitted: false,
    currently_due: ['individual.first_name', 'external_account'],
    past_due: [],
    eventually_due: [],
    disabled_reason: 'requirements.past_due',
    deauthorized: false,
    ...over,
  };
}

const ENABLED = {
  charges_enabled: true,
  payouts_enabled: true,
  details_submitted: true,
  currently_due: [],
  past_due: [],
  disabled_reason: null,
};
const MORE_INFO = {
  details_submitted: true,
  currently_due: ['individual.verification.document'],
  past_due: ['company.tax_id'],
  disabled_reason: 'requirements.past_due',
};

describe('live connected account status from the gateway (issue 34 item 2)', () => {
  it('approves a case once requirements are met with charges and payouts enabled, with its event', async () => {
    const w = await liveCase();
    expect((await w.stored()).status).toBe('pending_onboarding');
    const res = await w.statuses.apply(snapshot(w.accountId, ENABLED));
    expect(res).toMatchObject({ outcome: 'applied', kyc: { status: 'approved' } });
    const c = await w.stored();
    expect(c).toMatchObject({ status: 'approved', rejection_reason: null, additional_info_request: null });
    expect(c.connected!.status_event_at).toEqual(T0);
    expect(c.history.at(-1)).toMatchObject({
      action: 'gateway_approve',
      from_status: 'pending_onboarding',
      to_status: 'approved',
      actor: 'gateway',
    });
    expect(submissionEvents(w).at(-1)).toMatchObject({
      previous_status: 'pending_onboarding',
      status: 'approved',
      change: 'approved',
      mode: 'live',
      merchant_id: SUB,
    });
    expect(w.changed).toEqual(['approved']);
  });

  it('leaves a case whose merchant has not finished onboarding where it is', async () => {
    const w = await liveCase();
    const before = submissionEvents(w).length;
    expect(await w.statuses.apply(snapshot(w.accountId))).toMatchObject({
      outcome: 'unchanged',
      kyc: { status: 'pending_onboarding' },
    });
    expect(submissionEvents(w)).toHaveLength(before);
    // Its time is recorded all the same: an older snapshot is stale after it.
    expect((await w.stored()).connected!.status_event_at).toEqual(T0);
  });

  it('asks for more information when requirements are currently or past due, then approves once given', async () => {
    const w = await liveCase();
    await w.statuses.apply(snapshot(w.accountId, MORE_INFO, 1));
    const c = await w.stored();
    expect(c.status).toBe('additional_info_requested');
    expect(c.additional_info_request).toBe('The card gateway needs: company.tax_id, individual.verification.document');
    expect(submissionEvents(w).at(-1)).toMatchObject({ change: 'info_requested', status: 'additional_info_requested' });
    expect(payoutEligible(c)).toBe(false);

    await w.statuses.apply(snapshot(w.accountId, ENABLED, 2));
    expect((await w.stored()).status).toBe('approved');
    // Later the gateway needs more again (its requirements change over an account's life).
    await w.statuses.apply(snapshot(w.accountId, { ...MORE_INFO, past_due: [] }, 3));
    expect((await w.stored()).status).toBe('additional_info_requested');
    expect(w.changed).toEqual(['additional_info_requested', 'approved', 'additional_info_requested']);
  });

  it('keeps the request bounded however many requirements are due', () => {
    const due = Array.from({ length: 50 }, (_, i) => `person_${i}.verification.additional_document.front`);
    const verdict = gatewayVerdict(snapshot('acct_x', { ...MORE_INFO, currently_due: due, past_due: [] }));
    expect(verdict?.type).toBe('gateway_request_info');
    const message = (verdict as { message: string }).message;
    expect(message.length).toBeLessThanOrEqual(INFO_REQUEST_MAX);
    expect(message).toMatch(/… and \d+ more$/);
  });

  it('rejects with the gateway’s reason', async () => {
    const w = await liveCase();
    await w.statuses.apply(
      snapshot(w.accountId, {
        ...ENABLED,
        charges_enabled: false,
        payouts_enabled: false,
        disabled_reason: 'rejected.fraud',
      }),
    );
    const c = await w.stored();
    expect(c).toMatchObject({ status: 'rejected', rejection_reason: 'rejected.fraud' });
    expect(submissionEvents(w).at(-1)).toMatchObject({ change: 'rejected', rejection_reason: 'rejected.fraud' });
    expect(w.changed).toEqual(['rejected']);
  });

  it('revokes a deauthorized account, approved or not, and revoked stays terminal', async () => {
    const w = await liveCase();
    await w.statuses.apply(snapshot(w.accountId, ENABLED, 1));
    await w.statuses.apply(snapshot(w.accountId, { deauthorized: true }, 2));
    const c = await w.stored();
    expect(c).toMatchObject({ status: 'revoked', rejection_reason: DEAUTHORIZED_REASON });
    expect(submissionEvents(w).at(-1)).toMatchObject({ change: 'revoked', previous_status: 'approved' });
    expect(payoutEligible(c)).toBe(false);
    const events = submissionEvents(w).length;
    expect(await w.statuses.apply(snapshot(w.accountId, ENABLED, 3))).toMatchObject({
      outcome: 'refused',
      kyc: { status: 'revoked' },
    });
    expect(submissionEvents(w)).toHaveLength(events);
    expect(w.changed).toEqual(['approved', 'revoked']);
  });

  it('applies the same snapshot once: a repeat writes nothing and emits nothing', async () => {
    const w = await liveCase();
    const s = snapshot(w.accountId, ENABLED);
    await w.statuses.apply(s);
    const after = await w.stored();
    const events = w.cases.events.length;
    expect(await w.statuses.apply(s)).toMatchObject({ outcome: 'unchanged', kyc: { status: 'approved' } });
    expect(await w.statuses.apply({ ...s, event_id: 'evt_other' })).toMatchObject({ outcome: 'unchanged' });
    expect(await w.stored()).toEqual(after);
    expect(w.cases.events).toHaveLength(events);
    expect(w.changed).toEqual(['approved']);
  });

  it('ignores a snapshot older than the last applied (out of order), whatever it says', async () => {
    const w = await liveCase();
    await w.statuses.apply(snapshot(w.accountId, ENABLED, 10));
    const after = await w.stored();
    for (const older of [MORE_INFO, { disabled_reason: 'rejected.other' }, {}]) {
      expect(await w.statuses.apply(snapshot(w.accountId, older, 9))).toMatchObject({
        outcome: 'stale',
        kyc: { status: 'approved' },
      });
    }
    expect(await w.stored()).toEqual(after);
    // A newer one still applies.
    await w.statuses.apply(snapshot(w.accountId, MORE_INFO, 11));
    expect((await w.stored()).status).toBe('additional_info_requested');
  });

  it('answers not_found for an account no live case has (sandbox cases included)', async () => {
    const w = await liveCase();
    expect(await w.statuses.apply(snapshot('acct_unknown', ENABLED))).toEqual({ outcome: 'not_found' });
    expect(await w.statuses.apply(snapshot(w.accountId, ENABLED), 'sandbox')).toEqual({ outcome: 'not_found' });
    expect((await w.stored()).status).toBe('pending_onboarding');
  });

  it('decides nothing while the gateway still verifies (nothing due, not yet enabled)', () => {
    expect(
      gatewayVerdict(snapshot('acct_x', { ...ENABLED, payouts_enabled: false, disabled_reason: 'under_review' })),
    ).toBeNull();
    expect(gatewayVerdict(snapshot('acct_x', { ...ENABLED, charges_enabled: false }))).toBeNull();
  });

  it('retries a write that lost the race on the case', async () => {
    const w = await liveCase();
    w.cases.loseNextSave = true;
    expect(await w.statuses.apply(snapshot(w.accountId, ENABLED))).toMatchObject({ outcome: 'applied' });
    expect((await w.stored()).status).toBe('approved');
    expect(w.changed).toEqual(['approved']);
  });
});
