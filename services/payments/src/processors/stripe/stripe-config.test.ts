import { stripeSettings, type StripeConfig } from './stripe-config.adapter';

const base: StripeConfig = {
  STRIPE_API_BASE: 'https://api.stripe.com',
  STRIPE_TIMEOUT_MS: 4000,
  STRIPE_MAX_NETWORK_RETRIES: 1,
};
const keys = {
  STRIPE_SECRET_KEY: 'sk_test_abcdefgh12345678',
  STRIPE_PUBLISHABLE_KEY: 'pk_test_abcdefgh12345678',
  STRIPE_WEBHOOK_SECRET: 'whsec_old0000000000, whsec_new0000000000',
};

describe('Stripe settings', () => {
  it('without a secret key the connector is off (live card requests stay GATEWAY_NOT_CONFIGURED)', () => {
    expect(stripeSettings(base)).toBeNull();
    expect(stripeSettings({ ...base, STRIPE_PUBLISHABLE_KEY: keys.STRIPE_PUBLISHABLE_KEY })).toBeNull();
  });

  it("reads the keys, every webhook secret of the list and the API's host, port and protocol", () => {
    const settings = stripeSettings({ ...base, ...keys, STRIPE_API_BASE: 'http://127.0.0.1:12111' })!;
    expect(settings.webhookSecrets).toEqual(['whsec_old0000000000', 'whsec_new0000000000']);
    expect(settings.api).toEqual({ host: '127.0.0.1', port: 12111, protocol: 'http' });
    expect(stripeSettings({ ...base, ...keys })!.api).toEqual({ host: 'api.stripe.com', port: 443, protocol: 'https' });
  });

  it('refuses a secret key without its publishable key or webhook secret, without quoting the key', () => {
    const attempt = () => stripeSettings({ ...base, STRIPE_SECRET_KEY: keys.STRIPE_SECRET_KEY });
    expect(attempt).toThrow(/STRIPE_PUBLISHABLE_KEY is required[\s\S]*STRIPE_WEBHOOK_SECRET is required/);
    expect(attempt).not.toThrow(/sk_test/);
    expect(() => stripeSettings({ ...base, ...keys, STRIPE_PUBLISHABLE_KEY: 'pk_live_abcdefgh12345678' })).toThrow(
      /both be test keys or both live keys/,
    );
    expect(() => stripeSettings({ ...base, ...keys, STRIPE_WEBHOOK_SECRET: 'nope' })).toThrow(/whsec_/);
  });
});

describe('Stripe settings with an EU platform account', () => {
  const eu = { STRIPE_EU_SECRET_KEY: 'sk_test_eu0000000000000', STRIPE_EU_PUBLISHABLE_KEY: 'pk_test_eu0000000000000' };

  it("verifies events signed with either platform's endpoint secrets", () => {
    const settings = stripeSettings({ ...base, ...keys, ...eu, STRIPE_EU_WEBHOOK_SECRET: 'whsec_eu00000000000' })!;
    expect(settings.webhookSecrets).toEqual(['whsec_old0000000000', 'whsec_new0000000000', 'whsec_eu00000000000']);
    expect(settings.regions.EU.secretKey).toBe(eu.STRIPE_EU_SECRET_KEY);
    expect(settings.regions.US.secretKey).toBe(keys.STRIPE_SECRET_KEY);
  });

  it('refuses an EU key whose connected accounts could not be heard from, and an EU secret without its key', () => {
    expect(() => stripeSettings({ ...base, ...keys, ...eu })).toThrow(/STRIPE_EU_WEBHOOK_SECRET is required/);
    expect(() => stripeSettings({ ...base, ...keys, STRIPE_EU_WEBHOOK_SECRET: 'whsec_eu00000000000' })).toThrow(
      /only read with STRIPE_EU_SECRET_KEY/,
    );
  });
});
