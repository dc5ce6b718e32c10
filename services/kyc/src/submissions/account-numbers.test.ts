import {
  hasNubanCheckDigit,
  isValidNuban,
  nubanCheckDigit,
  nubanInstitutionCode,
  normaliseMobileMoneyNumber,
  validateAccountNumber,
} from './account-numbers';
import { BankDirectory } from '../payout-accounts/banks';

const banks = BankDirectory.bundled();
const bank = (name: string) => banks.findByName(name)!;

/** The 2010 CBN algorithm, written out independently: 3-digit code + 9-digit serial, 12 weights. */
function classicCheckDigit(code3: string, serial: string): number {
  const weights = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3];
  const digits = (code3 + serial).split('').map(Number);
  const sum = digits.reduce((acc, d, i) => acc + d * weights[i], 0);
  return (10 - (sum % 10)) % 10;
}

/** A valid NUBAN for the serial, using the 15-digit form of the code. */
function nuban(code: string, serial: string): string {
  return serial + String(nubanCheckDigit(code, serial));
}

/** Every number differing from `n` in exactly one digit. */
function singleDigitChanges(n: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < n.length; i++) {
    for (let d = 0; d <= 9; d++) if (String(d) !== n[i]) out.push(n.slice(0, i) + d + n.slice(i + 1));
  }
  return out;
}

describe('NUBAN check digit', () => {
  it('matches the worked example of the CBN circular: First Bank 011, serial 000001457 → 9', () => {
    // 0·3+1·7+1·3 + 0+0+0+0+0 + 1·3+4·3+5·7+7·3 = 81; 10 − 1 = 9
    expect(nubanCheckDigit('011', '000001457')).toBe(9);
    expect(isValidNuban('011', '0000014579')).toBe(true);
  });

  it('agrees with the classic 12-digit algorithm for every 3-digit bank code', () => {
    const serials = ['000001457', '012345678', '987654321', '100000000', '555555555', '000000000'];
    for (const i of banks.list('NGN')) {
      const code = banks.findById(i.institution_id)!.cbn_code!;
      if (code.length !== 3) continue;
      for (const serial of serials) expect(nubanCheckDigit(code, serial)).toBe(classicCheckDigit(code, serial));
    }
  });

  it('pads codes to six digits: 000 before a DMB code, 9 before a 5-digit OFI code', () => {
    expect(nubanInstitutionCode('044')).toBe('000044');
    expect(nubanInstitutionCode('50211')).toBe('950211');
    expect(nubanInstitutionCode('090267')).toBe('090267');
    expect(nubanInstitutionCode('1234')).toBeUndefined();
    expect(nubanInstitutionCode('04a')).toBeUndefined();
    // Kuda: "50211" and its 6-digit form give the same digit; zero-padding it would not.
    const serial = '200123456';
    expect(nubanCheckDigit('50211', serial)).toBe(nubanCheckDigit('950211', serial));
    // By hand: code 9·3+5·7+0·3+2·3+1·7+1·3 = 78; serial 2·3+0·7+0·3+1·3+2·7+3·3+4·3+5·7+6·3 = 97;
    // 175 → 10 − 5 = 5. With "050211" the code part is 51: 148 → 2.
    expect(nubanCheckDigit('950211', serial)).toBe(5);
    expect(nubanCheckDigit('050211', serial)).toBe(2);
    expect(isValidNuban('950211', '2001234565')).toBe(true);
  });

  it('accepts valid numbers and rejects every single-digit change', () => {
    const cases: [string, string][] = [
      ['044', '069012345'],
      ['058', '012345678'],
      ['057', '221987654'],
      ['033', '204455667'],
      ['950211', '200123456'],
      ['950515', '512345678'],
    ];
    for (const [code, serial] of cases) {
      const valid = nuban(code, serial);
      expect(isValidNuban(code, valid)).toBe(true);
      for (const wrong of singleDigitChanges(valid)) expect(isValidNuban(code, wrong)).toBe(false);
    }
  });

  it('rejects malformed account numbers and codes', () => {
    const valid = nuban('044', '069012345');
    expect(isValidNuban('044', valid.slice(0, 9))).toBe(false);
    expect(isValidNuban('044', valid + '0')).toBe(false);
    expect(isValidNuban('044', valid.slice(0, 9) + 'x')).toBe(false);
    expect(isValidNuban('044', ` ${valid.slice(1)}`)).toBe(false);
    expect(isValidNuban('44', valid)).toBe(false);
    expect(isValidNuban('', valid)).toBe(false);
    expect(isValidNuban('044', 1234567890 as unknown as string)).toBe(false);
  });
});

