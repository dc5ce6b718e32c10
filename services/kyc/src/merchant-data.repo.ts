import type { MerchantDataTarget } from '@ppay/runtime';

/**
 * Every collection of kyc holding a merchant's data (delete merchant, spec 3.5 / 4.9): the ONE list
 * the deletion consumer purges. The KYC case holds the submission, its sealed evidence, the connected
 * account and the payout account, so one collection covers "submissions and payout accounts".
 */
export const MERCHANT_DATA: readonly MerchantDataTarget[] = [
  { collection: 'kyc_cases', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
];
