import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startStripeMock, testStripeKeys, type StripeAnswerPatch, type StripeMock } from '../support/stripe-mock';

/**
 * Live connected accounts end to end on the started platform against stripe-mock: a live submission
 * makes the account, its Account Session and (on each visit of onboarding_url) an Account Link at
 * Stripe; Stripe's signed account events, verified and stored by payments (the Connect endpoint's
 * secret beside the platform's), move kyc's case and the marketplace's kyc_status follows; delete
 * merchant reads the account's balance and deletes the account only at zero.
 */
const KEYS = testStripeKeys();
const CONNECT_SECRET = `whsec_${randomBytes(12).toString('hex')}`;
/** A Stripe account as an account.updated carries it once onboarding is done and nothing is due. */
const enabledAccount = (account: string) => ({
  id: account,
  object: 'account',
  charges_enabled: true,
  payouts_enabled: true,
  details_submitted: true,
  requirements: { currently_due: [], past_due: [], eventually_due: [], disabled_reason: null },
});
const STRIPE_ENV = {
  STRIPE_SECRET_KEY: KEYS.secretKey,
  STRIPE_PUBLISHABLE_KEY: KEYS.publishableKey,
  STRIPE_API_BASE: '',
  STRIPE_MAX_NETWORK_RETRIES: '0',
};

