import { outboxEvent, PlatformError, SUBJECTS, type DisputeStatus, type Mode } from '@ppay/kernel';
import { disputeEvent, hasEvidence, isClosed, type DisputeRecord } from './dispute';
import { checkEvidenceTotal, validateEvidence, type EvidenceInput } from './evidence';
import { withEvidenceSubmitted } from './evidence-submission';
import { decodeCursor, listKeyOf, pageOf, pageSize } from '../list-pages';
import type { DisputeProcessors, DisputeRepository } from './ports';

export interface DisputeListInput {
  status?: DisputeStatus;
  charge_id?: string;
  from?: Date;
  to?: Date;
  limit?: number;
  cursor?: string;
}

export interface DisputePage {
  disputes: DisputeRecord[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The position of a dispute in its merchant's list, newest first (list-pages.ts). */
export function disputeListKey(d: Pick<DisputeRecord, 'created_at' | 'dispute_id'>): string {
  return listKeyOf(d.created_at, d.dispute_id);
}

/**
 * What a merchant does with its disputes (GET /disputes, GET /disputes/{id}, POST …/evidence). Scoped
 * to the calling key's merchant and mode; anyone else's dispute is 404. Closing is DisputeCloser's.
 */
export class DisputeService {
  constructor(
    private readonly deps: { disputes: DisputeRepository; processors: DisputeProcessors },
    private readonly options: { maxRounds?: number } = {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(merchantId: number, mode: Mode, disputeId: string): Promise<DisputeRecord> {
    const d = await this.deps.disputes.findForMerchant(merchantId, mode, disputeId);
    if (!d) throw new PlatformError('DISPUTE_NOT_FOUND', undefined, { param: 'dispute_id' });
    return d;
  }

  async list(merchantId: number, mode: Mode, input: DisputeListInput): Promise<DisputePage> {
    const limit = pageSize(input.limit);
    const read = await this.deps.disputes.list(merchantId, mode, {
      status: input.status,
      charge_id: input.charge_id,
      from: input.from,
      to: input.to,
      after: input.cursor ? decodeCursor(input.cursor, 'dp') : undefined,
      limit: limit + 1,
    });
    const { items, ...page } = pageOf(read, limit, disputeListKey);
    return { disputes: items, ...page };
  }

  /**
   * Saves evidence (a draft: repeatable, fields merged, null clears one) or, with `submit`, sends it to
   * the processor and moves the dispute `needs_response → under_review` once. Every write is a
   * compare-and-set on the dispute's version, so concurrent drafts lose nothing and a submit racing an
   * accept or another submit wins once.
   */
  async saveEvidence(
    merchantId: number,
    mode: Mode,
    disputeId: string,
    input: { evidence: EvidenceInput; submit: boolean },
  ): Promise<DisputeRecord> {
    const fields = validateEvidence(input.evidence);
    for (let round = 0; round < (this.options.maxRounds ?? 50); round++) {
      const d = await this.get(merchantId, mode, disputeId);
      const now = this.now();
      if (isClosed(d)) {
        throw new PlatformError('DISPUTE_CLOSED', undefined, {
          param: 'dispute_id',
          detail: `the dispute was ${d.status}`,
        });
      }
      if (d.status === 'under_review')
        throw new PlatformError('DISPUTE_EVIDENCE_SUBMITTED', undefined, { param: 'submit' });
      if (d.evidence_due_by <= now) {
        throw new PlatformError('DISPUTE_PAST_DUE', undefined, {
          param: 'dispute_id',
          detail: `evidence was due by ${d.evidence_due_by.toISOString()}`,
        });
      }
      let next: DisputeRecord = { ...d, evidence: { ...d.evidence, ...fields }, updated_at: now };
      checkEvidenceTotal(next.evidence);
      if (input.submit) {
        if (!hasEvidence(next.evidence)) {
          throw new PlatformError('VALIDATION_FAILED', 'Submitting needs at least one evidence field', {
            param: 'evidence',
          });
        }
        next = await withEvidenceSubmitted(next, this.deps.processors, now);
      }
      const event = outboxEvent(SUBJECTS.disputeUpdated, disputeEvent(next), {
        merchantId: d.merchant_id,
        mode: d.mode,
      });
      const written = await this.deps.disputes.replace(d, next, [event]);
      if (written) return written;
    }
    throw new PlatformError('CONFLICT', 'This dispute is being changed by concurrent requests; retry', {
      param: 'dispute_id',
    });
  }
}
