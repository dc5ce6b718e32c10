import { isMetadataKey, PlatformError } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { MetadataValue } from './charge';
import type { CustomerInput } from './payment-request';

/** The customer block of charge and session requests, with proto's empty strings as absent. */
export function customerOf(c: types.payments.Customer__Output | null | undefined): CustomerInput | undefined {
  return c
    ? {
        email: c.email || undefined,
        first_name: c.first_name || undefined,
        last_name: c.last_name || undefined,
        country: c.country || undefined,
      }
    : undefined;
}

/**
 * Scalar metadata from its protobuf oneof (the gateway already refused nested values and unsafe keys;
 * a key is checked again here because it becomes a stored field name).
 */
export function metadataOf(input: Record<string, types.common.MetadataValue__Output>): Record<string, MetadataValue> {
  const out: Record<string, MetadataValue> = {};
  for (const [key, v] of Object.entries(input)) {
    if (!isMetadataKey(key)) throw new PlatformError('METADATA_INVALID', undefined, { param: 'metadata' });
    if (v.kind === 'string_value') out[key] = v.string_value ?? '';
    else if (v.kind === 'number_value') out[key] = v.number_value ?? 0;
    else if (v.kind === 'bool_value') out[key] = v.bool_value ?? false;
  }
  return out;
}
