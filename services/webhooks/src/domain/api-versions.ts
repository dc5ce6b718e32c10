/**
 * Webhook payload versions (spec 9). The spec does not name the version before 2026-03-27; the
 * platform calls it 2025-06-01 (docs/decisions.md). New keys get the latest.
 */
export const LATEST_API_VERSION = '2026-03-27';
export const LEGACY_API_VERSION = '2025-06-01';
export const SUPPORTED_API_VERSIONS: readonly string[] = [LEGACY_API_VERSION, LATEST_API_VERSION];

export function isSupportedApiVersion(value: string): boolean {
  return SUPPORTED_API_VERSIONS.includes(value);
}
