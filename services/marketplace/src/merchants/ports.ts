import type { Mode, OutboxEntry } from '@ppay/kernel';
import type { AccountSettingsPatch, MarketplaceMembership, MarketplaceSettings, MerchantRecord } from './merchant';

export interface MerchantRepository {
  nextId(): Promise<number>;
  /** ALREADY_EXISTS when the e-mail is taken. */
  insert(record: MerchantRecord, event: OutboxEntry): Promise<void>;
  findById(id: number): Promise<MerchantRecord | null>;
  findByEmail(email: string): Promise<MerchantRecord | null>;
  findByIds(ids: number[]): Promise<MerchantRecord[]>;
  /** Sets an operator's marketplace settings of one mode with their event; null when not an operator. */
  setMarketplace(
    id: number,
    mode: Mode,
    settings: MarketplaceSettings,
    event: OutboxEntry,
  ): Promise<MerchantRecord | null>;
  /**
   * Writes one mode's cached membership unless the document already reflects the same or a later
   * relationship version (so replays and out-of-order syncs never go backwards). True if written.
   */
  syncMembership(id: number, mode: Mode, membership: MarketplaceMembership): Promise<boolean>;
  /** Delete merchant: drops one mode's cached membership and payout eligibility (idempotent). */
  clearMembership(id: number, mode: Mode): Promise<void>;
  /**
   * Writes new settings and their event if the document is still at `expectedVersion`
   * (optimistic concurrency); null when someone else changed the settings first.
   */
  updateSettings(
    id: number,
    expectedVersion: number,
    settings: AccountSettingsPatch & { updated_at: Date },
    event: OutboxEntry,
  ): Promise<MerchantRecord | null>;
}
