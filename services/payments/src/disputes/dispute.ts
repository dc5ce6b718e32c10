import {
  DISPUTE_EVIDENCE_FIELDS,
  prefixedId,
  type DisputeEvent,
  type DisputeEvidence,
  type DisputeEvidenceDetails,
  type DisputeFunds,
  type DisputePayload,
  type DisputeReason,
  type DisputeStatus,
  type Mode,
  type Money,
} from '@ppay/kernel';

/**
 * A dispute (chargeback) of one succeeded charge: its own aggregate, one document, at most one per
 * charge. `opening` is internal: the dispute exists but has not yet taken its hold on the charge and
 * its funds (docs/architecture.md, "Disputes"); partners never see it.
 */
export type DisputeState = 'opening' | DisputeStatus;

/** Where the dispute came from: the sandbox API, a sandbox test card, or a processor's notification. */
export type DisputeSource = 'sandbox_api' | 'sandbox_card' | 'processor';

export interface DisputeRecord {
  dispute_id: string;
  charge_id: string;
  /** The charge's owner: the merchant, or the operator of a marketplace charge. */
  merchant_id: number;
  sub_merchant_id: number | null;
  mode: Mode;
  /** In the charge currency. */
  amount: Money;
  /** The dispute fee, in the currency of the owner's wallet it is taken from (0 when none applies). */
  fee: Money;
  reason: DisputeReason;
  status: DisputeState;
  evidence: DisputeEvidence;
  evidence_due_by: Date;
  evidence_submitted_at: Date | null;
  funds_withdrawn: DisputeFunds[];
  funds_reinstated: DisputeFunds[];
  source: DisputeSource;
  /**
   * The processor's id of the dispute (Stripe's `du_…`) for one it opened; null for sandbox ones. Its
   * later events must name it, and evidence and acceptance are sent to it.
   */
  processor_reference: string | null;
  /** An outcome the processor has announced for later (sandbox evidence markers); null otherwise. */
  scheduled_outcome: { status: 'won' | 'lost'; at: Date } | null;
  /** Grows with every write: evidence drafts are compare-and-set on it. */
  version: number;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
}

export const EMPTY_EVIDENCE: DisputeEvidence = Object.freeze(
  Object.fromEntries(DISPUTE_EVIDENCE_FIELDS.map((f) => [f, null])) as DisputeEvidence,
);

export type DisputeDraft = Pick<
  DisputeRecord,
  'charge_id' | 'merchant_id' | 'sub_merchant_id' | 'mode' | 'amount' | 'reason' | 'source'
> & {
  /** A processor's dispute: its id and its evidence deadline (kept when it opens). */
  processor?: { reference: string; evidence_due_by: Date };
};

/**
 * A new dispute, `opening`: the one place a dispute is drafted. Its fee, funds and due date are set
 * when it opens (when it becomes visible); until then they are placeholders.
 */
export function newDispute({ processor, ...d }: DisputeDraft, now: Date): DisputeRecord {
  return {
    dispute_id: prefixedId('dp'),
    ...d,
    fee: { amount: 0, currency: d.amount.currency },
    status: 'opening',
    evidence: { ...EMPTY_EVIDENCE },
    processor_reference: processor?.reference ?? null,
    // A processor's deadline is known now; otherwise our window starts when the dispute opens.
    evidence_due_by: processor?.evidence_due_by ?? now,
    evidence_submitted_at: null,
    funds_withdrawn: [],
    funds_reinstated: [],
    scheduled_outcome: null,
    version: 0,
    created_at: now,
    updated_at: now,
    closed_at: null,
  };
}

export const isClosed = (d: Pick<DisputeRecord, 'status'>): boolean => d.status === 'won' || d.status === 'lost';

export function hasEvidence(evidence: DisputeEvidence): boolean {
  return DISPUTE_EVIDENCE_FIELDS.some((f) => evidence[f] !== null);
}

/** The dispute as partners see it (REST, gRPC and every dispute.* event): one representation. */
export function disputePayload(d: DisputeRecord): DisputePayload {
  if (d.status === 'opening') throw new Error(`dispute ${d.dispute_id} is not open yet`);
  return {
    dispute_id: d.dispute_id,
    charge_id: d.charge_id,
    merchant_id: d.merchant_id,
    sub_merchant_id: d.sub_merchant_id,
    amount: d.amount,
    fee: d.fee,
    reason: d.reason,
    status: d.status,
    evidence: { ...d.evidence },
    evidence_details: evidenceDetails(d),
    evidence_due_by: d.evidence_due_by.toISOString(),
    evidence_submitted_at: d.evidence_submitted_at?.toISOString() ?? null,
    is_live: d.mode === 'live',
    funds_withdrawn: d.funds_withdrawn,
    funds_reinstated: d.funds_reinstated,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    closed_at: d.closed_at?.toISOString() ?? null,
  };
}

function evidenceDetails(d: DisputeRecord): DisputeEvidenceDetails {
  const fields = DISPUTE_EVIDENCE_FIELDS.filter((f) => d.evidence[f] !== null);
  return {
    has_evidence: fields.length > 0,
    fields_provided: fields,
    submission_count: d.evidence_submitted_at ? 1 : 0,
  };
}

/**
 * The payload of every payments.dispute.* event: the dispute, its charge and who receives it. The
 * evidence texts stay out: every save would otherwise copy them (up to 32 KiB) into the dispute's
 * outbox again; `evidence_details` says what is saved.
 */
export function disputeEvent(d: DisputeRecord): DisputeEvent {
  const { evidence: _texts, ...dispute } = disputePayload(d);
  return { charge_id: d.charge_id, merchant_id: d.merchant_id, dispute };
}
