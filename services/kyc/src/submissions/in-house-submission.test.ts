import { BankDirectory } from '../payout-accounts/banks';
import type { InHouseSubmission } from './submission';
import {
  ACCESS_NUBAN,
  inHouseBody,
  normalise,
  normaliseFailure as failure,
  nuban,
  OWNER,
} from './submission-bodies.test-util';

const banks = BankDirectory.bundled();
const inHouse = (body: unknown) => normalise(body) as InHouseSubmission;

/** A structured body with every optional owner field set. */
function structured(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return inHouseBody(
    { country: 'NG', account_name: 'ADEBAYO JOHN OLUWASEUN' },
    {
      owner: {
        ...OWNER,
        phone_number: '0803 123 4567',
        email: 'john@example.com',
        id_document_url: 'https://cdn.example.com/kyc/nin.jpg',
        selfie_url: 'https://cdn.example.com/kyc/selfie.jpg',
        address: { street: '1 Marina', city: 'Lagos', state: 'Lagos', postal_code: '101001', country: 'NG' },
      },
      ...overrides,
    },
  );
}

function flat(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    country: 'NG',
    account_type: 'individual',
    first_name: 'John',
    last_name: 'Adebayo',
    date_of_birth: '1990-05-17',
    phone_number: '+2348031234567',
    email: 'john@example.com',
    id_type: 'bvn',
    id_number: '22345678901',
    street: '1 Marina',
    city: 'Lagos',
    bank_country: 'NG',
    bank_name: 'Access Bank',
    account_number: ACCESS_NUBAN,
    account_name: 'John Adebayo',
    ...overrides,
  };
}

const withOwner = (changes: Record<string, unknown>) =>
  structured({ owner: { ...(structured().owner as object), ...changes } });
const withBank = (changes: Record<string, unknown>) =>
  structured({ bank_account: { ...(structured().bank_account as object), ...changes } });

describe('in-house route, structured body', () => {
  it('normalises a valid individual submission', () => {
    const s = inHouse(structured());
    expect(s).toMatchObject({
      route: 'in_house',
      provider: 'service',
      format: 'structured',
      id_country: 'NG',
      account_type: 'individual',
      business_type: 'individual',
      legal_name: 'John Adebayo',
      business: null,
      settlement_currency: 'NGN',
      country_mismatch: false,
    });
    expect(s.owner).toMatchObject({ phone_number: '+2348031234567', id_type: 'nin', date_of_birth: '1990-05-17' });
    expect(s.owner.address).toEqual({
      street: '1 Marina',
      city: 'Lagos',
      state: 'Lagos',
      postal_code: '101001',
      country: 'NG',
    });
    expect(s.bank_account).toEqual({
      country: 'NG',
      institution_id: banks.findByName('Access Bank')!.institution_id,
      bank_name: 'Access Bank',
      account_number_type: 'bank_account_number',
      account_number: ACCESS_NUBAN,
      account_name: 'ADEBAYO JOHN OLUWASEUN',
    });
  });

  it('takes a registered business, its name as the legal name', () => {
    const s = inHouse(
      structured({
        account_type: 'registered_business',
        business: { registered_name: 'Adebayo Foods Ltd', registration_number: 'RC 1234567', tax_id: '12345678-0001' },
      }),
    );
    expect(s.legal_name).toBe('Adebayo Foods Ltd');
    expect(s.business).toEqual({
      registered_name: 'Adebayo Foods Ltd',
      registration_number: 'RC 1234567',
      tax_id: '12345678-0001',
      address: null,
    });
    const alias = inHouse(
      structured({
        account_type: 'registered_business',
        business: { legal_name: 'X Ltd', registration_number: 'BN 9' },
      }),
    );
    expect(alias.legal_name).toBe('X Ltd');
  });

  it('ignores a business object on an individual', () => {
    expect(inHouse(structured({ business: { registered_name: 'X' } })).business).toBeNull();
  });

  it('requires the business name and registration number', () => {
    const business = (b: Record<string, unknown>) => structured({ account_type: 'registered_business', business: b });
    expect(failure(business({ registration_number: 'RC 1' }))).toMatchObject({
      message: 'business.registered_name is required',
      param: 'business.registered_name',
    });
    expect(failure(business({ registered_name: 'X Ltd' }))).toMatchObject({
      message: 'business.registration_number is required',
    });
    expect(failure(business({ registered_name: 'X Ltd', registration_number: 'none' })).message).toBe(
      'business.registration_number must contain digits',
    );
  });

  it('flags a country mismatch and settles in the bank country currency', () => {
    const s = inHouse(
      structured({
        id_country: 'GH',
        owner: {
          ...(structured().owner as object),
          id_type: 'ghana_card',
          id_number: 'GHA-123456789-0',
          // A national-form number is read in the ID country: a Nigerian one must be international here.
          phone_number: '+234 803 123 4567',
        },
      }),
    );
    expect(s.id_country).toBe('GH');
    expect(s.country_mismatch).toBe(true);
    expect(s.settlement_currency).toBe('NGN');
    expect(s.owner.id_number).toBe('GHA-123456789-0');
    expect(s.owner.phone_number).toBe('+2348031234567');
  });

  it('pays Kenyan mobile money to an E.164 number in KES', () => {
    const s = inHouse(
      structured({
        id_country: 'KE',
        owner: { ...(structured().owner as object), id_type: 'national_id', id_number: '12345678', phone_number: null },
        bank_account: { bank_name: 'M-PESA', account_number: '0712 345 678', account_name: 'John Adebayo' },
      }),
    );
    expect(s.bank_account).toMatchObject({ country: 'KE', account_number: '+254712345678' });
    expect(s.bank_account.account_number_type).toBe('phone_number');
    expect(s.settlement_currency).toBe('KES');
    expect(s.country_mismatch).toBe(false);
  });

  it('accepts the bank by institution_id', () => {
    const gtb = banks.findByName('Guaranty Trust Bank')!;
    const number = nuban('058', '012345678');
    const s = inHouse(withBank({ bank_name: undefined, institution_id: gtb.institution_id, account_number: number }));
    expect(s.bank_account.bank_name).toBe('Guaranty Trust Bank');
  });
});

