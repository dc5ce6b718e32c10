import { outboxEvent, PlatformError, SUBJECTS, type Mode, type OutboxEntry } from '@ppay/kernel';
import type { MarketplaceSettings, MerchantRecord } from '../merchants/merchant';
import { percentToRate } from './commission';

export interface SetupInput {
  marketplace_name: string;
  /** Percent 0..100; absent on a re-setup keeps the current default. */
  default_commission_rate?: number;
}

const MAX_NAME = 200;

/** The operator's marketplace settings of one mode after POST /marketplace/setup (`current`: before it). */
export function marketplaceSettings(
  input: SetupInput,
  current: MarketplaceSettings | null,
  now: Date,
): MarketplaceSettings {
  const name = (input.marketplace_name ?? '').trim();
  if (!name || name.length > MAX_NAME) {
    throw new PlatformError('VALIDATION_FAILED', `marketplace_name must be 1 to ${MAX_NAME} characters`, {
      param: 'marketplace_name',
    });
  }
  return {
    name,
    default_commission_rate:
      input.default_commission_rate !== undefined
        ? percentToRate(input.default_commission_rate, 'default_commission_rate')
        : (current?.default_commission_rate ?? null),
    status: 'active',
    created_at: current?.created_at ?? now,
    updated_at: now,
  };
}

/** merchants.marketplace_updated, carried in the operator's outbox with the settings. */
export function marketplaceUpdatedEvent(operatorId: number, mode: Mode, settings: MarketplaceSettings): OutboxEntry {
  return outboxEvent(
    SUBJECTS.marketplaceUpdated,
    {
      marketplace_id: operatorId,
      mode,
      name: settings.name,
      default_commission_rate: settings.default_commission_rate,
      status: settings.status,
    },
    { merchantId: operatorId, mode },
  );
}

/** Spec 4.9 setup response: `marketplace_id` is the operator's business id as a string. */
export function marketplaceResource(operator: MerchantRecord, settings: MarketplaceSettings) {
  return {
    ...settings,
    marketplace_id: String(operator.id),
    marketplace_name: settings.name,
  };
}
