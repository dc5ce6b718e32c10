import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { DisputeRecord, DisputeState } from './dispute';
import { disputeListKey } from './disputes';
import type { DisputeListQuery, DisputeProcessors, DisputeRepository, EvidenceReceipt } from './ports';

const clone = <T>(v: T): T => structuredClone(v);

/** Disputes in memory, with the Mongo repository's conditions (unique per charge, compare-and-set). */
export class MemoryDisputes implements DisputeRepository {
  readonly docs = new Map<string, DisputeRecord>();
  readonly events: OutboxEntry[] = [];
  /** Called before every replace: a test can crash a write (throw) or interleave another. */
  beforeReplace: (next: DisputeRecord) => void = () => undefined;
  /**
   * Called between a refused insert and the read of the charge's dispute (the Mongo repository's two
   * operations): a test can discard that dispute there, as a concurrent opener would.
   */
  afterDuplicate: (taken: DisputeRecord) => Promise<void> = async () => undefined;

  async insertOrGetForCharge(dispute: DisputeRecord) {
    const taken = [...this.docs.values()].find((d) => d.charge_id === dispute.charge_id);
    if (!taken) {
      this.docs.set(dispute.dispute_id, clone(dispute));
      return { dispute: clone(dispute), created: true };
    }
    await this.afterDuplicate(clone(taken));
    const still = [...this.docs.values()].find((d) => d.charge_id === dispute.charge_id);
    return still ? { dispute: clone(still), created: false } : null;
  }
  async findById(id: string) {
    const d = this.docs.get(id);
    return d ? clone(d) : null;
  }
  async findForMerchant(merchantId: number, mode: Mode, id: string) {
    const d = this.docs.get(id);
    return d && d.merchant_id === merchantId && d.mode === mode && d.status !== 'opening' ? clone(d) : null;
  }
  async replace(
    expected: Pick<DisputeRecord, 'dispute_id' | 'status' | 'version'>,
    next: DisputeRecord,
    events: OutboxEntry[],
  ) {
    this.beforeReplace(next);
    const d = this.docs.get(expected.dispute_id);
    if (!d || d.status !== expected.status || d.version !== expected.version) return null;
    const written = { ...clone(next), version: expected.version + 1 };
    this.docs.set(d.dispute_id, written);
    this.events.push(...events);
    return clone(written);
  }
  async discardOpening(id: string) {
    const d = this.docs.get(id);
    if (d?.status !== 'opening') return false;
    this.docs.delete(id);
    return true;
  }
  async list(merchantId: number, mode: Mode, q: DisputeListQuery) {
    return [...this.docs.values()]
      .filter((d) => d.merchant_id === merchantId && d.mode === mode && d.status !== 'opening')
      .filter((d) => (!q.status || d.status === q.status) && (!q.charge_id || d.charge_id === q.charge_id))
      .filter((d) => (!q.from || d.created_at >= q.from) && (!q.to || d.created_at < q.to))
      .filter((d) => !q.after || disputeListKey(d) < q.after)
      .sort((a, b) => (disputeListKey(a) < disputeListKey(b) ? 1 : -1))
      .slice(0, q.limit)
      .map(clone);
  }
  async due(
    status: DisputeState,
    field: 'updated_at' | 'evidence_due_by' | 'scheduled_outcome_at',
    until: Date,
    limit: number,
  ) {
    const at = (d: DisputeRecord) => (field === 'scheduled_outcome_at' ? d.scheduled_outcome?.at : d[field]);
    return [...this.docs.values()]
      .filter((d) => d.status === status && at(d) !== undefined && at(d)! <= until)
      .slice(0, limit)
      .map(clone);
  }
  async countUnansweredDueBefore(until: Date) {
    return [...this.docs.values()].filter(
      (d) =>
        d.status === 'needs_response' &&
        d.evidence_due_by < until &&
        Object.values(d.evidence).every((v) => v === null),
    ).length;
  }
}

/** The sandbox's evidence rule in a test's hands: a fixed answer, and how often it was asked. */
export class FakeDisputeProcessors implements DisputeProcessors {
  submitted: string[] = [];
  accepted: string[] = [];
  answer: EvidenceReceipt = { scheduled_outcome: null };
  forMode() {
    return {
      submitEvidence: async (d: DisputeRecord) => {
        this.submitted.push(d.dispute_id);
        return this.answer;
      },
      accept: async (d: DisputeRecord) => {
        this.accepted.push(d.dispute_id);
      },
    };
  }
}
