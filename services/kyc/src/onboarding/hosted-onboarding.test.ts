import {
  asDecoded,
  LINK_TTL_MS,
  OPERATOR,
  operatorWorld,
  sandbox,
  SUB,
  submissionEvents,
} from '../memory-ports.test-util';
import { connectedBody } from '../submissions/submission-bodies.test-util';

/** A sandbox connected-account submission and its onboarding link. */
async function startOnboarding(w: ReturnType<typeof operatorWorld>) {
  const res = await w.submissions.submit(
    sandbox,
    SUB,
    asDecoded('SubmitKyc', connectedBody({ business_type: 'registered_business' })),
  );
  if (res.kind !== 'connected') throw new Error('expected the connected route');
  return res;
}

describe('hosted onboarding page', () => {
  it('a link is single use: completing onboarding approves, and the link then leads to refresh_url', async () => {
    const w = operatorWorld();
    const res = await startOnboarding(w);
    const view = await w.onboarding.onboardingLink(res.token);
    expect(view).toMatchObject({ state: 'active', refreshUrl: 'https://shop.example.com/refresh' });
    const done = await w.onboarding.finishOnboarding(res.token, 'complete');
    expect(done).toEqual({ state: 'done', redirectUrl: 'https://shop.example.com/return' });
    expect((await w.cases.findById(res.kyc.id))!.status).toBe('approved');
    expect(submissionEvents(w).at(-1)).toMatchObject({ change: 'onboarding_completed', status: 'approved' });
    // Single use: the same link now leads to refresh_url and changes nothing.
    expect(await w.onboarding.finishOnboarding(res.token, 'abandon')).toEqual({
      state: 'used',
      redirectUrl: 'https://shop.example.com/refresh',
    });
    await expect(w.onboarding.onboardingLink('onb_' + 'x'.repeat(32))).rejects.toMatchObject({
      code: 'ONBOARDING_LINK_NOT_FOUND',
    });
    await expect(w.onboarding.onboardingLink('nonsense')).rejects.toMatchObject({ code: 'ONBOARDING_LINK_NOT_FOUND' });
  });

  it('abandoning keeps the status; a new link supersedes the old one; an expired link goes to refresh_url', async () => {
    const w = operatorWorld();
    const first = await w.submissions.submit(sandbox, SUB, connectedBody());
    if (first.kind !== 'connected') throw new Error('connected');
    const second = await w.submissions.submit(
      sandbox,
      SUB,
      connectedBody({ refresh_url: 'https://shop.example.com/again' }),
    );
    if (second.kind !== 'connected') throw new Error('connected');
    expect(second.kyc.connected!.gateway_account_id).toBe(first.kyc.connected!.gateway_account_id);
    expect(w.gateway.created).toBe(1);
    expect(submissionEvents(w)).toHaveLength(1); // a new link is not a status change
    expect(await w.onboarding.finishOnboarding(first.token, 'complete')).toEqual({
      state: 'used',
      redirectUrl: 'https://shop.example.com/refresh',
    });
    expect(await w.onboarding.finishOnboarding(second.token, 'abandon')).toEqual({
      state: 'done',
      redirectUrl: 'https://shop.example.com/return',
    });
    expect((await w.cases.findById(second.kyc.id))!.status).toBe('pending_onboarding');

    const third = await w.submissions.submit(sandbox, SUB, connectedBody());
    if (third.kind !== 'connected') throw new Error('connected');
    w.clock.advance(LINK_TTL_MS);
    expect((await w.onboarding.onboardingLink(third.token)).state).toBe('expired');
    expect(await w.onboarding.finishOnboarding(third.token, 'complete')).toEqual({
      state: 'expired',
      redirectUrl: 'https://shop.example.com/refresh',
    });
    expect((await w.cases.findById(third.kyc.id))!.status).toBe('pending_onboarding');
  });

  it('the sandbox gateway may decline (rejected), after which onboarding can start again', async () => {
    const w = operatorWorld();
    const first = await w.submissions.submit(sandbox, SUB, connectedBody());
    if (first.kind !== 'connected') throw new Error('connected');
    await w.onboarding.finishOnboarding(first.token, 'reject');
    expect((await w.cases.findById(first.kyc.id))!).toMatchObject({
      status: 'rejected',
      rejection_reason: 'Declined by the connected-account gateway',
    });
    expect((await w.submissions.submit(sandbox, SUB, connectedBody())).kyc.status).toBe('pending_onboarding');
    // The sandbox helper's approve ends onboarding too.
    expect((await w.reviews.decideInSandbox(sandbox, first.kyc.id, { action: 'approve' })).status).toBe('approved');
    await expect(w.submissions.submit(sandbox, SUB, connectedBody())).rejects.toMatchObject({
      message: 'KYC submission is approved; cannot start_onboarding',
    });
  });
});

