import type { MerchantDataTarget } from '@ppay/runtime';

/**
 * Every collection of subscriptions holding a merchant's data (delete merchant, spec 3.5 / 4.9): the
 * ONE list the deletion consumer purges. A new collection with merchant data is added here, or the
 * delete-merchant integration test (which scans every collection) fails.
 */
export const MERCHANT_DATA: readonly MerchantDataTarget[] = [
  { collection: 'subscriptions', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  { collection: 'renewals', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  { collection: 'installment_plans', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
];
