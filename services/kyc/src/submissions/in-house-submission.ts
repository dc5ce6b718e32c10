import { PlatformError } from '@ppay/kernel';
import type { BankDirectory, PayoutInstitution } from '../payout-accounts/banks';
import { normaliseMobileMoneyNumber, validateAccountNumber } from './account-numbers';
import {
  ageInYears,
  hasLetter,
  invalid,
  isAbsent,
  isObject,
  parseCalendarDate,
  readCountry,
  readEmail,
  readString,
  readUrl,
  type Body,
} from './fields';
import { ID_TYPES, idNumberFormat, normaliseIdNumber } from './identity-documents';
import { IN_HOUSE_COUNTRIES, isInHouseCountry, type InHouseCountry } from './routing';
import {
  readAccountType,
  type Address,
  type BankAccount,
  type Business,
  type InHouseSubmission,
  type NormaliseOptions,
  type Owner,
} from './submission';

/**
 * The body of an in-house submission (NG, GH, ZA, KE; spec 4.9): its spec 400s come first, in order
 * (`account_type is required`, `owner object is required for African markets`, `business object is
 * required for registered businesses`), then each field's error naming the field.
 *
 * Choices where the spec is silent:
 *  - Structured vs flat: structured when `owner` or `bank_account` is an object; flat top-level fields are
 *    then ignored. Flat (legacy) field names: country | id_country, account_type, first_name, last_name,
 *    date_of_birth, phone_number, email, id_type, id_number, id_document_url, selfie_url, street, city,
 *    state, postal_code (owner address), business_name, registration_number, tax_id, bank_country,
 *    bank_name, institution_id, account_number, account_name. A flat body is mapped onto the structured
 *    shape and validated the same way; errors then name the flat field (`first_name`, not
 *    `owner.first_name`). A flat body without any owner field gets "owner object is required…".
 *  - Required owner fields: first_name, last_name, date_of_birth, id_type, id_number. phone_number, email,
 *    id_document_url, selfie_url and address are optional but checked when present. The owner must be
 *    18 or older and born after 1900-01-01.
 *  - Business (registered_business only; ignored for individuals): registered_name (alias legal_name,
 *    the proto field) and registration_number required; tax_id and address optional.
 *  - bank_account is required on the in-house route (payouts need it): bank_name or institution_id,
 *    account_number and account_name required; country optional (it must match the bank's).
 *  - Lengths: names, street, account_name, registered_name ≤ 200; city, state ≤ 100; postal_code ≤ 20;
 *    registration_number, tax_id, id_number ≤ 50; e-mail ≤ 254; URLs ≤ 2048.
 */

const MAX_NAME = 200;
const MAX_PLACE = 100;
const MAX_POSTAL_CODE = 20;
const MAX_REFERENCE = 50;
const MAX_PHONE = 32;
const EARLIEST_BIRTH_DATE = Date.UTC(1900, 0, 1);
const MINIMUM_AGE = 18;

/** Structured path → flat field name. */
const FLAT_NAMES: Readonly<Record<string, string>> = {
  'owner.address.street': 'street',
  'owner.address.city': 'city',
  'owner.address.state': 'state',
  'owner.address.postal_code': 'postal_code',
  'business.registered_name': 'business_name',
  'bank_account.country': 'bank_country',
};

const OWNER_FLAT_FIELDS = [
  'first_name',
  'last_name',
  'date_of_birth',
  'phone_number',
  'email',
  'id_type',
  'id_number',
  'id_document_url',
  'selfie_url',
];
const ADDRESS_FLAT_FIELDS = ['street', 'city', 'state', 'postal_code'];

type ParamName = (path: string) => string;

function pick(body: Body, keys: readonly string[]): Body {
  const out: Body = {};
  for (const key of keys) if (body[key] !== undefined) out[key] = body[key];
  return out;
}

function anyPresent(body: Body, keys: readonly string[]): boolean {
  return keys.some((k) => !isAbsent(body[k]));
}

