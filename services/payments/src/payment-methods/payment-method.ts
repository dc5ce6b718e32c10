import type { Mode } from '@ppay/kernel';
import type { CardSummary } from '../processors/cards';

/**
 * What a processor keeps of a card so it can be charged again without the customer (a token). Never the
 * number: sandbox keeps the test card's brand, last 4 and how it behaves off-session, a live processor
 * would keep its own token here.
 */
export interface SavedCard extends CardSummary {
  /** The sandbox outcome profile of off-session charges (the test card's behaviour). */
  off_session: { approved: true } | { approved: false; decline_code: string; message: string };
}

/** A payment method saved for renewals (subscriptions), owned by payments. */
export interface PaymentMethodRecord {
  payment_method_id: string;
  merchant_id: number;
  mode: Mode;
  customer_email: string;
  card: SavedCard;
  /** The checkout session it was saved on; null for the sandbox helper. Unique: one method per session. */
  origin_session_id: string | null;
  created_at: Date;
}
