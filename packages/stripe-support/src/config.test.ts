import { stripeApiSettings, type StripeApiConfig } from './config';

const base: StripeApiConfig = {
  STRIPE_API_BASE: 'http://127.0.0.1:12111',
  STRIPE_TIMEOUT_MS: 4000,
  STRIPE_MAX_NETWORK_RETRIES: 1,
};
const US_KEY = 'sk_test_us0000000000000';
const EU_KEY = 'sk_test_eu0000000000000';
const US = { STRIPE_SECRET_KEY: US_KEY, STRIPE_PUBLISHABLE_KEY: 'pk_test_us0000000000000' };
const EU = { STRIPE_EU_SECRET_KEY: EU_KEY, STRIPE_EU_PUBLISHABLE_KEY: 'pk_test_eu0000000000000' };

describe('Stripe API settings per region', () => {
  it('is off without a secret key, and refuses an EU key on its own', () => {
    expect(stripeApiSettings(base)).toBeNull();
    expect(() => stripeApiSettings({ ...base, STRIPE_EU_SECRET_KEY: EU_KEY })).toThrow(/needs STRIPE_SECRET_KEY/);
  });

  it('serves the EU region from the one platform account until it has its own key', () => {
    const one = stripeApiSettings({ ...base, ...US })!;
    expect(one.EU).toEqual(one.US);
    expect(one.US.api).toEqual({ host: '127.0.0.1', port: 12111, protocol: 'http' });
    const two = stripeApiSettings({ ...base, ...US, ...EU })!;
    expect(two.US.secretKey).toBe(US_KEY);
    expect(two.EU).toEqual({ ...two.US, secretKey: EU_KEY, publishableKey: EU.STRIPE_EU_PUBLISHABLE_KEY });
  });

  it('refuses a test key beside a live key, without quoting either', () => {
    const attempt = () => stripeApiSettings({ ...base, ...US, ...EU, STRIPE_EU_SECRET_KEY: 'sk_live_eu0000000000000' });
    expect(attempt).toThrow(/STRIPE_EU_PUBLISHABLE_KEY and STRIPE_EU_SECRET_KEY must both be test/);
    expect(attempt).toThrow(/STRIPE_EU_SECRET_KEY and STRIPE_SECRET_KEY must both be test keys or both live keys/);
    expect(attempt).not.toThrow(/[sp]k_(test|live)_/);
  });

  it('each secret key needs its own publishable key, and a publishable key needs its secret key', () => {
    expect(() => stripeApiSettings({ ...base, STRIPE_SECRET_KEY: US_KEY })).toThrow(
      /STRIPE_PUBLISHABLE_KEY is required with STRIPE_SECRET_KEY/,
    );
    expect(() => stripeApiSettings({ ...base, ...US, STRIPE_EU_SECRET_KEY: EU_KEY })).toThrow(
      /STRIPE_EU_PUBLISHABLE_KEY is required with STRIPE_EU_SECRET_KEY/,
    );
    expect(() =>
      stripeApiSettings({ ...base, ...US, STRIPE_EU_PUBLISHABLE_KEY: EU.STRIPE_EU_PUBLISHABLE_KEY }),
    ).toThrow(/STRIPE_EU_PUBLISHABLE_KEY is only read with STRIPE_EU_SECRET_KEY/);
  });
});
