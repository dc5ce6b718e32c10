import { isCountryCode, normaliseCurrency, PlatformError } from '@ppay/kernel';
import bundledDataset from './payout-banks.json';
import { IN_HOUSE_CURRENCIES, isInHouseCountry, settlementCurrencyForBankCountry } from '../submissions/routing';

/**
 * The payout banks directory (spec 2.8, 4.9 GET /marketplace/payout/banks): a bundled list of real
 * institutions of NG, GH, KE and ZA, validated once at load and served from memory.
 *
 * Choices:
 *  - `institution_id` is a UUID written into the JSON once and never regenerated, so partners may store it.
 *  - `cbn_code` (NG only) is the institution code the NUBAN check digit is computed with: the 3-digit CBN
 *    code for deposit-money banks ("044"), and for microfinance banks the 6-digit form the CBN's 2020 NUBAN
 *    revision defines: "9" + the 5-digit CBN code (Kuda 50211 → "950211"). Mobile-money operators
 *    (Opay, PalmPay) carry their NIP code; their 10-digit account numbers are the phone number, so no
 *    check digit applies to them.
 *  - `institution_type` (commercial_bank | microfinance_bank | mobile_money) decides how strictly account
 *    numbers are checked (see account-numbers.ts). Nigerian wallets are paid through NIP with a 10-digit
 *    account number, so they are `bank_account_number`; GH/KE mobile money is keyed by phone number.
 *  - Names: spec 2.8 says the name "must be used verbatim". An exact match is tried first; failing that,
 *    a match ignoring case and runs of whitespace is accepted ("access  bank"), because rejecting a payout
 *    setup over capitalisation helps nobody and the load check guarantees that key is unique per country.
 *    No fuzzier matching: "Access" must not silently become "Access Bank Ghana".
 */

export type AccountNumberType = 'bank_account_number' | 'phone_number';
export type InstitutionType = 'commercial_bank' | 'microfinance_bank' | 'mobile_money';

/** A payout institution as the service uses it. */
export interface PayoutInstitution {
  institution_id: string;
  slug: string;
  name: string;
  currency: string;
  country_iso_code: string;
  institution_type: InstitutionType;
  account_number_type: AccountNumberType;
  /** NG only: institution code for the NUBAN check digit (3 digits, or 6 digits for OFIs). */
  cbn_code?: string;
}

/** The spec 2.8 view: exactly the fields partners see. */
export interface PayoutBank {
  institution_id: string;
  name: string;
  currency: string;
  country_iso_code: string;
  account_number_type: AccountNumberType;
}

/** Fields a request may name a bank by; the keys are the partner's field names. */
export interface BankReference {
  settlement_bank?: unknown;
  bank_name?: unknown;
  institution_id?: unknown;
}

