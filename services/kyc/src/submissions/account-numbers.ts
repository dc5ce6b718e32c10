import { PlatformError } from '@ppay/kernel';
import type { PayoutInstitution } from '../payout-accounts/banks';

/**
 * Payout account numbers: Nigerian NUBANs, mobile-money phone numbers and other bank account numbers.
 *
 * Choices:
 *  - NUBAN check digit per the CBN's 2020 revised standard: a 6-digit institution code + the 9-digit
 *    serial, weights 3,7,3 repeated, check = (10 − sum mod 10) mod 10. A 3-digit DMB code becomes
 *    "000" + code; a 5-digit OFI code becomes "9" + code (the standard's rule, e.g. 50547 → 950547 — left-
 *    padding it with a zero would compute a different digit); a 6-digit code is used as is.
 *  - Nigeria: every account number must be 10 digits. A wrong check digit is a 400 for commercial banks
 *    (NUBAN has been mandatory for them since 2011). For microfinance banks it only blocks auto-approval,
 *    since some fintech MFBs issue phone-derived numbers; mobile-money operators (Opay, PalmPay) use the
 *    phone number as the account number, so no check digit applies.
 *  - Other countries' bank accounts: 6 to 20 digits; there is no national check digit to apply.
 *  - Mobile money: E.164 is the stored form. Accepted input: `+<cc><national>`, `<cc><national>` or
 *    `0<national>` (trunk prefix), with spaces or dashes; the national number must start like a mobile
 *    number of that country (NG 7/8/9, GH 2/5, KE 7/1, ZA 6/7/8). Lengths are checked before anything
 *    else and no regular expression is used, so hostile input costs linear time.
 */

export const NUBAN_WEIGHTS: readonly number[] = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3];

/** The 6-digit NUBAN institution code for a CBN code of 3, 5 or 6 digits; undefined otherwise. */
export function nubanInstitutionCode(cbnCode: string): string | undefined {
  if (!isDigits(cbnCode)) return undefined;
  if (cbnCode.length === 3) return `000${cbnCode}`;
  if (cbnCode.length === 5) return `9${cbnCode}`;
  if (cbnCode.length === 6) return cbnCode;
  return undefined;
}

/** The check digit for a 9-digit serial at the institution; undefined for malformed input. */
export function nubanCheckDigit(cbnCode: string, serial: string): number | undefined {
  const code = nubanInstitutionCode(cbnCode);
  if (code === undefined || serial.length !== 9 || !isDigits(serial)) return undefined;
  const digits = code + serial;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += (digits.charCodeAt(i) - 48) * NUBAN_WEIGHTS[i];
  return (10 - (sum % 10)) % 10;
}

export function isValidNuban(cbnCode: string, accountNumber: string): boolean {
  if (typeof accountNumber !== 'string' || accountNumber.length !== 10 || !isDigits(accountNumber)) return false;
  return nubanCheckDigit(cbnCode, accountNumber.slice(0, 9)) === accountNumber.charCodeAt(9) - 48;
}

interface MobilePlan {
  countryCode: string;
  nationalLength: number;
  /** First digits a mobile national number may start with. */
  mobileLeads: string;
}

const MOBILE_PLANS: Readonly<Record<string, MobilePlan>> = {
  NG: { countryCode: '234', nationalLength: 10, mobileLeads: '789' },
  GH: { countryCode: '233', nationalLength: 9, mobileLeads: '25' },
  KE: { countryCode: '254', nationalLength: 9, mobileLeads: '71' },
  ZA: { countryCode: '27', nationalLength: 9, mobileLeads: '678' },
};

/** Longest raw phone input considered at all (a formatted E.164 number is well under this). */
const MAX_RAW_PHONE = 32;
const MAX_RAW_ACCOUNT = 64;

function isDigits(value: string): boolean {
  if (value.length === 0) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Drops spaces and dashes; undefined when anything else but digits remains. */
function digitsWithoutSeparators(value: string): string | undefined {
  let out = '';
  for (const ch of value) {
    if (ch === ' ' || ch === '-') continue;
    if (ch < '0' || ch > '9') return undefined;
    out += ch;
  }
  return out;
}

/** E.164 form of a mobile number of `country` (NG, GH, KE, ZA); undefined when it is not one. */
export function normaliseMobileMoneyNumber(country: string, raw: unknown): string | undefined {
  const plan = MOBILE_PLANS[country];
  if (!plan || typeof raw !== 'string' || raw.length > MAX_RAW_PHONE) return undefined;
  const text = raw.trim();
  const plus = text.startsWith('+');
  const digits = digitsWithoutSeparators(plus ? text.slice(1) : text);
  if (!digits) return undefined;
  let national: string | undefined;
  if (digits.length === plan.countryCode.length + plan.nationalLength && digits.startsWith(plan.countryCode)) {
    national = digits.slice(plan.countryCode.length);
  } else if (!plus && digits.length === plan.nationalLength + 1 && digits.startsWith('0')) {
    national = digits.slice(1);
  }
  if (!national || !plan.mobileLeads.includes(national[0])) return undefined;
  return `+${plan.countryCode}${national}`;
}

export type AccountNumberResult = { ok: true; value: string } | { ok: false; error: PlatformError };

/**
 * Checks and normalises the account number of a payout to `institution`: NUBAN for Nigeria, E.164 for
 * mobile money, 6–20 digits for other banks. `param` is the partner's field name used in the error.
 */
export function validateAccountNumber(
  institution: PayoutInstitution,
  raw: unknown,
  param = 'account_number',
): AccountNumberResult {
  const fail = (message: string): AccountNumberResult => ({
    ok: false,
    error: new PlatformError('VALIDATION_FAILED', `${param} ${message}`, { param }),
  });
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return fail('is required');
  if (typeof raw !== 'string') return fail('must be a string (send it quoted so that leading zeros are kept)');
  if (institution.account_number_type === 'phone_number') {
    const phone = normaliseMobileMoneyNumber(institution.country_iso_code, raw);
    return phone
      ? { ok: true, value: phone }
      : fail(`must be a phone number in international format (E.164) for ${institution.name}`);
  }
  const digits = raw.length > MAX_RAW_ACCOUNT ? undefined : digitsWithoutSeparators(raw.trim());
  if (institution.country_iso_code === 'NG') {
    const checked = institution.institution_type === 'commercial_bank';
    if (digits?.length === 10 && (!checked || isValidNuban(institution.cbn_code ?? '', digits))) {
      return { ok: true, value: digits };
    }
    return fail(`must be a valid 10-digit NUBAN for ${institution.name}`);
  }
  return digits && digits.length >= 6 && digits.length <= 20
    ? { ok: true, value: digits }
    : fail(`must be 6 to 20 digits for ${institution.name}`);
}

/** Whether the account number's NUBAN check digit can be relied on for this institution (auto-approval). */
export function hasNubanCheckDigit(institution: PayoutInstitution): boolean {
  return (
    institution.country_iso_code === 'NG' &&
    institution.cbn_code !== undefined &&
    institution.institution_type !== 'mobile_money'
  );
}
