import type Stripe from 'stripe';
import { MODES, type Mode } from '@ppay/kernel';
import type { ProcessorEvent } from '../processor-event';

/**
 * Maps one type of verified Stripe event to ours; `not_ours` for an object the platform did not make
 * (another integration on the same account), `unhandled` for one of ours in a state not acted on. One
 * table per kind of event, joined by the verifier.
 */
export type StripeEventMapper = (event: Stripe.Event) => ProcessorEvent | 'not_ours' | 'unhandled';
export type StripeEventMappers = Readonly<Record<string, StripeEventMapper>>;

/** Our metadata on an object we made at Stripe: which merchant and mode it belongs to. */
export function ourMetadata(
  metadata: Stripe.Metadata | null | undefined,
): { merchant_id: number; mode: Mode; meta: Stripe.Metadata } | null {
  const meta = metadata ?? {};
  const merchantId = Number(meta.merchant_id);
  if (!meta.merchant_id || !Number.isSafeInteger(merchantId) || !MODES.includes(meta.mode as Mode)) return null;
  return { merchant_id: merchantId, mode: meta.mode as Mode, meta };
}

/** An id of ours read back from metadata, bounded as our ids are. */
export const ourId = (value: string | undefined): string | null => (value ? value.slice(0, 64) : null);
