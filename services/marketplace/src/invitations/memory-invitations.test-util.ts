import type { Mode } from '@ppay/kernel';
import {
  effectiveStatus,
  openKey,
  type InvitationAddress,
  type InvitationQuery,
  type InvitationRecord,
  type InvitationStatus,
} from './invitation';
import type { InvitationRepository } from './ports';

/** Invitations in memory, with the unique open key of the Mongo collection. */
export class MemoryInvitations implements InvitationRepository {
  docs = new Map<string, InvitationRecord & { open_key: string }>();
  private copy(d?: InvitationRecord & { open_key: string }): InvitationRecord | null {
    if (!d) return null;
    const { open_key: _key, ...rest } = d;
    return { ...rest };
  }
  async insertPending(record: InvitationRecord) {
    const key = openKey(record.marketplace_id, record.merchant_id, record.mode, record.addressed_by);
    if ([...this.docs.values()].some((d) => d.open_key === key)) return false;
    this.docs.set(record.id, { ...record, open_key: key });
    return true;
  }
  async findById(id: string) {
    return this.copy(this.docs.get(id));
  }
  async findOpen(marketplaceId: number, merchantId: number, mode: Mode, addressedBy: InvitationAddress) {
    const key = openKey(marketplaceId, merchantId, mode, addressedBy);
    return this.copy([...this.docs.values()].find((d) => d.open_key === key));
  }
  async closePending(
    id: string,
    to: Exclude<InvitationStatus, 'pending'>,
    at: Date,
    options: { notExpiredAt?: Date; relationshipId?: number } = {},
  ) {
    const d = this.docs.get(id);
    if (!d || d.status !== 'pending') return null;
    if (options.notExpiredAt && d.expires_at <= options.notExpiredAt) return null;
    Object.assign(d, {
      status: to,
      responded_at: at,
      open_key: id,
      relationship_id: options.relationshipId ?? null,
      relationship_written: false,
    });
    return this.copy(d);
  }
  async reopenAcceptance(id: string, relationshipId: number) {
    const d = this.docs.get(id);
    if (!d || d.status !== 'accepted' || d.relationship_id !== relationshipId || d.relationship_written) return false;
    Object.assign(d, { status: 'pending', responded_at: null, relationship_id: null });
    return true;
  }
  async markRelationshipWritten(id: string) {
    const d = this.docs.get(id);
    if (d) d.relationship_written = true;
  }
  async list(query: InvitationQuery, now: Date, page: number, limit: number) {
    const all = [...this.docs.values()].filter(
      (d) =>
        (query.direction === 'sent' ? d.marketplace_id : d.merchant_id) === query.merchant_id &&
        d.mode === query.mode &&
        (!query.status || effectiveStatus(d, now) === query.status),
    );
    return { items: all.slice((page - 1) * limit, page * limit).map((d) => this.copy(d)!), total: all.length };
  }
  async dueForExpiry(now: Date, limit: number) {
    return [...this.docs.values()]
      .filter((d) => d.status === 'pending' && d.expires_at <= now)
      .slice(0, limit)
      .map((d) => this.copy(d)!);
  }
  async unfinishedAcceptances(before: Date, limit: number) {
    return [...this.docs.values()]
      .filter((d) => d.status === 'accepted' && !d.relationship_written && d.responded_at! <= before)
      .slice(0, limit)
      .map((d) => this.copy(d)!);
  }
}
