import type { DisputeRecord } from './dispute';
import type { DisputeProcessors } from './ports';

/**
 * `d` with its evidence submitted: sent to the processor, `needs_response → under_review`, and the outcome
 * the processor announced (if any) scheduled. The merchant's submit and the due date's both come here;
 * the caller writes the result, compare-and-set on the dispute's version. The processor dedupes by
 * dispute, so a submit repeated after a lost race sends nothing twice.
 */
export async function withEvidenceSubmitted(
  d: DisputeRecord,
  processors: DisputeProcessors,
  now: Date,
): Promise<DisputeRecord> {
  const next: DisputeRecord = { ...d, status: 'under_review', evidence_submitted_at: now, updated_at: now };
  const outcome = (await processors.forMode(d.mode).submitEvidence(next)).scheduled_outcome;
  next.scheduled_outcome = outcome ? { status: outcome.status, at: new Date(now.getTime() + outcome.after_ms) } : null;
  return next;
}
