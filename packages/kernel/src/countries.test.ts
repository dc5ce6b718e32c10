import { isCountryCode, normaliseCountry } from './countries';

describe('country codes', () => {
  it('knows ISO 3166 alpha-2 country codes', () => {
    expect(['NG', 'GH', 'KE', 'ZA', 'US', 'GB', 'JP'].every(isCountryCode)).toBe(true);
    expect(['XX', 'ZZ', 'EU', 'ng', 'NGA', ''].some(isCountryCode)).toBe(false);
  });
});

describe('country normalisation', () => {
  it.each([
    ['NG', 'NG'],
    ['ng', 'NG'],
    [' Nigeria ', 'NG'],
    ['nigeria', 'NG'],
    ['United Kingdom', 'GB'],
    ['UK', 'GB'],
    ['usa', 'US'],
    ['United States', 'US'],
    ['Côte d’Ivoire', 'CI'],
    ['Ivory Coast', 'CI'],
    ['South Africa', 'ZA'],
    ['Kenya', 'KE'],
    ['France', 'FR'],
    ['fr', 'FR'],
  ])('%s → %s', (input, code) => {
    expect(normaliseCountry(input)).toBe(code);
  });

  it('returns undefined for anything else', () => {
    for (const bad of ['', 'XX', 'Atlantis', 'N', 'NGA', 42, null]) expect(normaliseCountry(bad)).toBeUndefined();
  });
});