export interface ResolveOptions {
  /** Prefix of the field names in errors, e.g. `bank_account.` for the structured KYC body. */
  paramPrefix?: string;
  /** The bank country the request declares: the institution must be in it. */
  country?: string;
  /** Field name of that country in errors; default `<prefix>country`. */
  countryParam?: string;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 100;
/** Longest bank name or id echoed back in an error message. */
const MAX_ECHO = 100;

export function isUuidV4(value: unknown): value is string {
  return typeof value === 'string' && value.length === 36 && UUID_V4.test(value);
}

/** Case- and whitespace-insensitive form of a bank name. */
function nameKey(name: string): string {
  return name.trim().split(/\s+/).join(' ').toLowerCase();
}

function echo(value: string): string {
  return JSON.stringify(value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value);
}

function invalidDataset(index: number, problem: string): Error {
  return new Error(`payout banks dataset: institution #${index}: ${problem}`);
}

function parseInstitution(raw: unknown, index: number): PayoutInstitution {
  if (typeof raw !== 'object' || raw === null) throw invalidDataset(index, 'not an object');
  const r = raw as Record<string, unknown>;
  if (!isUuidV4(r.institution_id)) throw invalidDataset(index, 'institution_id is not a lowercase UUID v4');
  if (typeof r.slug !== 'string' || r.slug.length > MAX_NAME || !SLUG.test(r.slug)) {
    throw invalidDataset(index, 'slug must be lowercase-hyphenated');
  }
  if (typeof r.name !== 'string' || r.name.trim() !== r.name || r.name === '' || r.name.length > MAX_NAME) {
    throw invalidDataset(index, 'name must be a trimmed non-empty string');
  }
  const country = r.country_iso_code;
  if (typeof country !== 'string' || !isCountryCode(country) || !isInHouseCountry(country)) {
    throw invalidDataset(index, `country_iso_code ${String(country)} is not NG, GH, KE or ZA`);
  }
  if (typeof r.currency !== 'string' || normaliseCurrency(r.currency) !== r.currency) {
    throw invalidDataset(index, `currency ${String(r.currency)} is not an ISO 4217 code`);
  }
  if (r.currency !== settlementCurrencyForBankCountry(country)) {
    throw invalidDataset(index, `currency ${r.currency} does not belong to ${country}`);
  }
  const type = r.institution_type;
  if (type !== 'commercial_bank' && type !== 'microfinance_bank' && type !== 'mobile_money') {
    throw invalidDataset(index, 'institution_type must be commercial_bank, microfinance_bank or mobile_money');
  }
  const numberType = r.account_number_type;
  if (numberType !== 'bank_account_number' && numberType !== 'phone_number') {
    throw invalidDataset(index, 'account_number_type must be bank_account_number or phone_number');
  }
  const institution: PayoutInstitution = {
    institution_id: r.institution_id,
    slug: r.slug,
    name: r.name,
    currency: r.currency,
    country_iso_code: country,
    institution_type: type,
    account_number_type: numberType,
  };
  if (country === 'NG') {
    const code = r.cbn_code;
    if (typeof code !== 'string' || !/^(?:\d{3}|\d{6})$/.test(code)) {
      throw invalidDataset(index, 'Nigerian institutions need a 3- or 6-digit cbn_code');
    }
    if (numberType !== 'bank_account_number') throw invalidDataset(index, 'Nigerian payouts use account numbers');
    institution.cbn_code = code;
  } else if (r.cbn_code !== undefined) {
    throw invalidDataset(index, 'cbn_code is for Nigerian institutions only');
  }
  return Object.freeze(institution);
}

function publicView(i: PayoutInstitution): PayoutBank {
  return Object.freeze({
    institution_id: i.institution_id,
    name: i.name,
    currency: i.currency,
    country_iso_code: i.country_iso_code,
    account_number_type: i.account_number_type,
  });
}

export class BankDirectory {
  private readonly byId = new Map<string, PayoutInstitution>();
  private readonly bySlug = new Map<string, PayoutInstitution>();
  private readonly byName = new Map<string, PayoutInstitution[]>();
  private readonly byNameKey = new Map<string, PayoutInstitution[]>();
  private readonly all: readonly PayoutBank[];
  private readonly byCurrency = new Map<string, readonly PayoutBank[]>();

  private constructor(institutions: readonly PayoutInstitution[]) {
    const sorted = [...institutions].sort(
      (a, b) => a.country_iso_code.localeCompare(b.country_iso_code) || a.name.localeCompare(b.name, 'en'),
    );
    for (const i of sorted) {
      this.byId.set(i.institution_id, i);
      this.bySlug.set(i.slug, i);
      this.byName.set(i.name, [...(this.byName.get(i.name) ?? []), i]);
      this.byNameKey.set(nameKey(i.name), [...(this.byNameKey.get(nameKey(i.name)) ?? []), i]);
    }
    this.all = Object.freeze(sorted.map(publicView));
    for (const currency of IN_HOUSE_CURRENCIES) {
      this.byCurrency.set(currency, Object.freeze(this.all.filter((b) => b.currency === currency)));
    }
  }

  /**
   * Validates a dataset (`{institutions: [...]}`) and builds the directory; throws on anything wrong, so
   * a bad data file stops the service at start-up rather than answering with a half-valid list.
   */
  static fromDataset(data: unknown): BankDirectory {
    const list = (data as { institutions?: unknown } | null)?.institutions;
    if (!Array.isArray(list) || list.length === 0) throw new Error('payout banks dataset: no institutions');
    const institutions = list.map(parseInstitution);
    const ids = new Set<string>();
    const slugs = new Set<string>();
    const names = new Set<string>();
    institutions.forEach((i, index) => {
      if (ids.has(i.institution_id)) throw invalidDataset(index, `duplicate institution_id ${i.institution_id}`);
      if (slugs.has(i.slug)) throw invalidDataset(index, `duplicate slug ${i.slug}`);
      const key = `${i.country_iso_code}:${nameKey(i.name)}`;
      if (names.has(key)) throw invalidDataset(index, `duplicate name ${i.name} in ${i.country_iso_code}`);
      ids.add(i.institution_id);
      slugs.add(i.slug);
      names.add(key);
    });
    return new BankDirectory(institutions);
  }