/** The flat body in the structured shape; an object is only built when one of its fields is present. */
function structureFlatBody(body: Body): Body {
  const owner = anyPresent(body, [...OWNER_FLAT_FIELDS, ...ADDRESS_FLAT_FIELDS])
    ? {
        ...pick(body, OWNER_FLAT_FIELDS),
        address: anyPresent(body, ADDRESS_FLAT_FIELDS) ? pick(body, ADDRESS_FLAT_FIELDS) : undefined,
      }
    : undefined;
  const business = anyPresent(body, ['business_name', 'registration_number', 'tax_id'])
    ? { registered_name: body.business_name, registration_number: body.registration_number, tax_id: body.tax_id }
    : undefined;
  return {
    id_country: body.id_country,
    country: body.country,
    account_type: body.account_type,
    owner,
    business,
    bank_account: {
      country: body.bank_country,
      bank_name: body.bank_name,
      institution_id: body.institution_id,
      account_number: body.account_number,
      account_name: body.account_name,
    },
  };
}

function readAddress(value: unknown, path: string, name: ParamName): Address | null {
  if (isAbsent(value)) return null;
  if (!isObject(value)) throw invalid(name(path), 'must be an object');
  const country = isAbsent(value.country) ? null : readCountry(value.country, name(`${path}.country`));
  return {
    street: readString(value.street, name(`${path}.street`), MAX_NAME),
    city: readString(value.city, name(`${path}.city`), MAX_PLACE),
    state: readString(value.state, name(`${path}.state`), MAX_PLACE),
    postal_code: readString(value.postal_code, name(`${path}.postal_code`), MAX_POSTAL_CODE),
    country,
  };
}

function readPersonName(value: unknown, param: string): string {
  const text = readString(value, param, MAX_NAME, true);
  if (!hasLetter(text)) throw invalid(param, 'must contain letters');
  return text;
}

function readDateOfBirth(value: unknown, param: string, now: Date): string {
  const text = readString(value, param, 32, true);
  const date = parseCalendarDate(text);
  if (!date) throw invalid(param, 'must be a real date in YYYY-MM-DD format');
  if (date.getTime() < EARLIEST_BIRTH_DATE || date.getTime() > now.getTime()) {
    throw invalid(param, 'must be a date between 1900-01-01 and today');
  }
  if (ageInYears(date, now) < MINIMUM_AGE) {
    throw new PlatformError('VALIDATION_FAILED', `The owner must be at least ${MINIMUM_AGE} years old`, { param });
  }
  return text;
}

/**
 * The owner's phone in E.164: a mobile number of the ID country in any accepted form, or any number in
 * international form (+ and 8 to 15 digits, spaces or dashes allowed).
 */
function readPhone(value: unknown, param: string, country: string): string | null {
  const text = readString(value, param, MAX_PHONE);
  if (text === null) return null;
  const national = normaliseMobileMoneyNumber(country, text);
  if (national) return national;
  let digits = '';
  let separatorsOnly = true;
  for (const c of text.slice(1)) {
    if (c >= '0' && c <= '9') digits += c;
    else if (c !== ' ' && c !== '-') separatorsOnly = false;
  }
  if (text.startsWith('+') && separatorsOnly && digits.length >= 8 && digits.length <= 15 && digits[0] !== '0') {
    return `+${digits}`;
  }
  throw invalid(param, 'must be a phone number in international format (E.164)');
}

function readOwner(value: Body, country: InHouseCountry, name: ParamName, now: Date): Owner {
  const first_name = readPersonName(value.first_name, name('owner.first_name'));
  const last_name = readPersonName(value.last_name, name('owner.last_name'));
  const date_of_birth = readDateOfBirth(value.date_of_birth, name('owner.date_of_birth'), now);
  const idTypes = ID_TYPES[country];
  const idTypeParam = name('owner.id_type');
  const idType = readString(value.id_type, idTypeParam, 50, true).toLowerCase();
  if (!idTypes.includes(idType)) throw invalid(idTypeParam, `must be one of ${idTypes.join(', ')} for ${country}`);
  const idNumberParam = name('owner.id_number');
  const rawIdNumber = readString(value.id_number, idNumberParam, MAX_REFERENCE, true);
  const id_number = normaliseIdNumber(idType, rawIdNumber);
  if (!id_number) throw invalid(idNumberParam, `must be ${idNumberFormat(idType)}`);
  return {
    first_name,
    last_name,
    date_of_birth,
    phone_number: readPhone(value.phone_number, name('owner.phone_number'), country),
    email: readEmail(value.email, name('owner.email')),
    id_type: idType,
    id_number,
    id_document_url: readUrl(value.id_document_url, name('owner.id_document_url')),
    selfie_url: readUrl(value.selfie_url, name('owner.selfie_url')),
    address: readAddress(value.address, 'owner.address', name),
  };
}

