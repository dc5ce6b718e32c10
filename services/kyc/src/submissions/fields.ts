import { normaliseCountry, PlatformError } from '@ppay/kernel';

/**
 * Field checks for request bodies of unknown shape: bounded strings, e-mail, URLs, calendar dates,
 * countries.
 *
 * Choices:
 *  - Strings are trimmed; blank counts as absent. Control characters are refused (they have no place in a
 *    name or an address and break logs and CSV exports). Non-strings are refused, never coerced.
 *  - Every length is checked before any other work, and no regular expression runs on partner input except
 *    single-character tests, so hostile input costs linear time.
 *  - E-mail: at most 254 characters, one `@`, a local part of up to 64 printable ASCII characters without
 *    leading, trailing or doubled dots, and a domain of at least two labels (letters, digits, hyphens; an
 *    internationalised domain must be sent in its xn-- form).
 *  - URLs: absolute, at most 2048 characters, no user:password part; `https:` only, except that callers may
 *    allow `http:` to localhost / 127.0.0.1 / [::1] (a developer's return page).
 */

export const MAX_URL_LENGTH = 2048;
export const MAX_EMAIL_LENGTH = 254;

export type Body = Record<string, unknown>;

export function invalid(param: string, message: string): PlatformError {
  return new PlatformError('VALIDATION_FAILED', `${param} ${message}`, { param });
}

export function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Absent: undefined, null or a blank string. */
export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** A trimmed string of at most `max` characters; null when absent and not required. */
export function readString(value: unknown, param: string, max: number, required: true): string;
export function readString(value: unknown, param: string, max: number, required?: boolean): string | null;
export function readString(value: unknown, param: string, max: number, required = false): string | null {
  if (isAbsent(value)) {
    if (required) throw invalid(param, 'is required');
    return null;
  }
  if (typeof value !== 'string') throw invalid(param, 'must be a string');
  if (value.length > max * 2) throw invalid(param, `must be at most ${max} characters`);
  const text = value.trim();
  if ([...text].length > max) throw invalid(param, `must be at most ${max} characters`);
  if (hasControlCharacter(text)) throw invalid(param, 'must not contain control characters');
  return text;
}

export function hasLetter(value: string): boolean {
  for (const ch of value) if (/\p{L}/u.test(ch)) return true;
  return false;
}

const LOCAL_PART_SYMBOLS = new Set("!#$%&'*+-/=?^_`{|}~.");

function isAsciiAlphanumeric(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

export function isEmail(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH) return false;
  const at = value.indexOf('@');
  if (at < 1 || at > 64 || at !== value.lastIndexOf('@')) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  for (const c of local) if (!isAsciiAlphanumeric(c) && !LOCAL_PART_SYMBOLS.has(c)) return false;
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  if (domain.length < 3 || domain.length > 253) return false;
  const labels = domain.split('.');
  if (labels.length < 2) return false;
  for (const label of labels) {
    if (label.length < 1 || label.length > 63 || label.startsWith('-') || label.endsWith('-')) return false;
    for (const c of label) if (!isAsciiAlphanumeric(c) && c !== '-') return false;
  }
  const tld = labels[labels.length - 1];
  return tld.length >= 2 && !isDigitsOnly(tld);
}

function isDigitsOnly(value: string): boolean {
  for (const c of value) if (c < '0' || c > '9') return false;
  return value.length > 0;
}

export function readEmail(value: unknown, param: string): string | null {
  const text = readString(value, param, MAX_EMAIL_LENGTH);
  if (text !== null && !isEmail(text)) throw invalid(param, 'must be a valid e-mail address');
  return text;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An absolute https URL (or http to localhost when `allowLocalHttp`); null when absent and not required. */
export function readUrl(
  value: unknown,
  param: string,
  options: { required?: boolean; allowLocalHttp?: boolean } = {},
): string | null {
  const text = readString(value, param, MAX_URL_LENGTH, options.required);
  if (text === null) return null;
  const rule = options.allowLocalHttp
    ? 'must be an absolute https URL (http only for localhost)'
    : 'must be an absolute https URL';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(param, rule);
  }
  const localHttp = options.allowLocalHttp && url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname);
  if ((url.protocol !== 'https:' && !localHttp) || !url.hostname) throw invalid(param, rule);
  if (url.username || url.password) throw invalid(param, 'must not contain a user name or password');
  return text;
}

/** Parses `YYYY-MM-DD` into a UTC date; undefined unless it is exactly that format and a real date. */
export function parseCalendarDate(value: string): Date | undefined {
  if (value.length !== 10 || value[4] !== '-' || value[7] !== '-') return undefined;
  const y = value.slice(0, 4);
  const m = value.slice(5, 7);
  const d = value.slice(8, 10);
  if (!isDigitsOnly(y) || !isDigitsOnly(m) || !isDigitsOnly(d)) return undefined;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  // Date.UTC rolls 2023-02-30 over to March; a real date survives the round trip.
  return date.toISOString().slice(0, 10) === value ? date : undefined;
}

/** Whole years between `birth` and `now` (UTC); a 29 February birthday ages on 1 March in common years. */
export function ageInYears(birth: Date, now: Date): number {
  let age = now.getUTCFullYear() - birth.getUTCFullYear();
  const birthday = new Date(Date.UTC(now.getUTCFullYear(), birth.getUTCMonth(), birth.getUTCDate()));
  if (now.getTime() < birthday.getTime()) age -= 1;
  return age;
}

/** An ISO 3166-1 alpha-2 code, from a code in any case or an English country name. */
export function readCountry(value: unknown, param: string): string {
  if (typeof value !== 'string' || value.length > 100) {
    throw invalid(param, 'must be an ISO 3166-1 alpha-2 country code');
  }
  const code = normaliseCountry(value);
  if (!code) throw invalid(param, 'must be an ISO 3166-1 alpha-2 country code');
  return code;
}
