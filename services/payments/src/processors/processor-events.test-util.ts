import type { Mode } from '@ppay/kernel';
import type { AbandonAnswer, AbandonIntent, LookUpAnswer, ProcessorAdapter, ProcessorRegistry } from './ports';
import type { EventAppliers, FinalStatus, InboxRecord } from './processor-event';
import type { ProcessorEventRepository } from './processor-events';
import type { ProcessorGroup } from './processors';

/** The inbox in memory: one record per id, as the unique `_id` keeps it in MongoDB. */
export class MemoryProcessorEvents implements ProcessorEventRepository {
  readonly docs = new Map<string, InboxRecord>();

  async insert(record: InboxRecord): Promise<boolean> {
    if (this.docs.has(record.id)) return false;
    this.docs.set(record.id, structuredClone(record));
    return true;
  }
  async due(now: Date, limit: number): Promise<InboxRecord[]> {
    return [...this.docs.values()]
      .filter((r) => r.status === 'received' && r.next_attempt_at <= now)
      .sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime())
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }
  async finish(id: string, status: FinalStatus, note: string | null, now: Date): Promise<void> {
    const r = this.docs.get(id);
    if (r?.status === 'received') Object.assign(r, { status, note, finished_at: now });
  }
  async postpone(id: string, until: Date): Promise<void> {
    const r = this.docs.get(id);
    if (r?.status === 'received') Object.assign(r, { next_attempt_at: until, attempts: r.attempts + 1 });
  }
}

/**
 * The live processors as the inbox and the reconciler see them: `abandon` answers `next`, `lookUp` the
 * answer scripted for the payment (default pending); an Error is thrown (the processor could not be
 * asked). Both record what they were asked.
 */
export class ScriptedAbandons implements Pick<ProcessorRegistry, 'adapterFor'> {
  readonly asked: AbandonIntent[] = [];
  next: AbandonAnswer | Error = 'cancelled';
  readonly lookedUp: string[] = [];
  readonly lookUps = new Map<string, LookUpAnswer | Error>();

  adapterFor(group: ProcessorGroup, mode: Mode): ProcessorAdapter {
    const unreachable = () => Promise.reject(new Error('not used by the inbox'));
    return {
      id: `${group}_gateway`,
      mode,
      features: ['charges'],
      initialise: unreachable,
      initialiseCheckout: unreachable,
      checkoutPayment: unreachable,
      refund: unreachable,
      abandon: async (payment) => {
        this.asked.push(payment);
        if (this.next instanceof Error) throw this.next;
        return this.next;
      },
      lookUp: async (reference) => {
        this.lookedUp.push(reference);
        const answer = this.lookUps.get(reference) ?? { status: 'pending' };
        if (answer instanceof Error) throw answer;
        return answer;
      },
    };
  }
}

/** An applier for a kind of event a test never sends. */
export const unusedApplier = { apply: () => Promise.reject(new Error('not sent by this test')) };

/** The appliers a test gives, every other kind unused: a new kind of event changes no other test. */
export function appliersOf(given: Partial<EventAppliers>): EventAppliers {
  return {
    payment: unusedApplier,
    refund: unusedApplier,
    dispute: unusedApplier,
    checkout: unusedApplier,
    connected_account: unusedApplier,
    payout_transfer: unusedApplier,
    ...given,
  };
}
