import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startStripeMock, testStripeKeys, type StripeMock } from '../support/stripe-mock';

/**
 * A live connected account's KYC moved by Stripe's signed account events on the started platform:
 * payments verifies and stores the event (the Connect endpoint's secret beside the platform's), kyc
 * moves the case, and the marketplace's kyc_status follows. Helper-made live connected cases come from
 * the live Stripe provider; until it is wired, the case is arranged in kyc's store from a sandbox one.
 */
const KEYS = testStripeKeys();
const CONNECT_SECRET = `whsec_${randomBytes(12).toString('hex')}`;

describe('live connected account status from Stripe events', () => {
  let mock: StripeMock;
  let t: TestPlatform;

  beforeAll(async () => {
    mock = await startStripeMock();
    t = await startTestPlatform('stripe-connect-status', {
      envFor: {
        payments: {
          STRIPE_SECRET_KEY: KEYS.secretKey,
          STRIPE_PUBLISHABLE_KEY: KEYS.publishableKey,
          STRIPE_WEBHOOK_SECRET: `${KEYS.webhookSecret},${CONNECT_SECRET}`,
          STRIPE_API_BASE: mock.url,
          STRIPE_MAX_NETWORK_RETRIES: '0',
        },
      },
    });
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
   * A live connected-account case of `merchantId` at `account`, pending onboarding: the sandbox route's
   * case (made through the API) copied as the live one the live provider would make.
   */
  async function liveConnectedCase(sandboxKey: string, merchantId: number, account: string) {
    const submitted = await api(sandboxKey, 'POST', `/marketplace/merchants/${merchantId}/kyc`, {
      country: 'US',
      business_type: 'individual',
      return_url: 'https://shop.example.com/return',
      refresh_url: 'https://shop.example.com/refresh',
    });
    expect([submitted.status, submitted.body.data?.provider]).toEqual([200, 'gateway']);
    const cases = (await t.db('kyc')).collection('kyc_cases');
    const sandboxCase = await cases.findOne({ merchant_id: merchantId, mode: 'sandbox' });
    const id = 900_000_000 + Math.floor(Math.random() * 1e8);
    await cases.insertOne({
      ...sandboxCase!,
      _id: id as never,
      mode: 'live',
      connected: { ...sandboxCase!.connected, gateway_account_id: account },
      link: null,
      superseded_links: [],
      outbox: [],
    });
    return id;
  }

  it('a signed account.updated approves the case; the marketplace follows; deauthorization revokes it', async () => {
    const { sandboxKey, liveKey, merchantId } = await operatorAndSub();
    const account = `acct_e2e${randomBytes(6).toString('hex')}`;
    const id = await liveConnectedCase(sandboxKey, merchantId, account);
    const status = async () => (await api(liveKey, 'GET', `/marketplace/merchants/${merchantId}/kyc`)).body.data;
    expect(await status()).toMatchObject({ id, status: 'pending_onboarding', gateway_account_id: account });

    const created = Math.floor(Date.now() / 1000);
    const enabled = {
      id: account,
      object: 'account',
      charges_enabled: true,
      payouts_enabled: true,
      details_submitted: true,
      requirements: { currently_due: [], past_due: [], eventually_due: [], disabled_reason: null },
    };
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
