import { SUBJECTS, type EventEnvelope, type Subject } from '@ppay/kernel';

/**
 * Which platform events become webhooks, in one table. Adding an event type is one entry here (its
 * subject, type name and the object it is about) plus its renderers in `renderers.ts`. The subject
 * must be in the kernel catalogue; `webhookSubjects` feeds the consumers.
 */
export interface WebhookSource<S extends Subject = Subject> {
  subject: S;
  /** The spec's dot-notation event type (6.4). */
  event_type: string;
  /** The merchant who receives it (the event's own merchant unless the payload says otherwise). */
  merchant(envelope: EventEnvelope<S>): number | undefined;
  /**
   * The object the event changes. `sequence` (the source's stream position) orders one object's events
   * only if all of them come from one stream: `event-sources.test.ts` checks it per object type.
   */
  object(envelope: EventEnvelope<S>): { type: string; id: string };
  /** When the thing happened (not when we stored it). */
  occurredAt(envelope: EventEnvelope<S>): string;
}

function source<S extends Subject>(s: WebhookSource<S>): WebhookSource {
  return s as unknown as WebhookSource;
}

const paymentSource = (subject: typeof SUBJECTS.paymentSucceeded | typeof SUBJECTS.paymentFailed, type: string) =>
  source({
    subject,
    event_type: type,
    merchant: (e) => e.data.merchant_id,
    object: (e) => ({ type: 'charge', id: e.data.charge_id }),
    occurredAt: (e) => e.data.completed_at || e.occurred_at,
  });

const refundSource = source({
  subject: SUBJECTS.paymentRefunded,
  event_type: 'payment.refunded',
  merchant: (e) => e.data.merchant_id,
  // The charge's counter, shared with payment.succeeded: a partner orders a charge's events by it.
  object: (e) => ({ type: 'charge', id: e.data.charge_id }),
  occurredAt: (e) => e.data.refunded_at || e.occurred_at,
});

const walletSource = (subject: typeof SUBJECTS.walletCredited | typeof SUBJECTS.walletDebited, type: string) =>
  source({
    subject,
    event_type: type,
    merchant: (e) => e.data.merchant_id,
    // One counter per wallet: a merchant has one wallet per currency and mode.
    object: (e) => ({ type: 'wallet', id: `${e.data.merchant_id}:${e.mode}:${e.data.amount.currency}` }),
    occurredAt: (e) => e.data.created_at || e.occurred_at,
  });

type SubscriptionSubject =
  | typeof SUBJECTS.subscriptionCreated
  | typeof SUBJECTS.subscriptionRenewed
  | typeof SUBJECTS.subscriptionPaymentFailed
  | typeof SUBJECTS.subscriptionPaused
  | typeof SUBJECTS.subscriptionResumed
  | typeof SUBJECTS.subscriptionCancelled;

const subscriptionSource = (subject: SubscriptionSubject, type: string) =>
  source({
    subject,
    event_type: type,
    merchant: (e) => e.data.merchant_id,
    object: (e) => ({ type: 'subscription', id: e.data.subscription_id }),
    // The subscription's own clock (sandbox subscriptions can be advanced).
    occurredAt: (e) => e.data.effective_at || e.occurred_at,
  });

const kycSource = (
  subject: typeof SUBJECTS.kycSubmissionUpdated | typeof SUBJECTS.kycPayoutAccountUpdated,
  type: string,
) =>
  source({
    subject,
    event_type: type,
    // KYC is the operator's business: the marketplace that onboards the sub-merchant receives it.
    merchant: (e) => e.data.marketplace_id,
    // One counter per KYC case (one per sub-merchant and mode), shared by both event types, like its version.
    object: (e) => ({ type: 'kyc_case', id: `${e.data.merchant_id}:${e.data.mode}` }),
    occurredAt: (e) => e.occurred_at,
  });

type InstallmentPlanSubject =
  | typeof SUBJECTS.installmentPlanCreated
  | typeof SUBJECTS.installmentPlanCompleted
  | typeof SUBJECTS.installmentPlanDefaulted
  | typeof SUBJECTS.installmentPlanCancelled;

const installmentPlanSource = (subject: InstallmentPlanSubject, type: string) =>
  source({
    subject,
    event_type: type,
    merchant: (e) => e.data.merchant_id,
    // One counter per plan, shared by its four event types (its parts' payments are the charges' own).
    object: (e) => ({ type: 'installment_plan', id: e.data.plan_id }),
    // The plan's own clock (sandbox plans can be advanced).
    occurredAt: (e) => e.data.effective_at || e.occurred_at,
  });

type SettlementSubject =
  | typeof SUBJECTS.settlementRequested
  | typeof SUBJECTS.settlementApproved
  | typeof SUBJECTS.settlementRejected
  | typeof SUBJECTS.settlementPaid
  | typeof SUBJECTS.settlementFailed;

