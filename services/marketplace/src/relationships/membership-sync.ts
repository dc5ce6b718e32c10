import type { Mode } from '@ppay/kernel';
import type { MerchantService } from '../merchants/merchants';
import type { RelationshipRepository } from '../ports';
import type { RelationshipRecord } from './relationship';

/**
 * Keeps the sub-merchant's cached marketplace fields of one mode (its merchant document) in line with
 * its relationship, the source of truth. Runs right after every change and again from the
 * relationship_changed consumer, so a crash between the two writes is repaired; versions make replays
 * and races harmless.
 */
export class MembershipSync {
  constructor(
    private readonly merchants: MerchantService,
    private readonly relationships: RelationshipRepository,
    private readonly onSyncError: (err: unknown, merchantId: number) => void = () => undefined,
  ) {}

  /** The relationship_changed consumer: re-reads the relationship of that merchant and mode. */
  async syncMerchant(merchantId: number, mode: Mode): Promise<void> {
    const rel = await this.relationships.findByMerchant(merchantId, mode);
    if (rel) await this.sync(rel);
  }

  /** Right after a relationship write, which is already stored: a failure here is left to the consumer. */
  async syncQuietly(rel: RelationshipRecord): Promise<void> {
    try {
      await this.sync(rel);
    } catch (err) {
      this.onSyncError(err, rel.merchant_id);
    }
  }

  private async sync(rel: RelationshipRecord): Promise<void> {
    const active = rel.status === 'active';
    await this.merchants.syncMembership(rel.merchant_id, rel.mode, {
      marketplace_id: active ? rel.marketplace_id : null,
      marketplace_commission_rate: active ? rel.commission_rate : null,
      relationship_id: rel.id,
      version: rel.version,
    });
  }
}
