import { PROCESSOR_GROUP_BY_CURRENCY, processorGroupOf, PlatformError, type ProcessorGroup } from '@ppay/kernel';

export type { ProcessorGroup };

export const SUPPORTED_CHARGE_CURRENCIES = Object.keys(PROCESSOR_GROUP_BY_CURRENCY);

/** The lowercase identifier partners see as `payment_gateway` (spec 2.2). */
export const PROCESSOR_IDS: Record<ProcessorGroup, string> = {
  naira: 'naira_gateway',
  regional: 'regional_gateway',
  card: 'card_gateway',
};

/** Spec 4.1 routing: the charge currency picks the processor group. */
export function processorGroupFor(currency: string): ProcessorGroup {
  const group = processorGroupOf(currency);
  if (!group) {
    throw new PlatformError(
      'UNSUPPORTED_CURRENCY',
      `Currency ${currency} is not supported for charges; supported: ${SUPPORTED_CHARGE_CURRENCIES.join(', ')}`,
      { param: 'currency' },
    );
  }
  return group;
}
