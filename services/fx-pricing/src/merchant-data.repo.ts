import type { MerchantDataTarget } from '@ppay/runtime';

/**
 * Every collection of fx-pricing holding a merchant's data (delete merchant, spec 3.5 / 4.9): the ONE
 * list the deletion consumer purges. A merchant's own products (their variations inside) belong to a
 * mode; seeded products (mode null) and price rules have none, so only a whole-business deletion removes
 * them (docs/decisions.md, Delete merchant).
 */
export const MERCHANT_DATA: readonly MerchantDataTarget[] = [
  { collection: 'products', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  { collection: 'price_rules', filter: (id) => ({ merchant_id: id }), modeField: null },
];
