import type { Mode, Money } from '@ppay/kernel';
import type {
  CardPayment,
  CardResult,
  CardSummary,
  ProcessorSavedCard,
  SavedCard,
  SavedCardPayment,
  TestCard,
  ValidCard,
} from './cards';
import type { ProcessorGroup } from './processors';

/**
 * The payment processors, as every subdomain that moves money sees them: the registry of processor
 * adapters (charges are initialised and refunded through it) and the card processor (hosted checkout
 * payments, saved cards and their off-session charges). Sandbox adapters implement both here.
 */

/** A payment for a processor to initialise (spec 2.2: what the embedded form or redirect needs). */
export interface PaymentIntent {
  charge_id: string;
  merchant_id: number;
  mode: Mode;
  amount: Money;
  customer_email: string;
  description: string;
  callback_url: string;
}

/** What a processor hands back when a payment is initialised (spec 2.2 fields by route). */
export interface ProcessorAuthorization {
  processor_reference: string;
  client_secret?: string;
  publishable_key?: string;
  gateway_account_id?: string;
}

/**
 * A hosted checkout session for a processor to set up (spec 4.2): the customer pays on the processor's
 * own page when it has one. A port method of its own, not a PaymentIntent: a session has URLs to send the
 * customer back to and an expiry, and its processor object (e.g. a Stripe Checkout Session) is not a
 * charge's (docs/decisions.md, S25).
 */
export interface CheckoutIntent {
  session_id: string;
  merchant_id: number;
  mode: Mode;
  amount: Money;
  customer_email: string;
  description: string;
  /** A physical product's session: what the processor's page lists and where it asks to ship. */
  goods?: CheckoutGoods | null;
  success_url: string;
  cancel_url: string;
  /** Our session's expiry; a processor may keep its own session a little longer (never shorter). */
  expires_at: Date;
  /**
   * What the customer does on the processor's page: `pay` (a one-time payment), `pay_and_save` (pay and
   * keep the card for off-session charges: a subscription's first period, an installment's first part)
   * or `save` (nothing is charged now, the card is only kept: a subscription's free trial).
   */
  purpose: 'pay' | 'pay_and_save' | 'save';
}

/**
 * What a physical product's session sells, as the processor's page shows it (docs/decisions.md, S33):
 * each line's `unit_amount` × `quantity`, plus `shipping`, add up to the intent's `amount` exactly, so
 * the processor charges what the session says. The page collects an address in `ships_to` only.
 */
export interface CheckoutGoods {
  lines: { name: string; unit_amount: Money; quantity: number }[];
  shipping: Money;
  /** ISO 3166-1 alpha-2 codes: the countries the product ships to. */
  ships_to: string[];
}

export interface CheckoutAuthorization {
  /** The processor's id of the session (spec 4.2 `gateway_session_id`). */
  processor_reference: string;
  /** Where the customer pays: the processor's page, or null for our own hosted page. */
  payment_url: string | null;
  /** When the processor's session expires: the session's expiry. */
  expires_at: Date;
}

/**
 * A completed hosted checkout session as its processor holds it, read back rather than taken from the
 * event: the card it was paid with, and the tokens to charge that card again when it was kept.
 */
export interface CheckoutPayment {
  /** The processor's id of the payment taken on it; null when the session only kept the card. */
  payment_reference: string | null;
  card: CardSummary;
  /** The card kept for off-session charges (purpose `pay_and_save` or `save`); null otherwise. */
  saved_card: ProcessorSavedCard | null;
}

/**
 * What a processor adapter can do. A live adapter is built a feature at a time; the registry answers
 * GATEWAY_NOT_CONFIGURED for what it cannot do yet, before anything is stored or reserved.
 */
export type ProcessorFeature = 'charges' | 'refunds' | 'checkout';

