import type { Mode } from '@ppay/kernel';
import type { MerchantModel } from '../merchants/merchant.repo';
import type { PayoutEligibility } from './payout-eligibility';
import type { PayoutEligibilityRepository } from './ports';

/** `payout_eligibility.<mode>` on the merchant document (merchants/merchant.repo.ts owns the schema). */
export class MongoPayoutEligibilityRepository implements PayoutEligibilityRepository {
  constructor(private readonly model: MerchantModel) {}

  async recordPayoutEligibility(id: number, mode: Mode, eligibility: PayoutEligibility): Promise<boolean> {
    const path = `payout_eligibility.${mode}`;
    const res = await this.model
      .updateOne(
        {
          _id: id,
          $or: [{ [`${path}.version`]: { $exists: false } }, { [`${path}.version`]: { $lt: eligibility.version } }],
        },
        { $set: { [path]: eligibility } },
      )
      .exec();
    return res.modifiedCount > 0;
  }
}
