import { defineConsumer, SUBJECTS, type ConsumerSpec } from '@ppay/kernel';
import type { ProjectedMerchantDirectory } from '../repo/merchant-directory';

/** Keeps payments' merchant profiles in step with marketplace (durable, idempotent consumers). */
export function merchantProjectionConsumers(directory: ProjectedMerchantDirectory): ConsumerSpec[] {
  return [
    defineConsumer({
      stream: 'MERCHANTS',
      durable: 'payments_merchant_profiles',
      subjects: [SUBJECTS.merchantCreated],
      async handle({ data }) {
        await directory.upsertProfile({
          merchant_id: data.merchant_id,
          country: data.country,
          baseline_currency: data.baseline_currency,
          is_marketplace_operator: data.is_marketplace_operator,
          business_name: data.business_name,
        });
        await directory.applySettings(data.merchant_id, 0, { customer_pays_fees: data.customer_pays_fees });
      },
    }),
    defineConsumer({
      stream: 'MERCHANTS',
      durable: 'payments_merchant_settings',
      subjects: [SUBJECTS.merchantSettingsUpdated],
      async handle({ data }) {
        await directory.applySettings(data.merchant_id, data.settings_version, {
          customer_pays_fees: data.customer_pays_fees,
        });
      },
    }),
  ];
}
