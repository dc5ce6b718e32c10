import { PlatformError, type Mode, type OutboxEntry } from '@ppay/kernel';
import type { PayoutEligibility } from './kyc-projection/payout-eligibility';
import type { PayoutEligibilityRepository } from './kyc-projection/ports';
import type {
  AccountSettingsPatch,
  MarketplaceMembership,
  MarketplaceSettings,
  MerchantRecord,
} from './merchants/merchant';
import type { MerchantRepository } from './merchants/ports';
import type { RelationshipRepository } from './ports';
import type { RelationshipChanges, RelationshipRecord, RelationshipStatus } from './relationships/relationship';

/** In-memory implementations of marketplace's repositories, for use-case tests. */

/** The merchant documents, with the KYC projection kept on them as in Mongo. */
export class MemoryMerchants implements MerchantRepository, PayoutEligibilityRepository {
  seq = 1000;
  docs = new Map<number, MerchantRecord & { sync?: Partial<Record<Mode, [number, number]>> }>();
  events: OutboxEntry[] = [];
  async nextId() {
    return this.seq++;
  }
  async insert(record: MerchantRecord, event: OutboxEntry) {
    if ([...this.docs.values()].some((m) => m.email === record.email)) {
      throw new PlatformError('ALREADY_EXISTS', 'A merchant with this email already exists');
    }
    this.docs.set(record.id, { ...record });
    this.events.push(event);
  }
  async findById(id: number) {
    const m = this.docs.get(id);
    return m ? { ...m } : null;
  }
  async findByEmail(email: string) {
    return [...this.docs.values()].find((m) => m.email === email) ?? null;
  }
  async findByIds(ids: number[]) {
    return ids.map((id) => this.docs.get(id)).filter((m): m is MerchantRecord => !!m);
  }
  async setMarketplace(id: number, mode: Mode, settings: MarketplaceSettings, event: OutboxEntry) {
    const m = this.docs.get(id);
    if (!m?.is_marketplace_operator) return null;
    m.marketplaces = { ...m.marketplaces, [mode]: settings };
    this.events.push(event);
    return { ...m };
  }
  async updateSettings(
    id: number,
    expectedVersion: number,
    settings: AccountSettingsPatch & { updated_at: Date },
    event: OutboxEntry,
  ) {
    const m = this.docs.get(id);
    if (!m || m.settings_version !== expectedVersion) return null;
    if (settings.customer_pays_fees !== undefined) m.customer_pays_fees = settings.customer_pays_fees;
    m.settings_version = expectedVersion + 1;
    m.settings_updated_at = settings.updated_at;
    this.events.push(event);
    return { ...m };
  }
  async syncMembership(id: number, mode: Mode, ms: MarketplaceMembership) {
    const m = this.docs.get(id);
    if (!m) return false;
    const [rel, version] = m.sync?.[mode] ?? [0, 0];
    if (rel > ms.relationship_id || (rel === ms.relationship_id && version >= ms.version)) return false;
    m.membership = { ...m.membership, [mode]: ms };
    m.sync = { ...m.sync, [mode]: [ms.relationship_id, ms.version] };
    return true;
  }
  async clearMembership(id: number, mode: Mode) {
    const m = this.docs.get(id);
    if (!m) return;
    if (m.membership) delete m.membership[mode];
    if (m.payout_eligibility) delete m.payout_eligibility[mode];
  }
  async recordPayoutEligibility(id: number, mode: Mode, eligibility: PayoutEligibility) {
    const m = this.docs.get(id);
    const current = m?.payout_eligibility?.[mode];
    if (!m || (current && current.version >= eligibility.version)) return false;
    m.payout_eligibility = { ...m.payout_eligibility, [mode]: eligibility };
    return true;
  }
}

export class MemoryRelationships implements RelationshipRepository {
  seq = 1;
  docs = new Map<number, RelationshipRecord>();
  events: OutboxEntry[] = [];
  async nextId() {
    return this.seq++;
  }
  async insert(record: RelationshipRecord, event: OutboxEntry) {
    if (this.docs.has(record.id)) return;
    if ([...this.docs.values()].some((r) => r.merchant_id === record.merchant_id && r.mode === record.mode)) {
      throw new PlatformError('MERCHANT_ALREADY_LINKED');
    }
    this.docs.set(record.id, { ...record });
    this.events.push(event);
  }
  async findById(id: number) {
    const r = this.docs.get(id);
    return r ? { ...r } : null;
  }
  async findByMerchant(merchantId: number, mode: Mode) {
    const r = [...this.docs.values()].find((d) => d.merchant_id === merchantId && d.mode === mode);
    return r ? { ...r } : null;
  }
  async list(marketplaceId: number, mode: Mode, status: RelationshipStatus, page: number, limit: number) {
    const all = [...this.docs.values()].filter(
      (r) => r.marketplace_id === marketplaceId && r.mode === mode && r.status === status,
    );
    return { items: all.slice((page - 1) * limit, page * limit), total: all.length };
  }
  async remove(id: number) {
    this.docs.delete(id);
  }
  async update(
    expected: RelationshipRecord,
    from: RelationshipStatus[],
    changes: RelationshipChanges,
    event: OutboxEntry,
  ) {
    const r = this.docs.get(expected.id);
    if (!r || r.version !== expected.version || !from.includes(r.status)) return null;
    Object.assign(r, changes, { version: r.version + 1 });
    this.events.push(event);
    return { ...r };
  }
}
