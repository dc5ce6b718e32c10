import type { DisputeReason, Mode, Money } from '@ppay/kernel';

/**
 * Events from the live processors, in our terms: each connector maps its own (nothing outside a
 * connector knows a processor's field names), each kind is applied by its own use case. An event is
 * stored and applied once per (processor, event id).
 */
interface EventBase {
  processor: string;
  /** The processor's event id. */
  event_id: string;
  /** The processor's event type, for logs and metrics. */
  type: string;
  merchant_id: number;
  mode: Mode;
}

/** A payment's outcome, for a charge named by our own id. */
export interface PaymentEvent extends EventBase {
  kind: 'payment';
  outcome: 'succeeded' | 'failed';
  charge_id: string;
  /** The processor's id of the payment: must be the one the charge recorded. */
  processor_reference: string;
  amount: Money;
  failure_reason: string | null;
  /**
   * A payment made without the customer for a saved card (a renewal, an installment part): its charge
   * is completed by the charge's own call, so the event only confirms it (docs/decisions.md S39).
   */
  off_session?: boolean;
}

/** A refund's state at its processor, for a refund named by our own id (and its charge). */
export interface RefundEvent extends EventBase {
  kind: 'refund';
  /** `pending`: the processor has it and has not settled it (records its id, never a final state). */
  outcome: 'succeeded' | 'failed' | 'pending';
  refund_id: string;
  charge_id: string;
  /** The processor's id of the refund: must be the one the refund recorded, once it recorded one. */
  processor_reference: string;
  /** The processor's id of the payment refunded, when it says: must be the charge's. */
  payment_reference: string | null;
  amount: Money;
  failure_reason: string | null;
}

/**
 * A change of a dispute (chargeback) at the processor. The processor's dispute carries no metadata of
 * ours, so it names no merchant: its payment (`payment_reference`, the charge's `processor_reference`)
 * is how the charge, and through it the dispute, is found.
 */
export interface DisputeEvent extends Omit<EventBase, 'merchant_id'> {
  kind: 'dispute';
  /** Which notification this was: a funds movement says more than the status it carries. */
  change: 'created' | 'updated' | 'closed' | 'funds_withdrawn' | 'funds_reinstated';
  /** The processor's id of the dispute: one dispute of ours per processor dispute. */
  dispute_reference: string;
  payment_reference: string;
  amount: Money;
  reason: DisputeReason;
  /** The processor's status in our terms, as of this event. */
  status: 'needs_response' | 'under_review' | 'won' | 'lost';
  /** The processor's deadline for evidence (ISO 8601); null when it names none. */
  evidence_due_by: string | null;
}

/** A hosted checkout session of ours, closed at its processor: paid, or expired unpaid. */
export interface CheckoutEvent extends EventBase {
  kind: 'checkout';
  outcome: 'completed' | 'expired';
  session_id: string;
  /** The processor's id of the session: must be the session's `gateway_session_id`. */
  processor_reference: string;
  /** The processor's id of the payment made on it (completed only): the charge's processor_reference. */
  payment_reference: string | null;
  /** What the customer paid (completed only): must be the session's `fee_details.total`. */
  amount: Money | null;
  /**
   * Where the customer asked a physical product to be shipped (completed, when the processor's page
   * collected an address): as the processor gave it, each field cut to a bound well above ours, so the
   * applier checks it as it checks an address typed on our page.
   */
  shipping?: ProcessorAddress | null;
}

/**
 * A connected account's state at the processor (a sub-merchant onboarded there), as of one event. The
 * processor's account carries no metadata of ours the platform relies on, so the event names no merchant:
 * kyc finds the case by `account_reference`. Requirement lists are bounded by each connector.
 */
export interface ConnectedAccountEvent extends Omit<EventBase, 'merchant_id'> {
  kind: 'connected_account';
  /** The processor's id of the connected account (the case's gateway_account_id). */
  account_reference: string;
  /** When the processor made the event (ISO 8601): snapshots are ordered by it. */
  occurred_at: string;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  currently_due: string[];
  past_due: string[];
  eventually_due: string[];
  /** Why the processor disabled the account, in its own words (a `rejected.*` reason is a rejection). */
  disabled_reason: string | null;
  /** The account disconnected the platform. */
  deauthorized: boolean;
}