describe('mobile money numbers', () => {
  it('normalises the accepted forms to E.164', () => {
    for (const raw of ['+254712345678', '254712345678', '0712345678', '+254 712 345 678', '0712-345-678']) {
      expect(normaliseMobileMoneyNumber('KE', raw)).toBe('+254712345678');
    }
    expect(normaliseMobileMoneyNumber('KE', '0110123456')).toBe('+254110123456');
    expect(normaliseMobileMoneyNumber('GH', '024 123 4567')).toBe('+233241234567');
    expect(normaliseMobileMoneyNumber('GH', '+233551234567')).toBe('+233551234567');
    expect(normaliseMobileMoneyNumber('NG', '08031234567')).toBe('+2348031234567');
    expect(normaliseMobileMoneyNumber('NG', '+234 803 123 4567')).toBe('+2348031234567');
    expect(normaliseMobileMoneyNumber('ZA', '082 123 4567')).toBe('+27821234567');
    expect(normaliseMobileMoneyNumber('ZA', '27821234567')).toBe('+27821234567');
  });

  it('returns undefined for wrong lengths, countries, characters and non-mobile ranges', () => {
    const bad: [string, unknown][] = [
      ['KE', '+25471234567'], // one digit short
      ['KE', '07123456789'], // one digit long
      ['KE', '+255712345678'], // Tanzania
      ['KE', '+0712345678'], // + before a trunk 0
      ['KE', '0712a45678'],
      ['KE', '0712.345.678'],
      ['KE', '0201234567'], // Nairobi landline
      ['GH', '0301234567'], // Accra landline
      ['NG', '0123456789'],
      ['ZA', '0211234567'], // Cape Town landline
      ['US', '+12025550123'],
      ['KE', ''],
      ['KE', '+'],
      ['KE', 712345678],
      ['KE', undefined],
      ['KE', `0712345678${' '.repeat(40)}`],
    ];
    for (const [country, raw] of bad) expect(normaliseMobileMoneyNumber(country, raw)).toBeUndefined();
  });

  it('costs linear time on hostile input (length is checked first)', () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) normaliseMobileMoneyNumber('KE', '0'.repeat(100_000));
    expect(Number(process.hrtime.bigint() - start) / 1e6).toBeLessThan(500);
  });
});

describe('validateAccountNumber', () => {
  it('requires a valid NUBAN at Nigerian commercial banks', () => {
    const access = bank('Access Bank');
    const valid = nuban('044', '069012345');
    expect(validateAccountNumber(access, valid)).toEqual({ ok: true, value: valid });
    expect(validateAccountNumber(access, `${valid.slice(0, 3)} ${valid.slice(3)}`)).toEqual({ ok: true, value: valid });
    const wrong = singleDigitChanges(valid)[0];
    const result = validateAccountNumber(access, wrong);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'account_number must be a valid 10-digit NUBAN for Access Bank',
        param: 'account_number',
      });
    }
  });

  it('needs 10 digits at microfinance banks and wallets but no check digit', () => {
    const kuda = bank('Kuda Microfinance Bank');
    const opay = bank('Opay');
    expect(validateAccountNumber(kuda, nuban('950211', '200123456')).ok).toBe(true);
    expect(validateAccountNumber(opay, '8031234567')).toEqual({ ok: true, value: '8031234567' });
    expect(validateAccountNumber(opay, '803123456').ok).toBe(false);
    expect(hasNubanCheckDigit(kuda)).toBe(true);
    expect(hasNubanCheckDigit(opay)).toBe(false);
    expect(hasNubanCheckDigit(bank('Access Bank'))).toBe(true);
    expect(hasNubanCheckDigit(bank('KCB Bank'))).toBe(false);
  });

  it('normalises mobile money to E.164 and names the provider otherwise', () => {
    const mpesa = bank('M-PESA');
    expect(validateAccountNumber(mpesa, '0712 345 678')).toEqual({ ok: true, value: '+254712345678' });
    const result = validateAccountNumber(mpesa, '12345', 'bank_account.account_number');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({
        message: 'bank_account.account_number must be a phone number in international format (E.164) for M-PESA',
        param: 'bank_account.account_number',
      });
    }
  });

  it('accepts 6 to 20 digits for other banks', () => {
    const gcb = bank('GCB Bank');
    expect(validateAccountNumber(gcb, '1011130012345').ok).toBe(true);
    expect(validateAccountNumber(gcb, '123456').ok).toBe(true);
    expect(validateAccountNumber(gcb, '1'.repeat(20)).ok).toBe(true);
    expect(validateAccountNumber(gcb, '12345').ok).toBe(false);
    expect(validateAccountNumber(gcb, '1'.repeat(21)).ok).toBe(false);
    expect(validateAccountNumber(bank('Capitec Bank'), '12345-6789').ok).toBe(true);
  });

  it('refuses numbers sent as JSON numbers and missing values', () => {
    const result = validateAccountNumber(bank('Zenith Bank'), 1234567890);
    expect(!result.ok && result.error.message).toBe(
      'account_number must be a string (send it quoted so that leading zeros are kept)',
    );
    const missing = validateAccountNumber(bank('Zenith Bank'), undefined);
    expect(!missing.ok && missing.error.message).toBe('account_number is required');
    expect(validateAccountNumber(bank('Zenith Bank'), '1'.repeat(100_000)).ok).toBe(false);
  });
});
