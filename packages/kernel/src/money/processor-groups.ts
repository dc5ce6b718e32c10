/**
 * Spec 4.1: the charge currency selects the payment processor group (the spec's "gateway group":
 * naira, regional, card). In code these are *processors*; "gateway" means only the HTTP edge.
 * Shared by payments (routing, fees) and fx-pricing (which payment methods a customer is offered).
 */
export type ProcessorGroup = 'naira' | 'regional' | 'card';

export const PROCESSOR_GROUP_BY_CURRENCY: Readonly<Record<string, ProcessorGroup>> = {
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
export function processorGroupOf(currency: string): ProcessorGroup | undefined {
  return Object.prototype.hasOwnProperty.call(PROCESSOR_GROUP_BY_CURRENCY, currency)
    ? PROCESSOR_GROUP_BY_CURRENCY[currency]
    : undefined;
}
