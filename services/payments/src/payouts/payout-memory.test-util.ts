import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { PayoutRecord } from './payout';
import type { CurrentDestination, PayoutDestinations, PayoutExpectation, PayoutRepository } from './ports';

const clone = <T>(v: T): T => structuredClone(v);

/** In-memory payouts with the same conditional semantics as the Mongo ones. */
export class MemoryPayouts implements PayoutRepository {
  readonly docs = new Map<string, PayoutRecord>();
  readonly events: OutboxEntry[] = [];
  private seq = 0;

  async nextId() {
    return ++this.seq;
  }
  async insert(p: PayoutRecord) {
    if (this.docs.has(p.payout_key)) return false;
    this.docs.set(p.payout_key, clone(p));
    return true;
  }
  async get(merchantId: number, mode: Mode, reference: string) {
    const p = this.docs.get(`${merchantId}:${mode}:${reference}`);
    return p ? clone(p) : null;
  }
  async transition(key: string, expect: PayoutExpectation, set: Partial<PayoutRecord>, events: OutboxEntry[]) {
    const p = this.docs.get(key);
    if (!p) return null;
    // As Mongo's filter: null matches a field that is absent.
    for (const [k, v] of Object.entries(expect)) if ((p[k as keyof PayoutRecord] ?? null) !== v) return null;
    Object.assign(p, clone(set));
    this.events.push(...events);
    return clone(p);
  }
  async discardUnreserved(key: string) {
    const p = this.docs.get(key);
    if (!p || p.reservation !== 'pending') return false;
    this.docs.delete(key);
    return true;
  }
  async unfinished(limit: number) {
    return [...this.docs.values()]
      .filter((p) => ['pending', 'releasing', 'settling', 'returning'].includes(p.reservation))
      .slice(0, limit)
      .map(clone);
  }
  async transfersBegun(limit: number) {
    return [...this.docs.values()]
      .filter((p) => p.transfer_state === 'begun')
      .sort((a, b) => a.updated_at.getTime() - b.updated_at.getTime())
      .slice(0, limit)
      .map(clone);
  }
}

/** kyc's payout accounts as payouts see them: one per merchant and mode, approved with fingerprint `fp_1`. */
export class MemoryPayoutDestinations implements PayoutDestinations {
  readonly accounts = new Map<string, CurrentDestination>();
  current = async (merchantId: number, mode: Mode): Promise<CurrentDestination> =>
    this.accounts.get(`${merchantId}:${mode}`) ?? {
      found: true,
      kyc_status: 'approved',
      fingerprint: 'fp_1',
      gateway_region: null,
    };
  set(merchantId: number, mode: Mode, d: CurrentDestination) {
    this.accounts.set(`${merchantId}:${mode}`, d);
  }
}
