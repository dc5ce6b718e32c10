import type { ComponentName, Mode, OutboxEntry } from '@ppay/kernel';
import type { GatewayAccountOutcome, MerchantDeletionRecord } from './merchant-deletion';

/** kyc's CloseGatewayAccount: balance read, account closed only when zero; a repeat answers the same. */
export interface GatewayAccounts {
  closeForDeletion(merchantId: number, mode: Mode, deadline?: Date): Promise<GatewayAccountOutcome>;
}

export interface MerchantDeletionRepository {
  /** Inserts the record with its request event; when one exists already (same id), returns that one instead. */
  create(record: MerchantDeletionRecord, event: OutboxEntry): Promise<MerchantDeletionRecord>;
  findById(id: string): Promise<MerchantDeletionRecord | null>;
  /** The operator's most recent deletion of this business in this mode (a retry once the relationship is gone). */
  latestBy(operatorId: number, merchantId: number, mode: Mode): Promise<MerchantDeletionRecord | null>;
  /** `$addToSet` of the service on the deletion with this id (idempotent); false if there is none. */
  acknowledge(deletionId: string, service: ComponentName): Promise<boolean>;
  /** Publishes the request again (a retried call: nudges services that missed or lost it). */
  requestAgain(id: string, event: OutboxEntry): Promise<void>;
}
