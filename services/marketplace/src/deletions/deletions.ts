import { PlatformError, prefixedId, type ComponentName, type Mode } from '@ppay/kernel';
import type { MerchantService } from '../merchants/merchants';
import type { RelationshipRepository } from '../ports';
import {
  deletionKeyOf,
  deletionRequestedEvent,
  deletionResult,
  pendingServices,
  type MerchantDeletionRecord,
  type MerchantDeletionResult,
} from './merchant-deletion';
import type { GatewayAccounts, MerchantDeletionRepository } from './ports';

export interface DeletionOptions {
  /** How long the call waits for every service's acknowledgement before answering 400. */
  waitMs: number;
  pollMs: number;
}

const DEADLINE_MARGIN_MS = 500;

/**
 * DELETE /marketplace/merchants/{id}/delete (spec 3.5, 4.9, 7.6), in the spec's order: validate the
 * relationship; read the connected account's balance and close it only if zero (kyc); record the
 * deletion (one document whose outbox carries deletions.merchant.requested); remove the
 * relationship; clear the merchant's marketplace references; then every service (this one too)
 * deletes the merchant's data on the event and acknowledges. The call answers once all six have
 * acknowledged, or 400 `Failed to delete merchant business data` naming the rest; the same call
 * again resumes from the stored document and finishes the job (docs/architecture.md).
 */
export class MerchantDeletionService {
  constructor(
    private readonly deps: {
      merchants: MerchantService;
      relationships: RelationshipRepository;
      deletions: MerchantDeletionRepository;
      gatewayAccounts: GatewayAccounts;
    },
    private readonly options: DeletionOptions,
    private readonly now: () => Date = () => new Date(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  async delete(operatorId: number, mode: Mode, merchantId: number, deadline?: Date): Promise<MerchantDeletionResult> {
    if (!Number.isSafeInteger(merchantId) || merchantId < 1) {
      throw new PlatformError('INVALID_MERCHANT_ID', undefined, { param: 'merchantId' });
    }
    await this.deps.merchants.requireOperator(operatorId);
    // 1. The relationship, in the key's mode, whatever its status (3.5: "active or any"). A deletion
    // belongs to the relationship it deletes: the same relationship resumes its deletion, a later one
    // (the business joined again, here or in another marketplace) gets a fresh one.
    const rel = await this.deps.relationships.findByMerchant(merchantId, mode);
    if (!rel || rel.marketplace_id !== operatorId) {
      // No relationship of this operator's: a retry of its own deletion (the relationship is gone by
      // now) answers from that deletion; anything else is 404 like any other merchant (spec 7.6).
      const earlier = await this.deps.deletions.latestBy(operatorId, merchantId, mode);
      if (!earlier) throw new PlatformError('MERCHANT_RELATIONSHIP_NOT_FOUND');
      return this.finish(earlier, true, deadline);
    }
    const earlier = await this.deps.deletions.findById(deletionKeyOf(merchantId, mode, rel.id));
    if (earlier) return this.finish(earlier, true, deadline);
    const merchant = await this.deps.merchants.freshOrNull(merchantId);
    // Unreachable through the API (an operator cannot join a marketplace); refused rather than
    // leaving its own sub-merchants pointing at a deleted marketplace.
    if (merchant?.is_marketplace_operator) throw new PlatformError('MERCHANT_IS_OPERATOR');
    // 2–3. Balance of the connected account; closed only when zero (a repeat answers the same).
    const gateway = await this.deps.gatewayAccounts.closeForDeletion(merchantId, mode, deadline);
    // Whole business only when no other mode still holds it, and a sandbox key only for a business
    // its operator created (a sandbox key never deletes an independent business's live data).
    const other: Mode = mode === 'live' ? 'sandbox' : 'live';
    const everyMode =
      !(await this.deps.relationships.findByMerchant(merchantId, other)) &&
      (mode === 'live' || merchant === null || merchant.created_by_marketplace_id === operatorId);
    const record: MerchantDeletionRecord = {
      id: deletionKeyOf(merchantId, mode, rel.id),
      deletion_id: prefixedId('del', 24),
      merchant_id: merchantId,
      mode,
      relationship_id: rel.id,
      every_mode: everyMode,
      requested_by: operatorId,
      gateway,
      acknowledged: [],
      requested_at: this.now(),
    };
    const stored = await this.deps.deletions.create(record, deletionRequestedEvent(record));
    // 4–5. Relationship and marketplace references now (the spec's order); marketplace's own
    // deletion consumer repeats both, so a crash right here loses nothing.
    await this.deps.relationships.remove(rel.id);
    await this.deps.merchants.clearMembership(merchantId, mode);
    return this.finish(stored, false, deadline);
  }

  /** Marks a service's acknowledgement (deletions.merchant.acknowledged consumer). */
  acknowledge(deletionId: string, service: ComponentName): Promise<boolean> {
    return this.deps.deletions.acknowledge(deletionId, service);
  }

  private async finish(
    record: MerchantDeletionRecord,
    retry: boolean,
    deadline?: Date,
  ): Promise<MerchantDeletionResult> {
    let current = record;
    if (retry && pendingServices(current).length) {
      await this.deps.deletions.requestAgain(current.id, deletionRequestedEvent(current));
    }
    // Answer before the caller's deadline, so it hears "not finished" rather than a timeout.
    const until = Math.min(
      this.now().getTime() + this.options.waitMs,
      deadline ? deadline.getTime() - DEADLINE_MARGIN_MS : Number.POSITIVE_INFINITY,
    );
    while (pendingServices(current).length) {
      if (this.now().getTime() >= until) {
        throw new PlatformError('MERCHANT_DELETION_INCOMPLETE', undefined, {
          detail:
            `Not yet deleted by: ${pendingServices(current).join(', ')}. ` +
            'The deletion continues; repeat this request to finish it.',
        });
      }
      await this.sleep(this.options.pollMs);
      current = (await this.deps.deletions.findById(record.id)) ?? current;
    }
    return deletionResult(current);
  }
}
