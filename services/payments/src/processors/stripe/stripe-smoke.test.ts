import { randomBytes } from 'node:crypto';
import { smokeKeyProblem, smokeSettings } from './stripe-smoke.adapter';

/** `npm run smoke:stripe` takes a real (test-mode) card payment: it must refuse what is not a test key. */
describe('the Stripe smoke test', () => {
  // Keys made at run time (none that looks real is committed).
  const part = randomBytes(12).toString('hex');
  const key = (kind: string, mode: string) => [kind, mode, part].join('_');

  it('refuses a missing key with a clear message', () => {
    expect(smokeKeyProblem(undefined)).toMatch(/STRIPE_SECRET_KEY is not set.*sk_test_/);
    expect(smokeKeyProblem('')).toMatch(/not set/);
  });

  it('refuses a live key, and never quotes it', () => {
    for (const live of [key('sk', 'live'), key('rk', 'live')]) {
      const problem = smokeKeyProblem(live)!;
      expect(problem).toMatch(/live key.*only runs with a test key/);
      expect(problem).not.toContain(part);
    }
  });

  it('refuses what is not a secret key, and takes a test key', () => {
    expect(smokeKeyProblem(key('pk', 'test'))).toMatch(/not a Stripe secret key/);
    expect(smokeKeyProblem(key('sk', 'test'))).toBeNull();
    expect(smokeKeyProblem(key('rk', 'test'))).toBeNull();
  });

  it('talks to Stripe unless STRIPE_API_BASE points elsewhere (stripe-mock)', () => {
    expect(smokeSettings({ STRIPE_SECRET_KEY: key('sk', 'test') }).api).toEqual({
      host: 'api.stripe.com',
      port: 443,
      protocol: 'https',
    });
    expect(
      smokeSettings({ STRIPE_SECRET_KEY: key('sk', 'test'), STRIPE_API_BASE: 'http://127.0.0.1:12111' }).api,
    ).toEqual({
      host: '127.0.0.1',
      port: 12111,
      protocol: 'http',
    });
  });
});
