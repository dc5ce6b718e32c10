import { isEncryptedSecret } from '@ppay/kernel';
import type { KeyRing, KycCaseRepository } from '../ports';
import type { KycCaseRecord } from './kyc-case';
import { sealLegacyBusiness, sealLegacyOwner } from './personal-data';

/**
 * Moves every sealed value of a KYC case to the current key (Hardening 2 item 9), and seals the personal
 * fields of cases stored before they were sealed. Values under a key the ring no longer holds are left
 * as they are and counted: they stay unreadable (reads show null) until that key is put back.
 */

export interface ResealOutcome {
  /** The case to write (version + 1), or null when nothing changed. */
  next: KycCaseRecord | null;
  /** Values moved from an older key of the ring to the current one. */
  resealed: number;
  /** Personal fields sealed that were still stored in clear. */
  sealedFromClear: number;
  /** Values under a key the ring does not hold. */
  unreadable: number;
}

export function resealCase(c: KycCaseRecord, ring: KeyRing): ResealOutcome {
  const counts = { resealed: 0, sealedFromClear: 0, unreadable: 0 };
  const owner = c.owner && sealLegacyOwner(c.owner, ring);
  const business = c.business && sealLegacyBusiness(c.business, ring);
  counts.sealedFromClear = (owner ? 1 : 0) + (business ? 1 : 0);
  const walk = (value: unknown): unknown => {
    if (isEncryptedSecret(value)) {
      if (ring.isCurrent(value)) return value;
      if (!ring.canOpen(value)) {
        counts.unreadable++;
        return value;
      }
      counts.resealed++;
      return ring.reseal(value);
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object' || value instanceof Date) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
  };
  // The parts that hold sealed values; the rest of the case (history, links, review) holds none.
  const parts = {
    owner: walk(owner ?? c.owner) as KycCaseRecord['owner'],
    business: walk(business ?? c.business) as KycCaseRecord['business'],
    bank_account: walk(c.bank_account) as KycCaseRecord['bank_account'],
    payout: walk(c.payout) as KycCaseRecord['payout'],
  };
  const changed = counts.resealed + counts.sealedFromClear > 0;
  return { next: changed ? { ...c, ...parts, version: c.version + 1 } : null, ...counts };
}

export interface ReencryptionMetrics {
  resealed(count: number): void;
  /** At the end of each full pass: what was left behind (lost races, keys not in the ring). */
  passFinished(left: { outdated: number; unreadable: number }): void;
}

/**
 * The job: walks the cases by id, a few pages per run, and writes each changed case with the usual
 * compare-and-set on its version (a case changed meanwhile is simply taken again on the next pass).
 * Once a full pass ends with nothing outdated and nothing unreadable, no value needs the older keys:
 * they can leave the ring (`ppay_kyc_sealed_values_outdated` and `_unreadable` at 0).
 */
export class ReencryptionJob {
  private cursor = 0;
  private left = { outdated: 0, unreadable: 0 };

  constructor(
    private readonly deps: {
      cases: Pick<KycCaseRepository, 'scanAfter' | 'save'>;
      ring: KeyRing;
      metrics?: ReencryptionMetrics;
    },
    private readonly options: { pageSize: number; pagesPerRun: number } = { pageSize: 100, pagesPerRun: 10 },
  ) {}

  async run(): Promise<number> {
    let moved = 0;
    for (let page = 0; page < this.options.pagesPerRun; page++) {
      const cases = await this.deps.cases.scanAfter(this.cursor, this.options.pageSize);
      for (const c of cases) {
        const out = resealCase(c, this.deps.ring);
        const changes = out.resealed + out.sealedFromClear;
        if (out.next && (await this.deps.cases.save(c.version, out.next, []))) moved += changes;
        else this.left.outdated += changes;
        this.left.unreadable += out.unreadable;
        this.cursor = c.id;
      }
      if (cases.length < this.options.pageSize) {
        this.deps.metrics?.passFinished(this.left);
        this.cursor = 0;
        this.left = { outdated: 0, unreadable: 0 };
        break;
      }
    }
    if (moved) this.deps.metrics?.resealed(moved);
    return moved;
  }
}
