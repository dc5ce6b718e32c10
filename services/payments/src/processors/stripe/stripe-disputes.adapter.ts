import type Stripe from 'stripe';
import { observedCall, type StripeObserver } from '@ppay/stripe-support';
import { PlatformError, type DisputeEvidence } from '@ppay/kernel';
import type { DisputeRecord } from '../../disputes/dispute';
import type { DisputeProcessor, EvidenceReceipt } from '../../disputes/ports';
import type { StripeClient } from './stripe-client.adapter';

/** Submitting a dispute's evidence: once per dispute, however often asked (a lost race, a retry). */
export const evidenceSubmitKey = (disputeId: string) => `ppay_${disputeId}_submit`;
/** Accepting (closing) a dispute: once per dispute. */
export const disputeCloseKey = (disputeId: string) => `ppay_${disputeId}_close`;

/** Stripe's longest text evidence field (characters). */
const STRIPE_TEXT_MAX = 20_000;

/**
 * Our evidence in Stripe's fields (docs/decisions.md S16). Names that correspond are sent as they are
 * (customer_name, product_description, shipping_*, service_date, uncategorized_text); `customer_email`
 * is Stripe's `customer_email_address`; our policies are texts, so they are Stripe's `*_disclosure`
 * texts (Stripe's `refund_policy` and `cancellation_policy` are uploaded files); Stripe has no text field
 * for a receipt URL (its `receipt` is a file), so the URL is a line of `uncategorized_text`, or of
 * `product_description` when that text is already at Stripe's limit. Unset fields are not sent.
 */
export function stripeEvidence(e: DisputeEvidence): Stripe.DisputeUpdateParams.Evidence {
  const receipt = e.receipt_url ? `Receipt: ${e.receipt_url}` : null;
  const withReceipt = (text: string | null) => [text, receipt].filter(Boolean).join('\n\n');
  const receiptFits = !receipt || withReceipt(e.uncategorized_text).length <= STRIPE_TEXT_MAX;
  const fields: Record<string, string | null> = {
    customer_name: e.customer_name,
    customer_email_address: e.customer_email,
    product_description: receiptFits ? e.product_description : withReceipt(e.product_description),
    shipping_carrier: e.shipping_carrier,
    shipping_tracking_number: e.shipping_tracking_number,
    shipping_date: e.shipping_date,
    service_date: e.service_date,
    refund_policy_disclosure: e.refund_policy,
    cancellation_policy_disclosure: e.cancellation_policy,
    uncategorized_text: receiptFits && receipt ? withReceipt(e.uncategorized_text) : e.uncategorized_text,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== ''));
}

/**
 * The live side of disputes on Stripe: evidence is sent and submitted in one update (Stripe then
 * reviews it; its decision arrives as charge.dispute.closed), acceptance closes the dispute at Stripe.
 * Both under an idempotency key of our dispute id, so a retry is the same request. Failures are Stripe's
 * mapped errors (SERVICE_UNAVAILABLE, UPSTREAM_TIMEOUT: nothing changes here, the caller may retry).
 */
export class StripeDisputeProcessor implements DisputeProcessor {
  constructor(
    private readonly client: StripeClient,
    private readonly observer: StripeObserver,
  ) {}

  async submitEvidence(d: DisputeRecord): Promise<EvidenceReceipt> {
    const reference = referenceOf(d);
    await this.call(
      'disputes.update',
      () =>
        this.client.disputes.update(
          reference,
          { evidence: stripeEvidence(d.evidence), submit: true },
          { idempotencyKey: evidenceSubmitKey(d.dispute_id) },
        ),
      reference,
    );
    return { scheduled_outcome: null };
  }

  async accept(d: DisputeRecord): Promise<void> {
    const reference = referenceOf(d);
    await this.call(
      'disputes.close',
      () => this.client.disputes.close(reference, {}, { idempotencyKey: disputeCloseKey(d.dispute_id) }),
      reference,
    );
  }

  /**
   * One answer to a dispute at Stripe. Stripe refusing it because the dispute was answered elsewhere
   * (evidence submitted or the dispute accepted in Stripe's dashboard, or decided meanwhile) is the
   * partner's 409, as for a sandbox dispute in that state, not our error: the dispute is read back to tell.
   */
  private call<T>(operation: string, run: () => Promise<T>, reference: string): Promise<T> {
    return observedCall(this.observer, operation, run, () => this.refusedForState(reference));
  }

  private async refusedForState(reference: string): Promise<void> {
    const current = await this.client.disputes.retrieve(reference).catch(() => null);
    this.observer.call('disputes.retrieve', current ? 'ok' : 'failed');
    if (current?.status === 'under_review') throw new PlatformError('DISPUTE_EVIDENCE_SUBMITTED');
    if (current && ['won', 'lost', 'warning_closed', 'prevented'].includes(current.status)) {
      throw new PlatformError('DISPUTE_CLOSED');
    }
  }
}

function referenceOf(d: DisputeRecord): string {
  if (!d.processor_reference) {
    throw new PlatformError('INTERNAL', `live dispute ${d.dispute_id} has no Stripe dispute to answer`);
  }
  return d.processor_reference;
}
