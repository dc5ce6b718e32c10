import { SUBJECTS, type ConsumerSpec, type MerchantCreated } from '@ppay/kernel';
import type { ProjectedMerchantDirectory } from '../repo/merchant-directory';

/** Keeps payments' merchant profiles in step with marketplace (durable, idempotent consumer). */
export function merchantProjectionConsumer(directory: ProjectedMerchantDirectory): ConsumerSpec {
  return {
    stream: 'MERCHANTS',
    durable: 'payments_merchant_profiles',
    filterSubject: SUBJECTS.merchantCreated,
    async handle(event) {
      const data = event.data as MerchantCreated;
      await directory.upsert({
        merchant_id: data.merchant_id,
        country: data.country,
        baseline_currency: data.baseline_currency,
        customer_pays_fees: false,
        is_marketplace_operator: data.is_marketplace_operator,
        business_name: data.business_name ?? '',
      });
    },
  };
}