describe('owner field errors', () => {
  it('requires first_name, last_name, date_of_birth, id_type and id_number, in that order', () => {
    const owner = structured().owner as Record<string, unknown>;
    const order = ['first_name', 'last_name', 'date_of_birth', 'id_type', 'id_number'];
    for (let i = 0; i < order.length; i++) {
      const missing = Object.fromEntries(Object.entries(owner).filter(([k]) => !order.slice(i).includes(k)));
      expect(failure(structured({ owner: missing }))).toMatchObject({
        message: `owner.${order[i]} is required`,
        param: `owner.${order[i]}`,
      });
    }
  });

  it('leaves phone, email, document URLs and address optional', () => {
    const s = inHouse(
      withOwner({ phone_number: undefined, email: '', id_document_url: null, selfie_url: undefined, address: null }),
    );
    expect(s.owner).toMatchObject({ phone_number: null, email: null, id_document_url: null, selfie_url: null });
    expect(s.owner.address).toBeNull();
  });

  it('checks id_type against the ID country', () => {
    expect(failure(withOwner({ id_type: 'ghana_card' }))).toMatchObject({
      message: 'owner.id_type must be one of nin, bvn, passport, drivers_license, voters_card for NG',
      param: 'owner.id_type',
    });
    expect(inHouse(withOwner({ id_type: 'PASSPORT', id_number: 'A12345678' })).owner.id_type).toBe('passport');
    expect(failure(withOwner({ id_number: '123' }))).toMatchObject({
      message: 'owner.id_number must be an 11-digit NIN',
      param: 'owner.id_number',
    });
  });

  it('needs a real past date of birth and an adult owner', () => {
    for (const dob of ['1990-02-30', '17/05/1990', '1990-5-17', 19900517]) {
      expect(failure(withOwner({ date_of_birth: dob })).param).toBe('owner.date_of_birth');
    }
    expect(failure(withOwner({ date_of_birth: '2027-01-01' })).message).toBe(
      'owner.date_of_birth must be a date between 1900-01-01 and today',
    );
    expect(failure(withOwner({ date_of_birth: '1899-12-31' })).param).toBe('owner.date_of_birth');
    expect(failure(withOwner({ date_of_birth: '2008-11-24' }))).toMatchObject({
      message: 'The owner must be at least 18 years old',
      param: 'owner.date_of_birth',
    });
    expect(inHouse(withOwner({ date_of_birth: '2008-11-23' })).owner.date_of_birth).toBe('2008-11-23');
  });

  it('bounds names and checks e-mail, phone and URLs', () => {
    expect(failure(withOwner({ first_name: 'x'.repeat(201) })).message).toBe(
      'owner.first_name must be at most 200 characters',
    );
    expect(failure(withOwner({ last_name: '1234' })).message).toBe('owner.last_name must contain letters');
    expect(failure(withOwner({ email: 'john@' })).param).toBe('owner.email');
    expect(failure(withOwner({ phone_number: '12345' })).message).toBe(
      'owner.phone_number must be a phone number in international format (E.164)',
    );
    expect(inHouse(withOwner({ phone_number: '+44 20 7946 0018' })).owner.phone_number).toBe('+442079460018');
    expect(failure(withOwner({ id_document_url: 'http://cdn.example.com/a.jpg' }))).toMatchObject({
      message: 'owner.id_document_url must be an absolute https URL',
      param: 'owner.id_document_url',
    });
    expect(failure(withOwner({ selfie_url: `https://x.example/${'a'.repeat(2048)}` })).param).toBe('owner.selfie_url');
    expect(failure(withOwner({ address: 'Lagos' })).message).toBe('owner.address must be an object');
    expect(failure(withOwner({ address: { postal_code: 'x'.repeat(21) } })).param).toBe('owner.address.postal_code');
  });
});

