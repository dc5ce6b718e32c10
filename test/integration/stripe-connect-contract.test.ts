import { ProcessorGuard } from '@ppay/runtime';
import { stripeClient } from '@ppay/stripe-support';
import type { ConnectedAccount } from '../../services/kyc/src/cases/kyc-case';
import { accountKey, StripeConnectedAccounts } from '../../services/kyc/src/connect/stripe-connected-accounts.adapter';
import {
  startStripeMock,
  stripeMockSettings,
  testStripeKeys,
  type StripeAnswerPatch,
  type StripeMock,
} from '../support/stripe-mock';

/**
 * Contract tests of kyc's live connected accounts on Stripe Connect (docs/decisions.md C1–C9) against
 * stripe-mock: every request checked against Stripe's API description, answers in its object shapes.
 * Flows are unit tests (onboarding/hosted-onboarding.test.ts, gateway-accounts) and the platform run
 * (stripe-connect-status.test.ts).
 */
const KEYS = testStripeKeys();
const EU_KEY = testStripeKeys().secretKey;
let mock: StripeMock;
let patch: StripeAnswerPatch = () => undefined;

beforeAll(async () => {
  mock = await startStripeMock({ patch: (request) => patch(request) });
});
afterAll(() => mock?.stop());
beforeEach(() => {
  patch = () => undefined;
  mock.requests.length = 0;
});

function connect() {
  const settings = stripeMockSettings(mock, KEYS);
  const outcomes: string[] = [];
  const provider = new StripeConnectedAccounts(
    { US: stripeClient(settings), EU: stripeClient({ ...settings, secretKey: EU_KEY }) },
    { US: KEYS.publishableKey, EU: 'pk_test_eu' },
    { call: (op, outcome) => outcomes.push(`${op}:${outcome}`), authFailure: () => outcomes.push('auth') },
    new ProcessorGuard('stripe_connect', { timeoutMs: 10_000, resetTimeoutMs: 30_000 }),
  );
  return { provider, outcomes };
}

const only = (method: string, path: string) => {
  const seen = mock.requests.filter((r) => r.method === method && r.path.split('?')[0] === path);
  expect(seen).toHaveLength(1);
  return seen[0]!;
};
const account = (over: Partial<ConnectedAccount> = {}): ConnectedAccount => ({
  gateway_account_id: 'acct_contract1',
  gateway_region: 'US',
  country: 'US',
  preferred_currency: null,
  ...over,
});

