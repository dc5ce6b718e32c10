import { SUBJECTS } from '@ppay/kernel';
import { defineConsumer, type ConsumerSpec, type MerchantTombstones } from '@ppay/runtime';
import type { ProjectedMerchantDirectory } from './merchant-directory.repo';

/** Keeps payments' merchant profiles in step with marketplace (durable, idempotent consumers). */
export function merchantProjectionConsumers(
  directory: ProjectedMerchantDirectory,
  tombstones: Pick<MerchantTombstones, 'isDeleted'>,
): ConsumerSpec[] {
  // A late event of a deleted business must not bring its profile back (delete merchant).
  const deleted = (merchantId: number) => tombstones.isDeleted(merchantId, undefined);
  return [
    defineConsumer({
      stream: 'MERCHANTS',
      durable: 'payments_merchant_profiles',
      subjects: [SUBJECTS.merchantCreated],
      async handle({ data }) {
        if (await deleted(data.merchant_id)) return;
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
        if (await deleted(data.merchant_id)) return;
        await directory.applySettings(data.merchant_id, data.settings_version, {
          customer_pays_fees: data.customer_pays_fees,
        });
      },
    }),
  ];
}