describe('live connected account status from Stripe events', () => {
  let mock: StripeMock;
  let t: TestPlatform;

  /** Fields laid over stripe-mock's answers (its fixtures give every account the same id and balance). */
  let patch: StripeAnswerPatch = () => undefined;

  beforeAll(async () => {
    mock = await startStripeMock({ patch: (request) => patch(request) });
    const stripe = { ...STRIPE_ENV, STRIPE_API_BASE: mock.url };
    t = await startTestPlatform('stripe-connect-status', {
      envFor: {
        payments: {
          ...stripe,
          STRIPE_WEBHOOK_SECRET: `${KEYS.webhookSecret},${CONNECT_SECRET}`,
        },
        kyc: stripe,
      },
    });
  });
  beforeEach(() => {
    mock.requests.length = 0;
  });
  afterAll(async () => {
    await t?.stop();
    await mock?.stop();
  });

  const api = (key: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });
  const postEvent = (payload: string, secret = CONNECT_SECRET) =>
    http(t.url, 'POST', '/api/v1/processors/stripe/webhooks', {
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }),
      },
      rawBody: payload,
    });
  const connectEvent = (id: string, type: string, account: string, object: Record<string, unknown>, created: number) =>
    JSON.stringify({ id, object: 'event', type, created, account, livemode: false, data: { object } });

  /** An operator with both keys, and a US sub-merchant linked in both modes. */
  async function operatorAndSub() {
    const o = await t.merchant({ marketplace: true, country: 'NG', currency: 'NGN' });
    expect((await api(o.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts' })).status).toBe(200);
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': o.user_token },
      body: { mode: 'live', name: 'live' },
    });
    expect(live.status).toBe(201);
    const liveKey = live.body.data.api_key as string;
    expect((await api(liveKey, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts' })).status).toBe(200);
    const fields = {
      email: `sub${randomBytes(5).toString('hex')}@example.com`,
      business_name: 'Ada Goods',
      country: 'US',
      baseline_currency: 'USD',
    };
    const sub = await api(o.api_key, 'POST', '/marketplace/merchants', fields);
    expect(sub.status).toBe(201);
    const merchantId = sub.body.data.merchant_id as number;
    expect((await api(liveKey, 'POST', '/marketplace/merchants', fields)).status).toBe(201);
    return { sandboxKey: o.api_key, liveKey, merchantId };
  }

  /**
   * A live connected-account submission of `merchantId` through the API; Stripe (stripe-mock) names its
   * account `account` and holds `balance` (minor units) for it.
   */
  async function submitLive(liveKey: string, merchantId: number, account: string, balance = 0) {
    patch = (r) => {
      if (r.method === 'POST' && r.path === '/v1/accounts') return { id: account };
      if (r.path.startsWith('/v1/balance')) {
        return { available: [{ amount: balance, currency: 'usd', source_types: { card: balance } }], pending: [] };
      }
      return undefined;
    };
    const submitted = await api(liveKey, 'POST', `/marketplace/merchants/${merchantId}/kyc`, {
      country: 'US',
      business_type: 'individual',
      return_url: 'https://shop.example.com/return',
      refresh_url: 'https://shop.example.com/refresh',
    });
    expect([submitted.status, submitted.body.error]).toEqual([200, undefined]);
    return submitted.body.data as { submission_id: number; onboarding_url: string; client_secret: string };
  }

  it('a signed account.updated approves the case; the marketplace follows; deauthorization revokes it', async () => {
    const { sandboxKey, liveKey, merchantId } = await operatorAndSub();
    const sandboxSubmission = await api(sandboxKey, 'POST', `/marketplace/merchants/${merchantId}/kyc`, {
      country: 'US',
      business_type: 'individual',
      return_url: 'https://shop.example.com/return',
      refresh_url: 'https://shop.example.com/refresh',
    });
    expect(sandboxSubmission.status).toBe(200);
    // The sandbox's account is the sandbox gateway's: nothing of it reached Stripe.
    expect(mock.requests).toEqual([]);
    const account = `acct_e2e${randomBytes(6).toString('hex')}`;
    const submitted = await submitLive(liveKey, merchantId, account);
    expect(submitted).toMatchObject({
      provider: 'gateway',
      gateway_account_id: account,
      gateway_region: 'US',
      publishable_key: KEYS.publishableKey,
    });
    const accountRequest = mock.requests.find((r) => r.path === '/v1/accounts')!;
    expect(accountRequest.form).toMatchObject({
      country: 'US',
      business_type: 'individual',
      'metadata[ppay_merchant_id]': String(merchantId),
    });
    expect(mock.requests.some((r) => r.path === '/v1/account_sessions' && r.form.account === account)).toBe(true);
    // Our onboarding_url sends the merchant on to a fresh Account Link, which refreshes back to it.
    const visit = await fetch(`${t.url}${new URL(submitted.onboarding_url).pathname}`, { redirect: 'manual' });
    expect(visit.status).toBe(303);
    expect(visit.headers.get('location')).toMatch(/^https:\/\//);
    const link = mock.requests.find((r) => r.path === '/v1/account_links')!;
    expect(link.form).toMatchObject({
      account,
      type: 'account_onboarding',
      return_url: 'https://shop.example.com/return',
      refresh_url: submitted.onboarding_url,
    });
    const status = async () => (await api(liveKey, 'GET', `/marketplace/merchants/${merchantId}/kyc`)).body.data;
    expect(await status()).toMatchObject({
      id: submitted.submission_id,
      status: 'pending_onboarding',
      gateway_account_id: account,
    });

    const created = Math.floor(Date.now() / 1000);
    const enabled = enabledAccount(account);
    const approved = connectEvent(
      `evt_${randomBytes(6).toString('hex')}`,
      'account.updated',
      account,
      enabled,
      created,
    );
    // Signed with neither endpoint's secret: refused, nothing stored.
    const forged = await postEvent(approved, `whsec_${randomBytes(12).toString('hex')}`);
    expect([forged.status, forged.body.error?.code]).toEqual([400, 'PROCESSOR_SIGNATURE_INVALID']);
    const first = await postEvent(approved);
    expect([first.status, first.body]).toEqual([200, { received: true, outcome: 'received' }]);
    expect(await eventually(async () => (await status()).status === 'approved', 15_000)).toBe(true);
    expect((await postEvent(approved)).body.outcome).toBe('duplicate');

    const listed = async () =>
      (
        (await api(liveKey, 'GET', '/marketplace/merchants?limit=100')).body.data.merchants as {
          merchant_id: number;
          kyc_status: string;
        }[]
      ).find((m) => m.merchant_id === merchantId);
    expect(await eventually(async () => (await listed())?.kyc_status === 'approved', 15_000)).toBe(true);
    // The sandbox case is untouched: the event is about the live account only.
    expect((await api(sandboxKey, 'GET', `/marketplace/merchants/${merchantId}/kyc`)).body.data.status).toBe(
      'pending_onboarding',
    );

    // An older snapshot arriving late (more information due) is stale: the case stays approved.
    const older = connectEvent(
      `evt_${randomBytes(6).toString('hex')}`,
      'account.updated',
      account,
      { ...enabled, requirements: { ...enabled.requirements, currently_due: ['individual.id_number'] } },
      created - 60,
    );
    expect((await postEvent(older)).status).toBe(200);
    const inbox = (await t.db('payments')).collection('processor_events');
    const olderId = `stripe:${JSON.parse(older).id}`;
    expect(
      await eventually(async () => (await inbox.findOne({ _id: olderId as never }))?.status === 'stale', 15_000),
    ).toBe(true);
    expect((await status()).status).toBe('approved');

    const deauthorized = connectEvent(
      `evt_${randomBytes(6).toString('hex')}`,
      'account.application.deauthorized',
      account,
      { id: 'ca_platform', object: 'application', name: 'Partner Payments' },
      created + 1,
    );
    expect((await postEvent(deauthorized)).status).toBe(200);
    expect(await eventually(async () => (await status()).status === 'revoked', 15_000)).toBe(true);
    expect(await eventually(async () => (await listed())?.kyc_status === 'revoked', 15_000)).toBe(true);
    expect(await status()).toMatchObject({ payouts_enabled: false });
  });

  it('delete merchant deletes the Stripe account at zero balance, and keeps one holding money', async () => {
    const results: Record<string, unknown>[] = [];
    for (const balance of [0, 1350]) {
      const { liveKey, merchantId } = await operatorAndSub();
      const account = `acct_del${randomBytes(6).toString('hex')}`;
      await submitLive(liveKey, merchantId, account, balance);
      const event = connectEvent(
        `evt_${randomBytes(6).toString('hex')}`,
        'account.updated',
        account,
        enabledAccount(account),
        1,
      );
      expect((await postEvent(event)).status).toBe(200);
      const status = async () => (await api(liveKey, 'GET', `/marketplace/merchants/${merchantId}/kyc`)).body.data;
      expect(await eventually(async () => (await status()).status === 'approved', 15_000)).toBe(true);
      mock.requests.length = 0;
      const deleted = await api(liveKey, 'DELETE', `/marketplace/merchants/${merchantId}/delete`);
      expect([deleted.status, deleted.body.error]).toEqual([200, undefined]);
      results.push(deleted.body.data);
      const read = mock.requests.filter((r) => r.path.startsWith('/v1/balance'));
      expect(read.map((r) => r.headers['stripe-account'])).toEqual([account]);
      const deletes = mock.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);
      expect(deletes).toEqual(balance === 0 ? [`/v1/accounts/${account}`] : []);
    }
    expect(results).toEqual([
      { gateway_skipped: false, gateway_balance: { amount: 0, currency: 'USD' } },
      // Standard units, as the spec shows it: 1350 cents held at Stripe.
      { gateway_skipped: true, gateway_balance: { amount: 13.5, currency: 'USD' } },
    ]);
  });

  it('an event of an account no case has is acknowledged, then waits for its case (unmatched after 10 minutes)', async () => {
    const payload = connectEvent(
      `evt_${randomBytes(6).toString('hex')}`,
      'account.updated',
      'acct_nobody',
      { id: 'acct_nobody', object: 'account', charges_enabled: false, payouts_enabled: false, requirements: {} },
      Math.floor(Date.now() / 1000),
    );
    const res = await postEvent(payload);
    expect([res.status, res.body.outcome]).toEqual([200, 'received']);
    const inbox = (await t.db('payments')).collection('processor_events');
    const stored = async () => inbox.findOne({ _id: `stripe:${JSON.parse(payload).id}` as never });
    expect(await eventually(async () => ((await stored())?.attempts ?? 0) >= 1, 15_000)).toBe(true);
    expect((await stored())?.status).toBe('received');
  });
});
