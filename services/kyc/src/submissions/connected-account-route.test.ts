import type { KycPayoutAccountUpdated } from '@ppay/kernel';
import type { KycCaseRecord } from '../cases/kyc-case';
import { FakeConnectedAccounts, LINK_TTL_MS, live, MemoryCases, OPERATOR } from '../memory-ports.test-util';
import { CONNECTED_MESSAGE, ConnectedAccountRoute } from './connected-account-route';
import { attemptOn, bankPayoutIn, changes, LATER } from './route-attempts.test-util';
import type { ConnectedSubmission } from './submission';
import { connectedBody, normalise, NOW } from './submission-bodies.test-util';

const input = (extra?: Record<string, unknown>) => normalise(connectedBody(extra)) as ConnectedSubmission;

function routeWorld() {
  const cases = new MemoryCases();
  const gateway = new FakeConnectedAccounts();
  const route = new ConnectedAccountRoute({ cases, providers: { sandbox: gateway } }, { linkTtlMs: LINK_TTL_MS });
  const attempt = (existing: KycCaseRecord | null = null, options: Parameters<typeof attemptOn>[2] = {}) =>
    attemptOn(route, input(), { existing, ...options });
  return { cases, gateway, route, attempt };
}

describe('ConnectedAccountRoute', () => {
  it('creates a connected account and an onboarding link for a first submission', async () => {
    const { attempt, gateway } = routeWorld();
    const outcome = await attempt();
    expect(gateway.created).toBe(1);
    expect(outcome.result).toMatchObject({ kind: 'connected', message: CONNECTED_MESSAGE });
    expect(outcome.result.kyc).toMatchObject({
      id: 1,
      status: 'pending_onboarding',
      route: 'connected_account',
      provider: 'gateway',
      format: 'connected',
      owner: null,
      bank_account: null,
      review: null,
      connected: { gateway_account_id: 'acct_test1', gateway_region: 'US', country: 'US', preferred_currency: null },
      link: { purpose: 'onboarding', return_url: 'https://shop.example.com/return', used_at: null },
      superseded_links: [],
      submitted_at: NOW,
      reviewed_at: null,
      version: 1,
    });
    expect(outcome.result.kyc.history).toEqual([
      {
        action: 'start_onboarding',
        from_status: 'not_started',
        to_status: 'pending_onboarding',
        actor: 'operator',
        actor_id: `operator:${OPERATOR}`,
        reason: null,
        at: NOW,
      },
    ]);
    expect(changes(outcome)).toEqual(['onboarding_started']);
  });

  it('a new link while onboarding is pending keeps the account and submission time, and tells nobody', async () => {
    const { attempt, gateway, route } = routeWorld();
    const first = (await attempt()).result.kyc;
    const again = input({ refresh_url: 'https://shop.example.com/2' });
    const outcome = await attemptOn(route, again, { existing: first, at: LATER });
    expect(gateway.created).toBe(1);
    expect(outcome.result.kyc).toMatchObject({
      id: first.id,
      connected: first.connected,
      submitted_at: NOW,
      version: 2,
      updated_at: LATER,
      link: { refresh_url: 'https://shop.example.com/2' },
      superseded_links: [{ token_hash: first.link!.token_hash, refresh_url: 'https://shop.example.com/refresh' }],
    });
    expect(outcome.result.kyc.history.at(-1)).toMatchObject({ reason: 'new onboarding link', at: LATER });
    expect(outcome.events).toEqual([]);
  });

  it('uses the account an attempt that lost its write race created, never a second one', async () => {
    const { attempt, gateway } = routeWorld();
    const lost = await attempt();
    const retried = await attempt(null, { previous: lost });
    expect(gateway.created).toBe(1);
    expect(retried.result.kyc.connected).toEqual(lost.result.kyc.connected);
  });

  it('checks the status before the gateway: a refused submission creates no account', async () => {
    const { attempt, gateway } = routeWorld();
    const first = (await attempt()).result.kyc;
    const approved: KycCaseRecord = { ...first, route: 'in_house', connected: null, status: 'approved' };
    await expect(attempt(approved)).rejects.toMatchObject({ code: 'KYC_TRANSITION_NOT_ALLOWED', detail: 'approved' });
    expect(gateway.created).toBe(1);
  });

  it('answers GATEWAY_NOT_CONFIGURED in a mode without a gateway', async () => {
    const { attempt, gateway } = routeWorld();
    await expect(attempt(null, { caller: live })).rejects.toMatchObject({
      code: 'GATEWAY_NOT_CONFIGURED',
      param: 'country',
    });
    expect(gateway.created).toBe(0);
  });

  it('detaches the bank payout account of an in-house case that moves to this route', async () => {
    const { attempt, gateway } = routeWorld();
    const first = (await attempt()).result.kyc;
    const inHouse: KycCaseRecord = {
      ...first,
      route: 'in_house',
      connected: null,
      status: 'rejected',
      payout: bankPayoutIn('NGN'),
    };
    const outcome = await attempt(inHouse, { at: LATER });
    expect(gateway.created).toBe(2);
    expect(outcome.result.kyc.payout).toEqual({ set_up_at: NOW, updated_at: LATER, account: null });
    expect(outcome.result.kyc.history.at(-1)).toMatchObject({ action: 'payout_account_detached' });
    expect(changes(outcome)).toEqual(['onboarding_started', 'detached']);
    expect(outcome.events[1].data as KycPayoutAccountUpdated).toMatchObject({ account: null, payout_eligible: false });
  });
});
