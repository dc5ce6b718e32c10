import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig, Port } from './config';
import { isCountryCode, normaliseCountry } from './countries';
import { callerFromMetadata, callerToMetadata, requireMerchant } from './caller';
import { prefixedId, newEventId, randomBase62 } from './ids';

describe('typed config from env', () => {
  const schema = Type.Object({
    PORT: Port(8080),
    NAME: Type.String({ minLength: 1 }),
    SECRET_KEY: Type.String({ minLength: 10 }),
  });

  it('applies defaults and coerces numbers', () => {
    expect(loadConfig(schema, { NAME: 'x', SECRET_KEY: '0123456789', PORT: '9000' })).toEqual({
      NAME: 'x',
      SECRET_KEY: '0123456789',
      PORT: 9000,
    });
    expect(loadConfig(schema, { NAME: 'x', SECRET_KEY: '0123456789' }).PORT).toBe(8080);
  });

  it('reports every problem at once and never echoes secret values', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig(schema, { PORT: '70000', SECRET_KEY: 'short-pw' });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems.join('\n')).toMatch(/PORT/);
    expect(error!.problems.join('\n')).toMatch(/NAME/);
    expect(error!.message).not.toContain('short-pw');
    expect(error!.message).toContain('(redacted)');
  });
});

describe('ids, countries, caller metadata', () => {
  it('makes prefixed random ids and spec-shaped event ids', () => {
    expect(prefixedId('key')).toMatch(/^key_[0-9A-Za-z]{24}$/);
    expect(newEventId()).toMatch(/^evt_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(Array.from({ length: 1000 }, () => randomBase62(12))).size).toBe(1000);
  });

  it('knows ISO 3166 alpha-2 country codes', () => {
    expect(['NG', 'GH', 'KE', 'ZA', 'US', 'GB', 'JP'].every(isCountryCode)).toBe(true);
    expect(['XX', 'ZZ', 'EU', 'ng', 'NGA', ''].some(isCountryCode)).toBe(false);
  });

  it('round-trips the caller through gRPC metadata', () => {
    const md = callerToMetadata({
      requestId: 'req_1',
      merchantId: 1001,
      mode: 'live',
      auth: 'api_key',
      apiKeyId: 'key_1',
    });
    expect(callerFromMetadata(md, () => 'fallback')).toEqual({
      requestId: 'req_1',
      merchantId: 1001,
      mode: 'live',
      auth: 'api_key',
      apiKeyId: 'key_1',
      userId: undefined,
    });
    const anonymous = callerFromMetadata(callerToMetadata({ requestId: 'r' }), () => 'x');
    expect(() => requireMerchant(anonymous)).toThrow(/Unauthorized/);
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
