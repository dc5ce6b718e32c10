import type { Mode } from '@ppay/kernel';
import type { PayoutEligibility } from './payout-eligibility';

export interface PayoutEligibilityRepository {
  /** Writes one mode's payout eligibility unless the document holds the same or a newer version. */
  recordPayoutEligibility(merchantId: number, mode: Mode, eligibility: PayoutEligibility): Promise<boolean>;
}