export interface ProcessorAdapter {
  /** Spec 2.2 `payment_gateway`. */
  readonly id: string;
  readonly mode: Mode;
  readonly features: readonly ProcessorFeature[];
  /**
   * Asks the processor to set the payment up. `intent.charge_id` is the processor's idempotency key:
   * asking twice for one charge never creates two payments. SERVICE_UNAVAILABLE means nothing was
   * created; UPSTREAM_TIMEOUT means the outcome is unknown.
   */
  initialise(intent: PaymentIntent): Promise<ProcessorAuthorization>;
  /**
   * Sets a hosted checkout session up (feature `checkout`). `session_id` is the processor's idempotency
   * key; errors as for `initialise`.
   */
  initialiseCheckout(intent: CheckoutIntent): Promise<CheckoutAuthorization>;
  /**
   * What a completed checkout session was paid with (feature `checkout`), read from the processor.
   * Any error means nothing is known: ask again later.
   */
  checkoutPayment(processorReference: string): Promise<CheckoutPayment>;
  /**
   * Refunds part or all of a captured payment. `refund_id` is the processor's idempotency key: asking
   * twice for one refund never refunds twice. A decline is an answer (`failed`); `pending` means the
   * processor took it and its event tells the outcome; SERVICE_UNAVAILABLE means nothing happened this
   * time; UPSTREAM_TIMEOUT means the outcome is unknown.
   */
  refund(request: RefundIntent): Promise<RefundAnswer>;
  /**
   * Ends a payment at the processor before its charge is failed: processors that let the customer try
   * again on the same payment after a decline would otherwise still take the money. `cancelled`: nothing
   * can be taken any more; `succeeded`: it was paid after all; `processing`: the payment moved on since
   * (a new attempt) and the processor's next event tells its outcome. Any error (SERVICE_UNAVAILABLE,
   * UPSTREAM_TIMEOUT, …) means nothing is known: ask again later with the same intent.
   */
  abandon(payment: AbandonIntent): Promise<AbandonAnswer>;
  /**
   * What the processor says of a payment now (the reconciler of missed events). Only a state the
   * processor has made final is `succeeded` or `failed`; anything the customer or the processor may
   * still move on (a declined attempt the customer can retry, processing, awaiting action) is
   * `pending`. Any error means nothing is known: ask again later.
   */
  lookUp(processorReference: string): Promise<LookUpAnswer>;
}

/** A payment as its processor holds it: its amount is the processor's own, checked against our record. */
export type LookUpAnswer =
  | { status: 'pending' }
  | { status: 'succeeded'; amount: Money }
  | { status: 'failed'; amount: Money; failure_reason: string };

export interface AbandonIntent {
  charge_id: string;
  processor_reference: string;
  /**
   * The failure being acted on (the processor's event id): with the charge id, the idempotency key, so
   * a repeat is the same request and a later failure of the same payment is a new one.
   */
  failure_id: string;
}

export type AbandonAnswer = 'cancelled' | 'succeeded' | 'processing';

export interface RefundIntent {
  refund_id: string;
  charge_id: string;
  merchant_id: number;
  mode: Mode;
  processor_reference: string | null;
  amount: Money;
  reason: string | null;
  /** The processor's id of this refund once an answer or event named it: asked about, never made again. */
  refund_reference: string | null;
  /**
   * Whether it may have been asked before (a retry, the sweep): a processor whose idempotency keys
   * expire looks for the refund first rather than trust the key.
   */
  asked_before: boolean;
}

/** `pending`: the processor took the refund (its id is `processor_reference`); its event settles it. */
export type RefundAnswer =
  | { status: 'succeeded'; processor_reference: string }
  | { status: 'failed'; failure_reason: string }
  | { status: 'pending'; processor_reference: string };

export interface ProcessorRegistry {
  /**
   * Sandbox callers always get sandbox adapters; live callers get a live adapter that can do `feature`
   * (default `charges`), or GATEWAY_NOT_CONFIGURED.
   */
  adapterFor(group: ProcessorGroup, mode: Mode, feature?: ProcessorFeature): ProcessorAdapter;
}

/** Authorises card payments: on a checkout session (sandbox: deterministic test cards), and saved cards later. */
export interface CardProcessor {
  testCards(mode: Mode): TestCard[];
  authorise(payment: CardPayment, card: ValidCard): Promise<CardResult>;
  /** What is kept of a card approved on a subscription checkout, to charge it again off-session. */
  saveCard(card: ValidCard): SavedCard;
  /** Sandbox helper: a test card saved without a checkout; VALIDATION_FAILED for any other number or a declining card. */
  saveTestCard(cardNumber: string): SavedCard;
  /**
   * Charges a saved card without the customer (renewals, installment parts). `payment.charge_id` is the
   * processor's idempotency key. A decline is an answer; SERVICE_UNAVAILABLE means nothing was charged
   * (ask again); UPSTREAM_TIMEOUT means the outcome is unknown (ask again later with `asked_before`).
   */
  chargeSaved(payment: SavedCardPayment, card: SavedCard, options: { customerPresent: boolean }): Promise<CardResult>;
}

/**
 * A live processor's charge of a card saved at it (a ProcessorSavedCard of `processor`), without the
 * customer; answers and errors as CardProcessor.chargeSaved. docs/decisions.md S36–S37.
 */
export interface SavedCardCharger {
  /** The `processor` of the saved cards it charges, e.g. `stripe`. */
  readonly processor: string;
  chargeSaved(payment: SavedCardPayment, card: ProcessorSavedCard): Promise<CardResult>;
}