function readBusiness(value: Body, name: ParamName): Business {
  // Blank counts as absent (a decoded message carries every field), so an empty registered_name defers to legal_name.
  const registeredName = !isAbsent(value.registered_name) ? value.registered_name : value.legal_name;
  const registrationParam = name('business.registration_number');
  const registration_number = readString(value.registration_number, registrationParam, MAX_REFERENCE, true);
  if (!/\d/.test(registration_number)) throw invalid(registrationParam, 'must contain digits');
  return {
    registered_name: readString(registeredName, name('business.registered_name'), MAX_NAME, true),
    registration_number,
    tax_id: readString(value.tax_id, name('business.tax_id'), MAX_REFERENCE),
    address: readAddress(value.address, 'business.address', name),
  };
}

function readBankAccount(
  value: Body,
  banks: BankDirectory,
  name: ParamName,
  format: string,
): { account: BankAccount; institution: PayoutInstitution } {
  let country: string | undefined;
  const countryParam = name('bank_account.country');
  if (!isAbsent(value.country)) {
    country = readCountry(value.country, countryParam);
    if (!isInHouseCountry(country)) throw invalid(countryParam, `must be one of ${IN_HOUSE_COUNTRIES.join(', ')}`);
  }
  const institution: PayoutInstitution = banks.resolve(
    { bank_name: value.bank_name, institution_id: value.institution_id },
    { paramPrefix: format === 'flat' ? '' : 'bank_account.', country, countryParam },
  );
  const number = validateAccountNumber(institution, value.account_number, name('bank_account.account_number'));
  if (!number.ok) throw number.error;
  const account: BankAccount = {
    country: institution.country_iso_code as InHouseCountry,
    institution_id: institution.institution_id,
    bank_name: institution.name,
    account_number_type: institution.account_number_type,
    account_number: number.value,
    account_name: readString(value.account_name, name('bank_account.account_name'), MAX_NAME, true),
  };
  return { account, institution };
}

export function normaliseInHouse(body: Body, country: InHouseCountry, options: NormaliseOptions): InHouseSubmission {
  const structured = isObject(body.owner) || isObject(body.bank_account);
  const format = structured ? 'structured' : 'flat';
  const shaped = structured ? body : structureFlatBody(body);
  const name: ParamName = structured
    ? (path) => path
    : (path) => FLAT_NAMES[path] ?? path.slice(path.lastIndexOf('.') + 1);

  if (isAbsent(shaped.account_type)) {
    throw new PlatformError('VALIDATION_FAILED', 'account_type is required', { param: 'account_type' });
  }
  const accountType = readAccountType(shaped.account_type, 'account_type');
  if (!isObject(shaped.owner)) {
    throw new PlatformError('VALIDATION_FAILED', 'owner object is required for African markets', { param: 'owner' });
  }
  if (accountType === 'registered_business' && !isObject(shaped.business)) {
    throw new PlatformError('VALIDATION_FAILED', 'business object is required for registered businesses', {
      param: 'business',
    });
  }

  const owner = readOwner(shaped.owner, country, name, options.now ?? new Date());
  const business = accountType === 'registered_business' ? readBusiness(shaped.business as Body, name) : null;
  if (!isObject(shaped.bank_account)) {
    throw new PlatformError('VALIDATION_FAILED', 'bank_account object is required', { param: 'bank_account' });
  }
  const { account, institution } = readBankAccount(shaped.bank_account, options.banks, name, format);
  return {
    route: 'in_house',
    provider: 'service',
    format,
    id_country: country,
    account_type: accountType,
    business_type: accountType,
    legal_name: business ? business.registered_name : `${owner.first_name} ${owner.last_name}`,
    owner,
    business,
    bank_account: account,
    settlement_currency: institution.currency,
    country_mismatch: country !== account.country,
  };
}
