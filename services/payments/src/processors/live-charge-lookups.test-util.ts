import type { ChargeRecord } from '../charges/charge';
import type { MemoryCharges } from '../memory-ports.test-util';
import type { LiveChargeLookups } from './live-charge-reconciler';

/**
 * The reconciler's index in memory, as the repository keeps it: a live charge is due from its creation,
 * then from each look-up; a final charge (completing clears the entry) or one never to be asked again is not.
 */
export class MemoryLiveLookups implements LiveChargeLookups {
  readonly askedAt = new Map<string, Date | null>();

  constructor(private readonly charges: MemoryCharges) {}

  private at(c: ChargeRecord): Date | null {
    if (c.mode !== 'live' || c.status === 'succeeded' || c.status === 'failed') return null;
    return this.askedAt.has(c.charge_id) ? this.askedAt.get(c.charge_id)! : c.created_at;
  }

  async due(before: Date, limit: number): Promise<ChargeRecord[]> {
    return [...this.charges.docs.values()]
      .filter((c) => (this.at(c)?.getTime() ?? Infinity) <= before.getTime())
      .sort((a, b) => this.at(a)!.getTime() - this.at(b)!.getTime())
      .slice(0, limit)
      .map((c) => structuredClone(c));
  }

  async schedule(chargeId: string, askedAt: Date | null): Promise<void> {
    this.askedAt.set(chargeId, askedAt);
  }

  async countStale(before: Date): Promise<number> {
    return [...this.charges.docs.values()].filter(
      (c) => this.at(c) !== null && c.status === 'pending' && c.created_at <= before,
    ).length;
  }
}
