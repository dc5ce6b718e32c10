import dataset from './payout-banks.json';
import { BankDirectory, isUuidV4 } from './banks';
import { caught } from '../errors.test-util';

const banks = BankDirectory.bundled();
const raw = dataset.institutions;

function withInstitutions(mutate: (list: Record<string, unknown>[]) => void) {
  const copy = raw.map((i) => ({ ...i }) as Record<string, unknown>);
  mutate(copy);
  return () => BankDirectory.fromDataset({ institutions: copy });
}

describe('bundled payout banks dataset', () => {
  it('loads, with a lowercase UUID v4 per institution, all distinct', () => {
    expect(() => BankDirectory.fromDataset(dataset)).not.toThrow();
    for (const i of raw) expect(isUuidV4(i.institution_id)).toBe(true);
    expect(new Set(raw.map((i) => i.institution_id)).size).toBe(raw.length);
    expect(new Set(raw.map((i) => i.slug)).size).toBe(raw.length);
  });

  it('covers the four in-house markets in the intended proportions', () => {
    const count = (c: string) => raw.filter((i) => i.country_iso_code === c).length;
    expect(count('NG')).toBeGreaterThanOrEqual(20);
    expect(count('NG')).toBeLessThanOrEqual(30);
    expect(count('GH')).toBeGreaterThanOrEqual(15);
    expect(count('GH')).toBeLessThanOrEqual(20);
    expect(count('KE')).toBeGreaterThanOrEqual(12);
    expect(count('KE')).toBeLessThanOrEqual(15);
    expect(count('ZA')).toBeGreaterThanOrEqual(8);
    expect(count('ZA')).toBeLessThanOrEqual(10);
  });

  it('carries the CBN codes the NUBAN check digit needs', () => {
    const code = (name: string) => banks.findByName(name)?.cbn_code;
    expect(code('Access Bank')).toBe('044');
    expect(code('Guaranty Trust Bank')).toBe('058');
    expect(code('Zenith Bank')).toBe('057');
    expect(code('First Bank of Nigeria')).toBe('011');
    expect(code('United Bank For Africa')).toBe('033');
    expect(code('Kuda Microfinance Bank')).toBe('950211'); // "9" + CBN OFI code 50211
    for (const i of raw.filter((x) => x.country_iso_code === 'NG')) expect(i.cbn_code).toMatch(/^(\d{3}|\d{6})$/);
  });

  it('keys mobile money by phone number outside Nigeria', () => {
    for (const name of ['MTN Mobile Money', 'Telecel Cash', 'AirtelTigo Money', 'M-PESA', 'Airtel Money']) {
      expect(banks.findByName(name)?.account_number_type).toBe('phone_number');
    }
    expect(banks.findByName('Opay')?.account_number_type).toBe('bank_account_number');
    expect(banks.findByName('Capitec Bank')?.account_number_type).toBe('bank_account_number');
  });
});

describe('dataset validation', () => {
  it('refuses duplicate ids, duplicate names in a country and duplicate slugs', () => {
    expect(withInstitutions((l) => (l[1].institution_id = l[0].institution_id))).toThrow(/duplicate institution_id/);
    expect(withInstitutions((l) => (l[1].name = 'ACCESS  bank'))).toThrow(/duplicate name/);
    expect(withInstitutions((l) => (l[1].slug = l[0].slug))).toThrow(/duplicate slug/);
  });

  it('allows the same name in two countries', () => {
    const ghana = raw.findIndex((i) => i.country_iso_code === 'GH');
    expect(withInstitutions((l) => (l[ghana].name = 'Access Bank'))).not.toThrow();
  });

  it('refuses bad ids, currencies, countries and codes', () => {
    expect(withInstitutions((l) => (l[0].institution_id = 'not-a-uuid'))).toThrow(/UUID/);
    expect(withInstitutions((l) => (l[0].institution_id = raw[0].institution_id.toUpperCase()))).toThrow(/UUID/);
    expect(withInstitutions((l) => (l[0].currency = 'GHS'))).toThrow(/does not belong to NG/);
    expect(withInstitutions((l) => (l[0].currency = 'XXX1'))).toThrow(/ISO 4217/);
    expect(withInstitutions((l) => (l[0].country_iso_code = 'US'))).toThrow(/not NG, GH, KE or ZA/);
    expect(withInstitutions((l) => delete l[0].cbn_code)).toThrow(/cbn_code/);
    expect(withInstitutions((l) => (l[0].cbn_code = '44'))).toThrow(/cbn_code/);
    const kenyan = raw.findIndex((i) => i.country_iso_code === 'KE');
    expect(withInstitutions((l) => (l[kenyan].cbn_code = '123'))).toThrow(/Nigerian institutions only/);
    expect(withInstitutions((l) => (l[0].account_number_type = 'iban'))).toThrow(/account_number_type/);
    expect(withInstitutions((l) => (l[0].slug = 'Access Bank'))).toThrow(/slug/);
    expect(withInstitutions((l) => (l[0].name = ' Access Bank'))).toThrow(/name/);
    expect(() => BankDirectory.fromDataset({ institutions: [] })).toThrow(/no institutions/);
    expect(() => BankDirectory.fromDataset(null)).toThrow(/no institutions/);
  });
});

