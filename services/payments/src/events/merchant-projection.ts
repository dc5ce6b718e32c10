import { SUBJECTS, type ConsumerSpec, type MerchantCreated, type MerchantSettingsUpdated } from '@ppay/kernel';
import type { ProjectedMerchantDirectory } from '../repo/merchant-directory';

/** Keeps payments' merchant profiles in step with marketplace (durable, idempotent consumers). */
export function merchantProjectionConsumers(directory: ProjectedMerchantDirectory): ConsumerSpec[] {
  return [
    {
      stream: 'MERCHANTS',
      durable: 'payments_merchant_profiles',
      filterSubject: SUBJECTS.merchantCreated,
      async handle(event) {
        const data = event.data as MerchantCreated;
        await directory.upsertProfile({
          merchant_id: data.merchant_id,
          country: data.country,
          baseline_currency: data.baseline_currency,
          is_marketplace_operator: data.is_marketplace_operator,
          business_name: data.business_name ?? '',
        });
        await directory.applySettings(data.merchant_id, 0, { customer_pays_fees: data.customer_pays_fees ?? false });
      },
    },
    {
      stream: 'MERCHANTS',
      durable: 'payments_merchant_settings',
      filterSubject: SUBJECTS.merchantSettingsUpdated,
      async handle(event) {
        const data = event.data as MerchantSettingsUpdated;
        await directory.applySettings(data.merchant_id, data.settings_version, {
          customer_pays_fees: data.customer_pays_fees,
        });
      },
    },
  ];
}
