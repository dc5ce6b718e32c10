import type { ConnectedSubmission } from './submission';
import { normalise, normaliseFailure as failure } from './submission-bodies.test-util';

const connected = (body: unknown) => normalise(body) as ConnectedSubmission;

describe('connected-account route', () => {
  const body = (overrides: Record<string, unknown> = {}) => ({
    country: 'US',
    return_url: 'https://partner.example/kyc/return',
    refresh_url: 'https://partner.example/kyc/refresh',
    ...overrides,
  });

  it('derives currency and region, defaulting business_type to individual', () => {
    expect(connected(body())).toEqual({
      route: 'connected_account',
      provider: 'gateway',
      country: 'US',
      business_type: 'individual',
      preferred_currency: null,
      settlement_currency: 'USD',
      gateway_region: 'US',
      return_url: 'https://partner.example/kyc/return',
      refresh_url: 'https://partner.example/kyc/refresh',
    });
    expect(connected(body({ country: 'de' }))).toMatchObject({ settlement_currency: 'EUR', gateway_region: 'EU' });
    expect(connected(body({ country: 'GB' }))).toMatchObject({ settlement_currency: 'GBP', gateway_region: 'EU' });
    expect(connected(body({ country: 'TZ', preferred_currency: 'gbp' }))).toMatchObject({
      preferred_currency: 'GBP',
      settlement_currency: 'GBP',
      gateway_region: 'US',
    });
    expect(connected(body({ business_type: 'registered_business' })).business_type).toBe('registered_business');
    expect(connected(body({ account_type: 'registered_business' })).business_type).toBe('registered_business');
  });

  it('validates business_type, preferred_currency and the URLs', () => {
    expect(failure(body({ business_type: 'llc' }))).toMatchObject({ param: 'business_type' });
    expect(failure(body({ preferred_currency: 'NGN' }))).toMatchObject({
      message: 'preferred_currency must be one of AUD, CAD, EUR, GBP, USD',
      param: 'preferred_currency',
    });
    expect(failure(body({ return_url: 'http://partner.example/r' }))).toMatchObject({
      message: 'return_url must be an absolute https URL (http only for localhost)',
      param: 'return_url',
    });
    expect(connected(body({ refresh_url: 'http://localhost:3000/refresh' })).refresh_url).toBe(
      'http://localhost:3000/refresh',
    );
    expect(failure(body({ refresh_url: 'partner.example/refresh' })).param).toBe('refresh_url');
  });
});
