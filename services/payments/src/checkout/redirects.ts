import { PlatformError } from '@ppay/kernel';

export const MAX_URL_LENGTH = 2048;

/** Absolute http(s) URL without credentials (the customer's browser is sent there). */
export function checkRedirectUrl(value: string | undefined, param: string): string {
  const raw = value?.trim() ?? '';
  if (!raw) return '';
  const invalid = () =>
    new PlatformError('VALIDATION_FAILED', `${param} must be an absolute http(s) URL`, {
      param,
      detail: `at most ${MAX_URL_LENGTH} characters`,
    });
  // Length first: the URL parser never sees an unbounded string.
  if (raw.length > MAX_URL_LENGTH) throw invalid();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid();
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid();
  if (url.username || url.password) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must not contain credentials`, { param });
  }
  return url.toString();
}

/** The merchant's URL with `session_id` appended (Stripe's {CHECKOUT_SESSION_ID}, as a query parameter). */
export function redirectWithSession(url: string, sessionId: string): string {
  if (!url) return '';
  const u = new URL(url);
  u.searchParams.set('session_id', sessionId);
  return u.toString();
}

/** Origins the hosted page may post to (its CSP form-action). */
export function redirectOrigins(urls: string[]): string[] {
  return [...new Set(urls.filter(Boolean).map((u) => new URL(u).origin))];
}
