import { ID_TYPES, idNumberFormat, normaliseIdNumber, passesLuhn } from './identity-documents';

describe('identity document types', () => {
  it('lists the documents of each in-house country', () => {
    expect(ID_TYPES.NG).toEqual(['nin', 'bvn', 'passport', 'drivers_license', 'voters_card']);
    expect(ID_TYPES.GH).toEqual(['ghana_card', 'passport', 'drivers_license', 'voters_id']);
    expect(ID_TYPES.KE).toEqual(['national_id', 'passport', 'alien_id', 'drivers_license']);
    expect(ID_TYPES.ZA).toEqual(['sa_id', 'passport', 'drivers_license']);
  });
});

describe('document numbers', () => {
  it('NIN and BVN are 11 digits', () => {
    expect(normaliseIdNumber('nin', '12345678901')).toBe('12345678901');
    expect(normaliseIdNumber('bvn', '223 456 789 01')).toBe('22345678901');
    expect(normaliseIdNumber('nin', '1234567890')).toBeUndefined();
    expect(normaliseIdNumber('bvn', '1234567890a')).toBeUndefined();
  });

  it('Ghana Card numbers are stored as GHA-#########-#', () => {
    expect(normaliseIdNumber('ghana_card', 'GHA-123456789-0')).toBe('GHA-123456789-0');
    expect(normaliseIdNumber('ghana_card', 'gha1234567890')).toBe('GHA-123456789-0');
    expect(normaliseIdNumber('ghana_card', 'GHA-12345678-0')).toBeUndefined();
    expect(normaliseIdNumber('ghana_card', 'NGA-123456789-0')).toBeUndefined();
  });

  it('Kenyan national IDs are 6 to 9 digits', () => {
    expect(normaliseIdNumber('national_id', '12345678')).toBe('12345678');
    expect(normaliseIdNumber('national_id', '12345')).toBeUndefined();
    expect(normaliseIdNumber('national_id', '1234567890')).toBeUndefined();
  });

  it('South African ID numbers are 13 digits with a Luhn check digit', () => {
    // 800101 (born 1980-01-01) 5009 0 8 7: Luhn sum 40.
    expect(passesLuhn('8001015009087')).toBe(true);
    expect(normaliseIdNumber('sa_id', '800101 5009 087')).toBe('8001015009087');
    expect(normaliseIdNumber('sa_id', '8001015009088')).toBeUndefined();
    expect(normaliseIdNumber('sa_id', '800101500908')).toBeUndefined();
  });

  it('other documents are 5 to 20 letters, digits, spaces, dashes or slashes', () => {
    expect(normaliseIdNumber('passport', 'A12345678')).toBe('A12345678');
    expect(normaliseIdNumber('drivers_license', 'ABC-12345/AA')).toBe('ABC-12345/AA');
    expect(normaliseIdNumber('passport', 'A123')).toBeUndefined();
    expect(normaliseIdNumber('passport', 'A1234567<')).toBeUndefined();
    expect(normaliseIdNumber('passport', 'A'.repeat(21))).toBeUndefined();
    expect(normaliseIdNumber('passport', 'A'.repeat(10_000))).toBeUndefined();
  });

  it('describes the expected format', () => {
    expect(idNumberFormat('nin')).toBe('an 11-digit NIN');
    expect(idNumberFormat('sa_id')).toBe('a valid 13-digit South African ID number');
  });
});
