import { decimalToString, parseDecimal, PlatformError } from '@ppay/kernel';

/** Rates are stored and shown with 4 decimal places: 0.0800 = 8%, i.e. basis-point precision. */
export const RATE_SCALE = 4;
export const ZERO_RATE = '0.0000';

export type CommissionSource = 'merchant' | 'marketplace_default' | 'none';

/**
 * A partner's percent (0..100, at most 2 decimal places) as a decimal rate string, exactly:
 * 8 → "0.0800", 12.5 → "0.1250", 100 → "1.0000". No float arithmetic: the number's shortest
 * decimal representation is parsed and shifted by two places.
 */
export function percentToRate(percent: number, param: string): string {
  const invalid = () =>
    new PlatformError('VALIDATION_FAILED', `${param} must be a percentage between 0 and 100 with at most 2 decimals`, {
      param,
    });
  if (typeof percent !== 'number' || !Number.isFinite(percent) || percent < 0 || percent > 100) throw invalid();
  const value = parseDecimal(percent);
  if (value.scale > RATE_SCALE - 2) throw invalid();
  const units = value.units * 10n ** BigInt(RATE_SCALE - 2 - value.scale);
  return decimalToString({ units, scale: RATE_SCALE });
}

/** Spec 4.1 step 3: the per-merchant rate, then the marketplace default, then 0. */
export function resolveCommission(
  merchantRate: string | null,
  marketplaceDefault: string | null | undefined,
): { rate: string; source: CommissionSource } {
  if (merchantRate) return { rate: merchantRate, source: 'merchant' };
  if (marketplaceDefault) return { rate: marketplaceDefault, source: 'marketplace_default' };
  return { rate: ZERO_RATE, source: 'none' };
}