describe('BankDirectory.list (GET /marketplace/payout/banks)', () => {
  it('returns exactly the spec 2.8 fields', () => {
    for (const bank of banks.list()) {
      expect(Object.keys(bank).sort()).toEqual(
        ['account_number_type', 'country_iso_code', 'currency', 'institution_id', 'name'].sort(),
      );
    }
  });

  it('sorts by country then name', () => {
    const all = banks.list();
    expect(all).toHaveLength(raw.length);
    const keys = all.map((b) => [b.country_iso_code, b.name] as const);
    const sorted = [...keys].sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1], 'en'));
    expect(keys).toEqual(sorted);
    expect([...new Set(all.map((b) => b.country_iso_code))]).toEqual(['GH', 'KE', 'NG', 'ZA']);
  });

  it('filters by currency, in any case; NGN returns Nigerian banks only', () => {
    const ngn = banks.list('NGN');
    expect(ngn.length).toBeGreaterThan(0);
    expect(ngn.every((b) => b.country_iso_code === 'NG' && b.currency === 'NGN')).toBe(true);
    expect(banks.list('kes').every((b) => b.country_iso_code === 'KE')).toBe(true);
    expect(banks.list('')).toHaveLength(raw.length);
    expect(banks.list('GHS').map((b) => b.name)).toContain('GCB Bank');
  });

  it('rejects currencies it has no banks for, naming the supported ones', () => {
    for (const currency of ['USD', 'EUR', 'ABC', 'naira']) {
      expect(caught(() => banks.list(currency))).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'currency must be one of GHS, KES, NGN, ZAR',
        param: 'currency',
      });
    }
  });

  it('is served from memory: the same frozen array every time', () => {
    expect(banks.list('NGN')).toBe(banks.list('ngn'));
    expect(Object.isFrozen(banks.list()[0])).toBe(true);
    expect(BankDirectory.bundled()).toBe(banks);
  });
});

describe('lookups', () => {
  it('finds by verbatim name, and by name ignoring case and whitespace', () => {
    const access = banks.findByName('Access Bank');
    expect(access?.country_iso_code).toBe('NG');
    expect(banks.findByName('  access   BANK ')).toBe(access);
    expect(banks.findByName('Access')).toBeUndefined();
    expect(banks.findByName('Access Bank Ghana')?.country_iso_code).toBe('GH');
    expect(banks.findByName('Access Bank', 'GH')).toBeUndefined();
  });

  it('finds by institution id and by slug', () => {
    const gtb = banks.findByName('Guaranty Trust Bank')!;
    expect(banks.findById(gtb.institution_id)).toBe(gtb);
    expect(banks.findBySlug('guaranty-trust-bank')).toBe(gtb);
    expect(banks.findBySlug('m-pesa')?.name).toBe('M-PESA');
    expect(banks.findById('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });
});

describe('BankDirectory.resolve', () => {
  const zenith = banks.findByName('Zenith Bank')!;

  it('resolves settlement_bank, bank_name or institution_id', () => {
    expect(banks.resolve({ settlement_bank: 'Zenith Bank' })).toBe(zenith);
    expect(banks.resolve({ bank_name: 'zenith bank' })).toBe(zenith);
    expect(banks.resolve({ institution_id: zenith.institution_id })).toBe(zenith);
    expect(banks.resolve({ institution_id: zenith.institution_id.toUpperCase() })).toBe(zenith);
    expect(banks.resolve({ bank_name: 'Zenith Bank', institution_id: zenith.institution_id })).toBe(zenith);
  });

  it('names the field of an unknown bank', () => {
    expect(caught(() => banks.resolve({ settlement_bank: 'Foo Bank' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'settlement_bank "Foo Bank" is not a supported bank; see GET /marketplace/payout/banks',
      param: 'settlement_bank',
    });
    expect(caught(() => banks.resolve({ bank_name: 'Foo Bank' }, { paramPrefix: 'bank_account.' }))).toMatchObject({
      message: 'bank_account.bank_name "Foo Bank" is not a supported bank; see GET /marketplace/payout/banks',
      param: 'bank_account.bank_name',
    });
    expect(caught(() => banks.resolve({ institution_id: 'abc' }))).toMatchObject({ param: 'institution_id' });
    expect(caught(() => banks.resolve({ settlement_bank: 7 }))).toMatchObject({
      message: 'settlement_bank must be a string',
    });
  });

  it('echoes at most 100 characters of what was sent', () => {
    const error = caught(() => banks.resolve({ bank_name: 'x'.repeat(10_000) }));
    expect(error.message.length).toBeLessThan(200);
  });

  it('requires one of the fields, and both to agree', () => {
    expect(caught(() => banks.resolve({}))).toMatchObject({
      message: 'bank_name or institution_id is required',
      param: 'bank_name',
    });
    const other = banks.findByName('Wema Bank')!;
    expect(
      caught(() => banks.resolve({ bank_name: 'Zenith Bank', institution_id: other.institution_id })),
    ).toMatchObject({
      param: 'bank_name',
    });
  });

  it('checks the declared bank country', () => {
    expect(banks.resolve({ bank_name: 'Zenith Bank' }, { country: 'NG' })).toBe(zenith);
    expect(banks.resolve({ bank_name: 'Zenith Bank Ghana' }, { country: 'GH' }).country_iso_code).toBe('GH');
    expect(
      caught(() => banks.resolve({ bank_name: 'Zenith Bank' }, { country: 'GH', paramPrefix: 'bank_account.' })),
    ).toMatchObject({
      message: 'bank_account.country is GH but Zenith Bank is a NG institution',
      param: 'bank_account.country',
    });
    expect(
      caught(() => banks.resolve({ bank_name: 'Zenith Bank' }, { country: 'KE', countryParam: 'bank_country' })),
    ).toMatchObject({ param: 'bank_country' });
  });
});
