import { stripeApiSettings, type StripeApiConfig } from './config';

const base: StripeApiConfig = {
  STRIPE_API_BASE: 'http://127.0.0.1:12111',
  STRIPE_TIMEOUT_MS: 4000,
  STRIPE_MAX_NETWORK_RETRIES: 1,
};
const US_KEY = 'sk_test_us0000000000000';
const EU_KEY = 'sk_test_eu0000000000000';

describe('Stripe API settings per region', () => {
  it('is off without a secret key, and refuses an EU key on its own', () => {
    expect(stripeApiSettings(base)).toBeNull();
    expect(() => stripeApiSettings({ ...base, STRIPE_EU_SECRET_KEY: EU_KEY })).toThrow(/needs STRIPE_SECRET_KEY/);
  });

  it('serves the EU region from the one platform account until it has its own key', () => {
    const one = stripeApiSettings({ ...base, STRIPE_SECRET_KEY: US_KEY })!;
    expect(one.EU).toEqual(one.US);
    expect(one.US.api).toEqual({ host: '127.0.0.1', port: 12111, protocol: 'http' });
    const two = stripeApiSettings({ ...base, STRIPE_SECRET_KEY: US_KEY, STRIPE_EU_SECRET_KEY: EU_KEY })!;
    expect(two.US.secretKey).toBe(US_KEY);
    expect(two.EU).toEqual({ ...two.US, secretKey: EU_KEY });
  });

  it('refuses a test key beside a live key, without quoting either', () => {
    const attempt = () =>
      stripeApiSettings({ ...base, STRIPE_SECRET_KEY: US_KEY, STRIPE_EU_SECRET_KEY: 'sk_live_eu0000000000000' });
    expect(attempt).toThrow(/both be test keys or both live keys/);
    expect(attempt).not.toThrow(/sk_(test|live)_/);
  });
});