const settlementSource = (subject: SettlementSubject, type: string) =>
  source({
    subject,
    event_type: type,
    // Staged payouts are run by the marketplace (it approves them), like KYC; the sub-merchant sees
    // its money move through wallet.debited when the withdrawal is paid.
    merchant: (e) => e.data.marketplace_id,
    // One counter per payout request, shared by its five event types.
    object: (e) => ({ type: 'payout_request', id: String(e.data.payout_request_id) }),
    occurredAt: (e) => e.occurred_at,
  });

type DisputeSubject =
  | typeof SUBJECTS.disputeCreated
  | typeof SUBJECTS.disputeUpdated
  | typeof SUBJECTS.disputeClosed
  | typeof SUBJECTS.disputeFundsWithdrawn
  | typeof SUBJECTS.disputeFundsReinstated;

const disputeSource = (subject: DisputeSubject, type: string) =>
  source({
    subject,
    event_type: type,
    // The charge's owner (the operator of a marketplace charge) answers the dispute; a sub-merchant
    // sees its share move through wallet.debited / wallet.credited.
    merchant: (e) => e.data.merchant_id,
    // One counter per dispute, shared by its five event types.
    object: (e) => ({ type: 'dispute', id: e.data.dispute.dispute_id }),
    occurredAt: (e) => e.data.dispute.updated_at || e.occurred_at,
  });

type OrderSubject =
  | typeof SUBJECTS.orderCreated
  | typeof SUBJECTS.orderFulfilled
  | typeof SUBJECTS.orderDelivered
  | typeof SUBJECTS.orderCancelled;

const orderSource = (subject: OrderSubject, type: string) =>
  source({
    subject,
    event_type: type,
    merchant: (e) => e.data.merchant_id,
    // One counter per order, shared by its four event types.
    object: (e) => ({ type: 'order', id: e.data.order.order_id }),
    occurredAt: (e) => e.data.order.updated_at || e.occurred_at,
  });

export const WEBHOOK_SOURCES: readonly WebhookSource[] = [
  paymentSource(SUBJECTS.paymentSucceeded, 'payment.succeeded'),
  paymentSource(SUBJECTS.paymentFailed, 'payment.failed'),
  refundSource,
  walletSource(SUBJECTS.walletCredited, 'wallet.credited'),
  walletSource(SUBJECTS.walletDebited, 'wallet.debited'),
  subscriptionSource(SUBJECTS.subscriptionCreated, 'subscription.created'),
  subscriptionSource(SUBJECTS.subscriptionRenewed, 'subscription.renewed'),
  subscriptionSource(SUBJECTS.subscriptionPaymentFailed, 'subscription.payment_failed'),
  subscriptionSource(SUBJECTS.subscriptionPaused, 'subscription.paused'),
  subscriptionSource(SUBJECTS.subscriptionResumed, 'subscription.resumed'),
  subscriptionSource(SUBJECTS.subscriptionCancelled, 'subscription.cancelled'),
  kycSource(SUBJECTS.kycSubmissionUpdated, 'kyc.submission.updated'),
  kycSource(SUBJECTS.kycPayoutAccountUpdated, 'kyc.payout_account.updated'),
  settlementSource(SUBJECTS.settlementRequested, 'settlement.requested'),
  settlementSource(SUBJECTS.settlementApproved, 'settlement.approved'),
  settlementSource(SUBJECTS.settlementRejected, 'settlement.rejected'),
  settlementSource(SUBJECTS.settlementPaid, 'settlement.paid'),
  settlementSource(SUBJECTS.settlementFailed, 'settlement.failed'),
  installmentPlanSource(SUBJECTS.installmentPlanCreated, 'installment_plan.created'),
  installmentPlanSource(SUBJECTS.installmentPlanCompleted, 'installment_plan.completed'),
  installmentPlanSource(SUBJECTS.installmentPlanDefaulted, 'installment_plan.defaulted'),
  installmentPlanSource(SUBJECTS.installmentPlanCancelled, 'installment_plan.cancelled'),
  disputeSource(SUBJECTS.disputeCreated, 'dispute.created'),
  disputeSource(SUBJECTS.disputeUpdated, 'dispute.updated'),
  disputeSource(SUBJECTS.disputeClosed, 'dispute.closed'),
  disputeSource(SUBJECTS.disputeFundsWithdrawn, 'dispute.funds_withdrawn'),
  disputeSource(SUBJECTS.disputeFundsReinstated, 'dispute.funds_reinstated'),
  orderSource(SUBJECTS.orderCreated, 'order.created'),
  orderSource(SUBJECTS.orderFulfilled, 'order.fulfilled'),
  orderSource(SUBJECTS.orderDelivered, 'order.delivered'),
  orderSource(SUBJECTS.orderCancelled, 'order.cancelled'),
];

export function sourceFor(subject: string): WebhookSource | undefined {
  return WEBHOOK_SOURCES.find((s) => s.subject === subject);
}

/** Every event type a partner may see (filters on GET /events), `ping` included. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = ['ping', ...WEBHOOK_SOURCES.map((s) => s.event_type)];
