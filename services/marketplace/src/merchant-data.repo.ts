import type { MerchantDataTarget } from '@ppay/runtime';

/**
 * Every collection of marketplace holding a merchant's data (delete merchant, spec 3.5 / 4.9): the ONE
 * list the deletion consumer purges. A new collection with merchant data is added here, or the
 * delete-merchant integration test (which scans every collection) fails.
 *
 * Not listed: `merchant_deletions` (the deletion's own bookkeeping: ids, who acknowledged, the
 * gateway outcome a retried call answers with; nothing of the business).
 */
export const MERCHANT_DATA: readonly MerchantDataTarget[] = [
  // Removed by the call itself (spec order); repeated here so a crash after the request is recorded loses nothing.
  { collection: 'relationships', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  { collection: 'invitations', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  // The business record has no mode: only a whole-business deletion removes it (one mode's
  // references on it are cleared by the call and again before this purge).
  { collection: 'merchants', filter: (id) => ({ _id: id }), modeField: null },
];