const live = { operatorId: OPERATOR, mode: 'live' as const };
const HERE = 'https://pay.example.com/onboarding/here';

/** A live connected-account submission and its onboarding link. */
async function startLiveOnboarding(w: ReturnType<typeof operatorWorld>) {
  const res = await w.submissions.submit(live, SUB, asDecoded('SubmitKyc', connectedBody()));
  if (res.kind !== 'connected') throw new Error('expected the connected route');
  return res;
}

describe('onboarding link in live', () => {
  it("sends the merchant on to a fresh link to the gateway's own onboarding, which refreshes back here", async () => {
    const w = operatorWorld();
    const res = await startLiveOnboarding(w);
    const first = await w.onboarding.onboardingLink(res.token, HERE);
    expect(first).toMatchObject({
      state: 'active',
      gatewayUrl: 'https://connect.gateway.test/setup/onboarding/acct_live1/1',
    });
    expect(w.liveGateway.links).toEqual([
      { account: 'acct_live1', purpose: 'onboarding', returnUrl: 'https://shop.example.com/return', refreshUrl: HERE },
    ]);
    // Gateway links last minutes: every visit gets its own, while ours lasts.
    expect((await w.onboarding.onboardingLink(res.token, HERE)).gatewayUrl).toMatch(/\/2$/);
    // Without its own address, the gateway's refresh goes to the operator's refresh_url.
    await w.onboarding.onboardingLink(res.token);
    expect(w.liveGateway.links[2]!.refreshUrl).toBe('https://shop.example.com/refresh');
    expect(w.gateway.links).toEqual([]);
  });

  it('an expired or superseded live link leads to refresh_url and asks the gateway for nothing', async () => {
    const w = operatorWorld();
    const first = await startLiveOnboarding(w);
    const second = await startLiveOnboarding(w);
    expect(await w.onboarding.onboardingLink(first.token, HERE)).toMatchObject({
      state: 'used',
      refreshUrl: 'https://shop.example.com/refresh',
      gatewayUrl: null,
    });
    w.clock.advance(LINK_TTL_MS);
    expect(await w.onboarding.onboardingLink(second.token, HERE)).toMatchObject({ state: 'expired', gatewayUrl: null });
    expect(w.liveGateway.links).toEqual([]);
  });

  it('a live case is never approved, declined or abandoned by the page: 422 and nothing changes', async () => {
    const w = operatorWorld();
    const res = await startLiveOnboarding(w);
    const before = structuredClone(w.cases.docs.get(res.kyc.id)!);
    const eventsBefore = w.cases.events.length;
    for (const outcome of ['complete', 'reject', 'abandon'] as const) {
      await expect(w.onboarding.finishOnboarding(res.token, outcome)).rejects.toMatchObject({
        code: 'ONBOARDING_LIVE_NOT_AVAILABLE',
        httpStatus: 422,
      });
    }
    expect(w.cases.docs.get(res.kyc.id)).toEqual(before);
    expect(w.cases.docs.get(res.kyc.id)!.status).toBe('pending_onboarding');
    expect(w.cases.events).toHaveLength(eventsBefore);
  });

  it('the payout details update of an approved live account is an update link and a fresh client secret', async () => {
    const w = operatorWorld();
    const usSub = 1050;
    w.directory.addSub(OPERATOR, usSub, 'US', 'USD');
    const res = await w.submissions.submit(live, usSub, asDecoded('SubmitKyc', connectedBody()));
    const c = w.cases.docs.get(res.kyc.id)!;
    w.cases.docs.set(res.kyc.id, { ...c, status: 'approved' });
    const payout = await w.payoutAccounts.setup(live, usSub, { callback_url: 'https://shop.example.com/payout' });
    if (payout.kind !== 'connected_account') throw new Error('expected a connected account');
    expect(payout.client_secret).toBe('acct_live1_secret_2');
    expect((await w.onboarding.onboardingLink(payout.token, HERE)).gatewayUrl).toContain('/setup/update/acct_live1/');
    expect(w.liveGateway.links.at(-1)).toMatchObject({
      purpose: 'update',
      returnUrl: 'https://shop.example.com/payout',
    });
  });
});
