import type { InHouseSubmission } from './submission';
import { inHouseBody, normalise, normaliseFailure as failure } from './submission-bodies.test-util';

const inHouse = (body: unknown) => normalise(body) as InHouseSubmission;

describe('spec 7.2 errors, in order', () => {
  it('country or id_country is required, first', () => {
    for (const body of [{}, null, 'text', [], { account_type: 'individual' }, { country: '', id_country: null }]) {
      expect(failure(body)).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'country or id_country is required',
      });
    }
  });

  it('then, in house: account_type, owner, business', () => {
    expect(failure({ id_country: 'NG', owner: {}, business: {} }).message).toBe('account_type is required');
    expect(failure({ id_country: 'NG', account_type: 'registered_business' }).message).toBe(
      'owner object is required for African markets',
    );
    expect(failure({ country: 'GH', account_type: 'individual', owner: 'John' }).message).toBe(
      'owner object is required for African markets',
    );
    expect(failure({ id_country: 'KE', account_type: 'registered_business', owner: {} }).message).toBe(
      'business object is required for registered businesses',
    );
  });

  it('then, connected route: return_url and refresh_url', () => {
    for (const body of [
      { country: 'US' },
      { country: 'US', return_url: 'https://a.example/r' },
      { country: 'US', refresh_url: 'https://a.example/f' },
    ]) {
      expect(failure(body)).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'return_url and refresh_url are required for connected-account onboarding',
      });
    }
  });

  it('reports the spec errors before any field error', () => {
    // Bad owner fields and a bad bank do not hide the missing business object.
    const body = inHouseBody({}, { account_type: 'registered_business', owner: { first_name: '' } });
    expect(failure(body).message).toBe('business object is required for registered businesses');
  });
});

describe('country', () => {
  it('prefers id_country, accepts any case or an English name', () => {
    expect(inHouse(inHouseBody({}, { id_country: 'ng' })).id_country).toBe('NG');
    expect(inHouse(inHouseBody({}, { id_country: undefined, country: 'Nigeria' })).id_country).toBe('NG');
    expect(inHouse(inHouseBody({}, { id_country: 'NG', country: 'US' })).route).toBe('in_house');
  });

  it('rejects something that is not a country', () => {
    expect(failure(inHouseBody({}, { id_country: 'XX' }))).toMatchObject({
      message: 'id_country must be an ISO 3166-1 alpha-2 country code',
      param: 'id_country',
    });
    expect(failure({ country: 12 })).toMatchObject({ param: 'country' });
  });
});
