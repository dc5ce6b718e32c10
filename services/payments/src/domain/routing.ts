import { GATEWAY_GROUP_BY_CURRENCY, gatewayGroupOf, PlatformError, type GatewayGroup } from '@ppay/kernel';

export type { GatewayGroup };

export const SUPPORTED_CHARGE_CURRENCIES = Object.keys(GATEWAY_GROUP_BY_CURRENCY);

/** The lowercase identifier reported as `payment_gateway`. */
export const GATEWAY_IDS: Record<GatewayGroup, string> = {
  naira: 'naira_gateway',
  regional: 'regional_gateway',
  card: 'card_gateway',
};

export function gatewayGroupFor(currency: string): GatewayGroup {
  const group = gatewayGroupOf(currency);
  if (!group) {
    throw new PlatformError(
      'UNSUPPORTED_CURRENCY',
      `Currency ${currency} is not supported for charges; supported: ${SUPPORTED_CHARGE_CURRENCIES.join(', ')}`,
      { param: 'currency' },
    );
  }
  return group;
}