describe('bank account errors', () => {
  it('requires the bank_account object', () => {
    expect(failure(structured({ bank_account: undefined }))).toMatchObject({
      message: 'bank_account object is required',
      param: 'bank_account',
    });
  });

  it('names an unknown bank and a missing one', () => {
    expect(failure(withBank({ bank_name: 'Foo Bank' }))).toMatchObject({
      message: 'bank_account.bank_name "Foo Bank" is not a supported bank; see GET /marketplace/payout/banks',
      param: 'bank_account.bank_name',
    });
    expect(failure(withBank({ bank_name: '' })).message).toBe(
      'bank_account.bank_name or bank_account.institution_id is required',
    );
  });

  it('checks the bank country and the account number', () => {
    expect(failure(withBank({ country: 'GH' }))).toMatchObject({
      message: 'bank_account.country is GH but Access Bank is a NG institution',
      param: 'bank_account.country',
    });
    expect(failure(withBank({ country: 'US' })).message).toBe('bank_account.country must be one of NG, GH, ZA, KE');
    expect(failure(withBank({ account_number: '0123456789' }))).toMatchObject({
      message: 'bank_account.account_number must be a valid 10-digit NUBAN for Access Bank',
      param: 'bank_account.account_number',
    });
    expect(failure(withBank({ account_name: ' ' })).param).toBe('bank_account.account_name');
  });
});

describe('in-house route, flat (legacy) body', () => {
  it('normalises to the same shape', () => {
    const s = inHouse(flat());
    expect(s.format).toBe('flat');
    expect(s.owner).toMatchObject({ first_name: 'John', id_type: 'bvn', phone_number: '+2348031234567' });
    expect(s.owner.address).toMatchObject({ street: '1 Marina', city: 'Lagos', state: null, country: null });
    expect(s.bank_account).toMatchObject({ bank_name: 'Access Bank', account_number: ACCESS_NUBAN });
    expect(s.legal_name).toBe('John Adebayo');
  });

  it('maps business_name, registration_number and tax_id to business', () => {
    const s = inHouse(
      flat({ account_type: 'registered_business', business_name: 'Adebayo Foods', registration_number: 'RC 42' }),
    );
    expect(s.business).toMatchObject({ registered_name: 'Adebayo Foods', registration_number: 'RC 42', tax_id: null });
    expect(s.legal_name).toBe('Adebayo Foods');
  });

  it('keeps the spec errors and names the flat fields', () => {
    expect(failure({ country: 'NG', account_type: 'individual', bank_name: 'Access Bank' }).message).toBe(
      'owner object is required for African markets',
    );
    expect(failure(flat({ account_type: 'registered_business' })).message).toBe(
      'business object is required for registered businesses',
    );
    expect(failure(flat({ first_name: undefined }))).toMatchObject({
      message: 'first_name is required',
      param: 'first_name',
    });
    expect(failure(flat({ postal_code: 'x'.repeat(21) })).param).toBe('postal_code');
    expect(
      failure(flat({ account_type: 'registered_business', business_name: 'X', registration_number: undefined })),
    ).toMatchObject({ param: 'registration_number' });
    expect(failure(flat({ bank_name: 'Foo Bank' }))).toMatchObject({
      message: 'bank_name "Foo Bank" is not a supported bank; see GET /marketplace/payout/banks',
      param: 'bank_name',
    });
    expect(failure(flat({ bank_country: 'KE' }))).toMatchObject({ param: 'bank_country' });
    expect(failure(flat({ account_number: '123' }))).toMatchObject({
      message: 'account_number must be a valid 10-digit NUBAN for Access Bank',
      param: 'account_number',
    });
    expect(failure(flat({ bank_name: undefined })).message).toBe('bank_name or institution_id is required');
  });

  it('is structured as soon as owner or bank_account is an object', () => {
    const mixed = { ...flat(), bank_account: structured().bank_account as object };
    expect(failure(mixed).message).toBe('owner object is required for African markets');
  });
});

describe('account_type', () => {
  it('must be individual or registered_business', () => {
    expect(failure(structured({ account_type: 'company' }))).toMatchObject({
      message: 'account_type must be one of individual, registered_business',
      param: 'account_type',
    });
  });
});
