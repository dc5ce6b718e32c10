import type { MerchantDataTarget } from '@ppay/runtime';

/**
 * Every collection of payments holding a merchant's data (delete merchant, spec 3.5 / 4.9): the ONE
 * list the deletion consumer purges. A new collection with merchant data is added here, or the
 * delete-merchant integration test (which scans every collection) fails.
 *
 * Not listed on purpose: an operator's own charges keep `sub_merchant_id` of a deleted sub-merchant
 * (the operator's accounting history of where a split went; docs/decisions.md, Delete merchant).
 */
export const MERCHANT_DATA: readonly MerchantDataTarget[] = [
  { collection: 'charges', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  // Pointers from an Idempotency-Key or reference to its charge, written before 2026-11-28 (the create
  // path now reads the charges' own indexes); a database from before then still holds them.
  { collection: 'charge_keys', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  { collection: 'sessions', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  { collection: 'ledger_entries', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  // Balances and staged payouts (a pending payout's reservation goes with its wallet).
  { collection: 'wallets', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  { collection: 'payouts', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  { collection: 'payment_methods', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  // Disputes of the merchant's charges (an operator's, for its marketplace charges).
  { collection: 'disputes', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  // Orders of the merchant's physical products.
  { collection: 'orders', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  // The projection of the business record (no mode): only a whole-business deletion removes it.
  { collection: 'merchant_profiles', filter: (id) => ({ _id: id }), modeField: null },
];