  private static bundledDirectory: BankDirectory | undefined;

  /** The directory of the bundled data file, built on first use. */
  static bundled(): BankDirectory {
    BankDirectory.bundledDirectory ??= BankDirectory.fromDataset(bundledDataset);
    return BankDirectory.bundledDirectory;
  }

  /**
   * Spec 2.8 entries sorted by country then name; `currency` (any case) narrows to one country.
   * Omitted or empty `currency` lists everything.
   */
  list(currency?: string): readonly PayoutBank[] {
    if (currency === undefined || currency === '') return this.all;
    const code = normaliseCurrency(currency);
    const banks = code === undefined ? undefined : this.byCurrency.get(code);
    if (!banks) {
      throw new PlatformError('VALIDATION_FAILED', `currency must be one of ${IN_HOUSE_CURRENCIES.join(', ')}`, {
        param: 'currency',
      });
    }
    return banks;
  }

  findById(institutionId: string): PayoutInstitution | undefined {
    return this.byId.get(institutionId);
  }

  findBySlug(slug: string): PayoutInstitution | undefined {
    return this.bySlug.get(slug);
  }

  /**
   * The institution named `name`: verbatim first, then ignoring case and whitespace (see the top of the
   * file). With `country`, only that country's institutions match; without it, a name shared by two
   * countries matches nothing (the bundled data has none).
   */
  findByName(name: string, country?: string): PayoutInstitution | undefined {
    const pick = (candidates: PayoutInstitution[] | undefined) => {
      const inCountry = country ? candidates?.filter((i) => i.country_iso_code === country) : candidates;
      return inCountry?.length === 1 ? inCountry[0] : undefined;
    };
    if (name.length > MAX_NAME * 2) return undefined;
    return pick(this.byName.get(name)) ?? pick(this.byNameKey.get(nameKey(name)));
  }

  /**
   * The institution a request names, by `institution_id` or by name (`settlement_bank` / `bank_name`);
   * VALIDATION_FAILED naming the field otherwise. When both an id and a name are sent they must agree.
   */
  resolve(ref: BankReference, options: ResolveOptions = {}): PayoutInstitution {
    const prefix = options.paramPrefix ?? '';
    // Payout requests name the bank settlement_bank, KYC requests bank_name (the key says which vocabulary).
    const nameField = 'settlement_bank' in ref ? 'settlement_bank' : 'bank_name';
    const rawName = nameField === 'settlement_bank' ? ref.settlement_bank : ref.bank_name;
    const fail = (field: string, message: string) =>
      new PlatformError('VALIDATION_FAILED', `${prefix}${field} ${message}`, { param: `${prefix}${field}` });
    const notSupported = (field: string, value: string) =>
      fail(field, `${echo(value)} is not a supported bank; see GET /marketplace/payout/banks`);

    let byId: PayoutInstitution | undefined;
    if (ref.institution_id !== undefined && ref.institution_id !== null && ref.institution_id !== '') {
      if (typeof ref.institution_id !== 'string') throw fail('institution_id', 'must be a string');
      byId = this.findById(ref.institution_id.trim().toLowerCase());
      if (!byId) throw notSupported('institution_id', ref.institution_id);
    }
    let byName: PayoutInstitution | undefined;
    if (rawName !== undefined && rawName !== null && rawName !== '') {
      if (typeof rawName !== 'string') throw fail(nameField, 'must be a string');
      byName = this.findByName(rawName, options.country) ?? this.findByName(rawName);
      if (!byName) throw notSupported(nameField, rawName);
    }
    const institution = byId ?? byName;
    if (!institution) throw fail(nameField, `or ${prefix}institution_id is required`);
    if (byId && byName && byId !== byName) {
      throw fail(nameField, `${echo(byName.name)} and ${prefix}institution_id name different banks`);
    }
    if (options.country && options.country !== institution.country_iso_code) {
      const param = options.countryParam ?? `${prefix}country`;
      throw new PlatformError(
        'VALIDATION_FAILED',
        `${param} is ${options.country} but ${institution.name} is a ${institution.country_iso_code} institution`,
        { param },
      );
    }
    return institution;
  }
}
