import { caught } from '../errors.test-util';
import { ageInYears, isEmail, parseCalendarDate, readEmail, readString, readUrl } from './fields';

describe('readString', () => {
  it('trims, treats blank as absent and enforces required', () => {
    expect(readString('  Ada  ', 'owner.first_name', 200)).toBe('Ada');
    expect(readString('   ', 'owner.first_name', 200)).toBeNull();
    expect(readString(null, 'owner.first_name', 200)).toBeNull();
    expect(caught(() => readString(undefined, 'owner.first_name', 200, true))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'owner.first_name is required',
      param: 'owner.first_name',
    });
  });

  it('refuses non-strings, long strings and control characters', () => {
    expect(caught(() => readString(42, 'city', 100)).message).toBe('city must be a string');
    expect(caught(() => readString(['a'], 'city', 100)).message).toBe('city must be a string');
    expect(readString('é'.repeat(100), 'city', 100)).toHaveLength(100);
    expect(caught(() => readString('x'.repeat(101), 'city', 100)).message).toBe('city must be at most 100 characters');
    expect(caught(() => readString('x'.repeat(1_000_000), 'city', 100)).message).toBe(
      'city must be at most 100 characters',
    );
    expect(caught(() => readString('Lagos\nIsland', 'city', 100)).message).toBe(
      'city must not contain control characters',
    );
  });
});

describe('e-mail', () => {
  it('accepts ordinary addresses', () => {
    for (const e of ['ada@example.com', 'first.last+tag@mail.example.co.ng', "o'brien@example.ie", 'a@b.io']) {
      expect(isEmail(e)).toBe(true);
    }
  });

  it('refuses malformed ones', () => {
    for (const e of [
      'plain',
      '@example.com',
      'ada@',
      'ada@example',
      'ada@@example.com',
      'a@b@example.com',
      '.ada@example.com',
      'ada.@example.com',
      'a..da@example.com',
      'ada lovelace@example.com',
      'ada@-example.com',
      'ada@example..com',
      'ada@example.c',
      'ada@example.123',
      'adé@example.com',
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(64)}.com`,
      `a@${'b.'.repeat(130)}com`,
    ]) {
      expect(isEmail(e)).toBe(false);
    }
  });

  it('bounds the length first and reports the field', () => {
    expect(caught(() => readEmail('x'.repeat(300), 'owner.email')).message).toBe(
      'owner.email must be at most 254 characters',
    );
    expect(caught(() => readEmail('nope', 'owner.email'))).toMatchObject({
      message: 'owner.email must be a valid e-mail address',
      param: 'owner.email',
    });
    const start = Date.now();
    for (let i = 0; i < 1000; i++) isEmail(`${'a.'.repeat(120)}@${'b-'.repeat(60)}`);
    expect(Date.now() - start).toBeLessThan(500);
  });
});

describe('URLs', () => {
  it('accepts absolute https URLs up to 2048 characters', () => {
    expect(readUrl('https://cdn.example.com/kyc/id.jpg', 'owner.id_document_url')).toBe(
      'https://cdn.example.com/kyc/id.jpg',
    );
    const long = `https://example.com/${'a'.repeat(2048 - 20)}`;
    expect(long).toHaveLength(2048);
    expect(readUrl(long, 'x')).toBe(long);
    expect(caught(() => readUrl(`${long}a`, 'x')).message).toBe('x must be at most 2048 characters');
  });

  it('refuses http, relative, other schemes and credentials', () => {
    for (const bad of ['http://example.com/a.jpg', '/kyc/id.jpg', 'ftp://example.com/a', 'javascript:alert(1)']) {
      expect(caught(() => readUrl(bad, 'owner.selfie_url'))).toMatchObject({
        message: 'owner.selfie_url must be an absolute https URL',
        param: 'owner.selfie_url',
      });
    }
    expect(caught(() => readUrl('https://user:pw@example.com/', 'x')).message).toBe(
      'x must not contain a user name or password',
    );
  });

  it('allows http to localhost only when asked', () => {
    const opts = { allowLocalHttp: true };
    expect(readUrl('http://localhost:3000/return', 'return_url', opts)).toBe('http://localhost:3000/return');
    expect(readUrl('http://127.0.0.1/return', 'return_url', opts)).toBe('http://127.0.0.1/return');
    expect(readUrl('http://[::1]:8080/r', 'return_url', opts)).toBe('http://[::1]:8080/r');
    expect(caught(() => readUrl('http://example.com/return', 'return_url', opts)).message).toBe(
      'return_url must be an absolute https URL (http only for localhost)',
    );
    expect(caught(() => readUrl('http://localhost/return', 'return_url')).code).toBe('VALIDATION_FAILED');
  });
});

describe('calendar dates and age', () => {
  it('parses real YYYY-MM-DD dates only', () => {
    expect(parseCalendarDate('1990-05-17')?.toISOString()).toBe('1990-05-17T00:00:00.000Z');
    expect(parseCalendarDate('2000-02-29')).toBeDefined();
    for (const bad of [
      '2001-02-29',
      '1990-13-01',
      '1990-00-10',
      '1990-5-17',
      '17/05/1990',
      '1990-05-17T00',
      'abcd-ef-gh',
    ]) {
      expect(parseCalendarDate(bad)).toBeUndefined();
    }
  });

  it('counts whole years; 29 February birthdays age on 1 March', () => {
    const born = parseCalendarDate('2008-11-23')!;
    expect(ageInYears(born, new Date('2026-11-22T23:59:59Z'))).toBe(17);
    expect(ageInYears(born, new Date('2026-11-23T00:00:00Z'))).toBe(18);
    const leap = parseCalendarDate('2008-02-29')!;
    expect(ageInYears(leap, new Date('2026-02-28T12:00:00Z'))).toBe(17);
    expect(ageInYears(leap, new Date('2026-03-01T00:00:00Z'))).toBe(18);
  });
});
