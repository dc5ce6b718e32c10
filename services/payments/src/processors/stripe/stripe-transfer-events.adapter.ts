import type Stripe from 'stripe';
import { money, processorGroupOf } from '@ppay/kernel';
import type { PayoutTransferEvent } from '../processor-event';
import { ourMetadata, type StripeEventMappers } from './stripe-event-mapping.adapter';

const REFERENCE_MAX = 100;

/**
 * A Transfer of ours to a connected account (metadata `payout_request_id`, `payout_reference`,
 * `merchant_id`, `mode`, set when it was created: stripe-transfers.adapter.ts). The platform makes
 * transfers, so their events are the platform's own (no `account`); one naming a connected account
 * is not a transfer of ours. Its state is read from the object (`amount_reversed`, `reversed`), not
 * guessed from the event type.
 */
function transferEvent(change: PayoutTransferEvent['change']) {
  return (event: Stripe.Event): PayoutTransferEvent | 'not_ours' => {
    if (event.account) return 'not_ours';
    const transfer = event.data.object as Stripe.Transfer;
    const ours = ourMetadata(transfer.metadata);
    const requestId = Number(ours?.meta.payout_request_id);
    const reference = ours?.meta.payout_reference;
    const currency = String(transfer.currency ?? '').toUpperCase();
    const destination = typeof transfer.destination === 'string' ? transfer.destination : transfer.destination?.id;
    if (
      !ours ||
      ours.mode !== 'live' ||
      !Number.isSafeInteger(requestId) ||
      requestId <= 0 ||
      !reference ||
      reference.length > REFERENCE_MAX ||
      !destination ||
      !transfer.id ||
      processorGroupOf(currency) !== 'card'
    ) {
      return 'not_ours';
    }
    return {
      kind: 'payout_transfer',
      processor: 'stripe',
      event_id: event.id,
      type: event.type,
      merchant_id: ours.merchant_id,
      mode: 'live',
      change,
      payout_request_id: requestId,
      payout_reference: reference,
      transfer_reference: String(transfer.id).slice(0, 255),
      account_reference: destination.slice(0, 255),
      amount: money(transfer.amount, currency),
      amount_reversed: transfer.amount_reversed ?? 0,
      fully_reversed: transfer.reversed === true,
    };
  };
}

/**
 * A payout's transfer was made or taken back (docs/decisions.md C26). `payout.*` events (of the platform
 * or of a connected account) are not mapped: the connected account's own payouts to its bank follow
 * Stripe's schedule and may carry several of our transfers, so they say nothing about one payout of ours.
 */
export const TRANSFER_EVENTS: StripeEventMappers = {
  'transfer.created': transferEvent('created'),
  'transfer.reversed': transferEvent('reversed'),
};
