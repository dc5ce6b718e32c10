/**
 * Identity documents accepted by the in-house KYC review, per country of the document (spec 4.9 leaves
 * the `id_type` values "not shown").
 *
 * Choices: the national ID schemes and the documents banks of each country accept for account opening:
 *  - NG: nin (11 digits), bvn (11 digits), passport, drivers_license, voters_card;
 *  - GH: ghana_card (GHA-123456789-0; dashes and case optional on input), passport, drivers_license, voters_id;
 *  - KE: national_id (6–9 digits), passport, alien_id, drivers_license;
 *  - ZA: sa_id (13 digits with its Luhn check digit), passport, drivers_license.
 * Other documents: 5 to 20 letters, digits, spaces, dashes or slashes — their formats vary by issue year.
 * Values are compared lower-case; the number is stored in the canonical form shown above.
 */

export const ID_TYPES: Readonly<Record<string, readonly string[]>> = {
  NG: ['nin', 'bvn', 'passport', 'drivers_license', 'voters_card'],
  GH: ['ghana_card', 'passport', 'drivers_license', 'voters_id'],
  KE: ['national_id', 'passport', 'alien_id', 'drivers_license'],
  ZA: ['sa_id', 'passport', 'drivers_license'],
};

export const MAX_ID_NUMBER_LENGTH = 50;

function digitsOnly(value: string): boolean {
  if (value.length === 0) return false;
  for (const c of value) if (c < '0' || c > '9') return false;
  return true;
}

function withoutSpaces(value: string): string {
  let out = '';
  for (const c of value) if (c !== ' ') out += c;
  return out;
}

/** Luhn check over all digits (the last one is the check digit). */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function ghanaCard(value: string): string | undefined {
  let compact = '';
  for (const c of value.toUpperCase()) if (c !== '-' && c !== ' ') compact += c;
  if (compact.length !== 13 || !compact.startsWith('GHA') || !digitsOnly(compact.slice(3))) return undefined;
  return `GHA-${compact.slice(3, 12)}-${compact.slice(12)}`;
}

function genericDocumentNumber(value: string): string | undefined {
  if (value.length < 5 || value.length > 20) return undefined;
  for (const c of value) {
    const ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || ' -/'.includes(c);
    if (!ok) return undefined;
  }
  return value;
}

/** The canonical document number, or undefined when it cannot be a number of that document type. */
export function normaliseIdNumber(idType: string, raw: string): string | undefined {
  if (raw.length > MAX_ID_NUMBER_LENGTH) return undefined;
  const compact = withoutSpaces(raw);
  switch (idType) {
    case 'nin':
    case 'bvn':
      return compact.length === 11 && digitsOnly(compact) ? compact : undefined;
    case 'ghana_card':
      return ghanaCard(raw);
    case 'national_id':
      return compact.length >= 6 && compact.length <= 9 && digitsOnly(compact) ? compact : undefined;
    case 'sa_id':
      return compact.length === 13 && digitsOnly(compact) && passesLuhn(compact) ? compact : undefined;
    default:
      return genericDocumentNumber(raw);
  }
}

/** Human description of the expected format, for error messages. */
export function idNumberFormat(idType: string): string {
  switch (idType) {
    case 'nin':
    case 'bvn':
      return `an 11-digit ${idType.toUpperCase()}`;
    case 'ghana_card':
      return 'a Ghana Card number like GHA-123456789-0';
    case 'national_id':
      return 'a national ID number of 6 to 9 digits';
    case 'sa_id':
      return 'a valid 13-digit South African ID number';
    default:
      return 'a document number of 5 to 20 letters, digits, spaces, dashes or slashes';
  }
}
