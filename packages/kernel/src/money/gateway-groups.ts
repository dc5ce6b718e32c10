/**
 * Spec 4.1: the charge currency selects the gateway group. Shared by payments (routing, fees) and
 * fx-pricing (which payment methods a customer is offered).
 */
export type GatewayGroup = 'naira' | 'regional' | 'card';

export const GATEWAY_GROUP_BY_CURRENCY: Readonly<Record<string, GatewayGroup>> = {
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

/** The group for a chargeable currency, undefined for any other. */
export function gatewayGroupOf(currency: string): GatewayGroup | undefined {
  return Object.prototype.hasOwnProperty.call(GATEWAY_GROUP_BY_CURRENCY, currency)
    ? GATEWAY_GROUP_BY_CURRENCY[currency]
    : undefined;
}