describe('Stripe Connect contract (stripe-mock)', () => {
  it('creates an account with controller properties and both capabilities, keyed by the merchant', async () => {
    const { provider, outcomes } = connect();
    patch = (r) => (r.path === '/v1/accounts' ? { id: 'acct_contract42' } : undefined);
    const made = await provider.createAccount({
      merchantId: 42,
      country: 'US',
      businessType: 'registered_business',
      settlementCurrency: 'USD',
      region: 'US',
    });
    expect(made).toEqual({ gateway_account_id: 'acct_contract42' });
    const sent = only('POST', '/v1/accounts');
    expect(sent.status).toBe(200);
    expect(sent.form).toEqual({
      country: 'US',
      business_type: 'company',
      default_currency: 'usd',
      'controller[requirement_collection]': 'application',
      'controller[fees][payer]': 'application',
      'controller[losses][payments]': 'application',
      'controller[stripe_dashboard][type]': 'none',
      'capabilities[card_payments][requested]': 'true',
      'capabilities[transfers][requested]': 'true',
      'metadata[ppay_merchant_id]': '42',
    });
    expect(sent.headers['idempotency-key']).toBe(accountKey(42));
    expect(sent.headers.authorization).toBe(`Bearer ${KEYS.secretKey}`);
    expect(outcomes).toEqual(['account_create:ok']);
  });

  it("an EU account is made with the EU platform account's key; an individual is business_type individual", async () => {
    const { provider } = connect();
    await provider.createAccount({
      merchantId: 43,
      country: 'DE',
      businessType: 'individual',
      settlementCurrency: 'EUR',
      region: 'EU',
    });
    const sent = only('POST', '/v1/accounts');
    expect(sent.headers.authorization).toBe(`Bearer ${EU_KEY}`);
    expect(sent.form).toMatchObject({ country: 'DE', business_type: 'individual', default_currency: 'eur' });
  });

  it('hands out an Account Session secret for embedded onboarding, and one for payout details', async () => {
    const { provider, outcomes } = connect();
    expect(await provider.clientSecret(account(), 'onboarding')).toEqual(expect.stringMatching(/\S{8,}/));
    expect(only('POST', '/v1/account_sessions').form).toEqual({
      account: 'acct_contract1',
      'components[account_onboarding][enabled]': 'true',
    });
    mock.requests.length = 0;
    await provider.clientSecret(account({ gateway_region: 'EU' }), 'update');
    const update = only('POST', '/v1/account_sessions');
    expect(update.form).toEqual({
      account: 'acct_contract1',
      'components[account_management][enabled]': 'true',
      'components[account_management][features][external_account_collection]': 'true',
    });
    expect(update.headers.authorization).toBe(`Bearer ${EU_KEY}`);
    expect(outcomes).toEqual(['account_session:ok', 'account_session:ok']);
  });

  it('makes Account Links: onboarding collects everything eventually due; an update link for payouts', async () => {
    const { provider } = connect();
    const urls = { returnUrl: 'https://shop.example.com/return', refreshUrl: 'https://pay.example.com/onboarding/x' };
    expect(await provider.gatewayLink(account(), 'onboarding', urls)).toMatch(/^https:\/\//);
    expect(only('POST', '/v1/account_links').form).toEqual({
      account: 'acct_contract1',
      type: 'account_onboarding',
      return_url: urls.returnUrl,
      refresh_url: urls.refreshUrl,
      'collection_options[fields]': 'eventually_due',
    });
    mock.requests.length = 0;
    await provider.gatewayLink(account(), 'update', urls);
    expect(only('POST', '/v1/account_links').form).toEqual({
      account: 'acct_contract1',
      type: 'account_update',
      return_url: urls.returnUrl,
      refresh_url: urls.refreshUrl,
    });
  });

  it("reads the connected account's balance with Stripe-Account, in the settlement currency", async () => {
    const { provider, outcomes } = connect();
    patch = (r) =>
      r.path.startsWith('/v1/balance')
        ? {
            available: [{ amount: 1350, currency: 'usd', source_types: { card: 1350 } }],
            pending: [{ amount: 0, currency: 'usd', source_types: { card: 0 } }],
          }
        : undefined;
    expect(await provider.balance(account(), 'USD')).toEqual({
      available: { amount: 1350, currency: 'USD' },
      pending: { amount: 0, currency: 'USD' },
    });
    const sent = only('GET', '/v1/balance');
    expect(sent.headers['stripe-account']).toBe('acct_contract1');
    expect(outcomes).toEqual(['balance:ok']);
  });

  it('deletes the account', async () => {
    const { provider, outcomes } = connect();
    await provider.closeAccount(account());
    expect(only('DELETE', '/v1/accounts/acct_contract1').status).toBe(200);
    expect(outcomes).toEqual(['account_delete:ok']);
  });

  it('a refused key is an alert and SERVICE_UNAVAILABLE, never an account', async () => {
    const settings = stripeMockSettings(mock, KEYS);
    const outcomes: string[] = [];
    const provider = new StripeConnectedAccounts(
      { US: stripeClient({ ...settings, secretKey: KEYS.liveSecretKey }), EU: stripeClient(settings) },
      { US: KEYS.publishableKey, EU: KEYS.publishableKey },
      { call: (op, outcome) => outcomes.push(`${op}:${outcome}`), authFailure: () => outcomes.push('auth') },
      new ProcessorGuard('stripe_connect', { timeoutMs: 10_000, resetTimeoutMs: 30_000 }),
    );
    await expect(
      provider.createAccount({
        merchantId: 44,
        country: 'US',
        businessType: 'individual',
        settlementCurrency: 'USD',
        region: 'US',
      }),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(outcomes).toEqual(['account_create:authentication', 'auth']);
  });
});
