import type { KycCaseFacts } from '@ppay/kernel';
import type { MerchantService } from '../merchants/merchants';
import { payoutEligibilityOf } from './payout-eligibility';
import type { PayoutEligibilityRepository } from './ports';

/** marketplace's projection of kyc's outcomes: each sub-merchant's KYC status and payout eligibility per mode. */
export class KycProjection {
  constructor(
    private readonly eligibility: PayoutEligibilityRepository,
    /** The projection is kept on the merchant document: the cached record is dropped after each write. */
    private readonly merchants: Pick<MerchantService, 'forget'>,
  ) {}

  /** Records a KYC event's outcome (kyc.* consumer); older versions than the stored one are ignored. */
  async record(facts: KycCaseFacts, occurredAt: Date): Promise<boolean> {
    const written = await this.eligibility.recordPayoutEligibility(
      facts.merchant_id,
      facts.mode,
      payoutEligibilityOf(facts, occurredAt),
    );
    this.merchants.forget(facts.merchant_id);
    return written;
  }
}