/**
 * A live connected-account payout's transfer at the processor (docs/decisions.md C26), named by our
 * metadata on the transfer (merchant, mode, payout reference and number), never by amount.
 */
export interface PayoutTransferEvent extends EventBase {
  kind: 'payout_transfer';
  /** created: the transfer was made; reversed: some or all of it was taken back by the platform. */
  change: 'created' | 'reversed';
  payout_request_id: number;
  payout_reference: string;
  /** The processor's id of the transfer: must be the payout's once it recorded one. */
  transfer_reference: string;
  /** The connected account paid: must be the payout's. */
  account_reference: string;
  amount: Money;
  /** How much of it was taken back so far (minor units), and whether that is all of it. */
  amount_reversed: number;
  fully_reversed: boolean;
}

/** A postal address as a processor collected it; empty or null where it has none. */
export interface ProcessorAddress {
  name: string | null;
  line1: string | null;
  line2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
  phone: string | null;
}

export type ProcessorEvent =
  PaymentEvent | RefundEvent | DisputeEvent | CheckoutEvent | ConnectedAccountEvent | PayoutTransferEvent;
export type ProcessorEventKind = ProcessorEvent['kind'];

/**
 * received → applied (the record took the event), duplicate (it already had it), stale (it has another
 * final state: a state never moves backwards), superseded (the processor overtook the event: e.g. a
 * failure after which the payment succeeded, or a new attempt whose own event settles it), mismatch
 * (amount, currency, mode or the processor's id differ from our record: kept for an operator, never
 * applied), unmatched (nothing to apply it to arrived in time).
 */
export type InboxStatus = 'received' | 'applied' | 'duplicate' | 'stale' | 'superseded' | 'mismatch' | 'unmatched';
export type FinalStatus = Exclude<InboxStatus, 'received'>;

export interface InboxRecord {
  /** `processor:event_id`. */
  id: string;
  event: ProcessorEvent;
  status: InboxStatus;
  note: string | null;
  attempts: number;
  received_at: Date;
  next_attempt_at: Date;
  finished_at: Date | null;
}

/**
 * What applying an event decided: a final status; `later` (what it is about is not there yet: tried
 * again, unmatched in time); `retry` (the processor must be asked again: tried again, backing off, never
 * unmatched).
 */
export type Verdict = { status: FinalStatus; note: string | null } | 'later' | 'retry';

/** Applies one kind of event. Must be safe to repeat: a crash between applying and finishing applies again. */
export interface EventApplier<E extends ProcessorEvent> {
  apply(event: E, record: InboxRecord): Promise<Verdict>;
}

export type EventAppliers = { [K in ProcessorEventKind]: EventApplier<Extract<ProcessorEvent, { kind: K }>> };

/**
 * What a verified request holds: an event to apply, or one to acknowledge and ignore (a type not
 * handled, or an object the platform did not make).
 */
export type VerifiedEvent =
  | { kind: 'event'; event: ProcessorEvent }
  | { kind: 'ignored'; processor: string; event_id: string; type: string; why: 'unhandled_type' | 'not_ours' };

/** Checks a processor's signature over the raw body; PROCESSOR_SIGNATURE_INVALID when it does not hold. */
export interface EventVerifier {
  verify(payload: Buffer, signature: string): VerifiedEvent;
}

/** The record an event is about, for logs. */
export function eventSubject(event: ProcessorEvent): Record<string, string> {
  switch (event.kind) {
    case 'payment':
      return { charge_id: event.charge_id };
    case 'refund':
      return { charge_id: event.charge_id, refund_id: event.refund_id };
    case 'dispute':
      return { dispute_reference: event.dispute_reference, payment_reference: event.payment_reference };
    case 'checkout':
      return { session_id: event.session_id };
    case 'connected_account':
      return { account_reference: event.account_reference };
    case 'payout_transfer':
      return { payout_reference: event.payout_reference, transfer_reference: event.transfer_reference };
  }
}
