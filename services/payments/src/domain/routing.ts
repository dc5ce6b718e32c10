import { PlatformError } from '@ppay/kernel';

/** Spec 4.1: the charge currency selects the gateway group. */
export type GatewayGroup = 'naira' | 'regional' | 'card';

const GROUP_BY_CURRENCY: Record<string, GatewayGroup> = {
  NGN: 'naira',
  GHS: 'regional',
  KES: 'regional',
  ZAR: 'regional',
  TZS: 'regional',
  XAF: 'regional',
  XOF: 'regional',
  USD: 'card',
  EUR: 'card',
  GBP: 'card',
  CAD: 'card',
  AUD: 'card',
};

export const SUPPORTED_CHARGE_CURRENCIES = Object.keys(GROUP_BY_CURRENCY);

/** The lowercase identifier reported as `payment_gateway`. */
export const GATEWAY_IDS: Record<GatewayGroup, string> = {
  naira: 'naira_gateway',
  regional: 'regional_gateway',
  card: 'card_gateway',
};

export function gatewayGroupFor(currency: string): GatewayGroup {
  const group = GROUP_BY_CURRENCY[currency];
  if (!group) {
    throw new PlatformError(
      'UNSUPPORTED_CURRENCY',
      `Currency ${currency} is not supported for charges; supported: ${SUPPORTED_CHARGE_CURRENCIES.join(', ')}`,
      { param: 'currency' },
    );
  }
  return group;
}
