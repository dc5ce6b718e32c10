/**
 * Webhook payload versions (spec 9). The spec does not name the version before 2026-03-27; the
 * platform calls it 2025-06-01 (docs/decisions.md). New keys get the latest.
 */
export const LATEST_API_VERSION = '2026-03-27';
export const LEGACY_API_VERSION = '2025-06-01';
export const SUPPORTED_API_VERSIONS: readonly string[] = [LEGACY_API_VERSION, LATEST_API_VERSION];

/**
 * Any real calendar date up to the latest version: a key pinned to a date receives the
 * newest payload structure released on or before it (renderers.ts), so `2025-01-15` gets the
 * pre-2026-03-27 shape and `2026-04-01` (once it has passed as a date string) is refused only when
 * it is after the latest release.
 */
export function isSupportedApiVersion(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  const real = date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
  return real && y >= 2000 && value <= LATEST_API_VERSION;
}
