import {
  addMoney,
  COMPONENTS,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  toMajorUnitString,
  type ComponentName,
  type Mode,
  type Money,
  type OutboxEntry,
} from '@ppay/kernel';
import type { MerchantService } from './merchants';
import type { RelationshipRepository } from './relationships';

/** What kyc answered about the sub-merchant's connected gateway account (steps 2–3 of spec 4.9). */
export interface GatewayAccountOutcome {
  found: boolean;
  closed: boolean;
  available: Money | null;
  pending: Money | null;
  /** Kept with the deletion, so a kept account (money left on it) can still be found and paid out. */
  gateway_account_id: string | null;
}

/** kyc's CloseGatewayAccount: balance read, account closed only when zero; a repeat answers the same. */
export interface GatewayAccounts {
  closeForDeletion(merchantId: number, mode: Mode, deadline?: Date): Promise<GatewayAccountOutcome>;
}

/**
 * One delete-merchant request (spec 3.5, 4.9): a single document per (merchant, mode) that carries
 * the request event in its outbox and collects every service's acknowledgement. It is the
 * deletion's own bookkeeping (ids, the gateway outcome, who acknowledged), none of the business's data.
 */
export interface MerchantDeletionRecord {
  /** `<merchant_id>:<mode>`: one deletion per merchant and mode, so concurrent calls share it. */
  id: string;
  deletion_id: string;
  merchant_id: number;
  mode: Mode;
  /** Whole business (every mode and the data with no mode), or only `mode`'s documents. */
  every_mode: boolean;
  /** The operator that asked: a retry by anyone else is answered 404 like any other merchant. */
  requested_by: number;
  gateway: GatewayAccountOutcome;
  acknowledged: ComponentName[];
  requested_at: Date;
}

export interface MerchantDeletionRepository {
  /** Inserts the record with its request event; when one exists already, returns that one instead. */
  create(record: MerchantDeletionRecord, event: OutboxEntry): Promise<MerchantDeletionRecord>;
  find(merchantId: number, mode: Mode): Promise<MerchantDeletionRecord | null>;
  /** `$addToSet` of the service on the deletion with this id (idempotent); false if there is none. */
  acknowledge(deletionId: string, service: ComponentName): Promise<boolean>;
  /** Publishes the request again (a retried call: nudges services that missed or lost it). */
  requestAgain(id: string, event: OutboxEntry): Promise<void>;
}

/** The spec 4.9 delete response `data`. */
export interface MerchantDeletionResult {
  gateway_skipped: boolean;
  /** Standard units (spec 4.9), available + pending; null when the merchant has no connected account. */
  gateway_balance: { amount: number; currency: string } | null;
  message: string;
}

export interface DeletionOptions {
  /** How long the call waits for every service's acknowledgement before answering 400. */
  waitMs: number;
  pollMs: number;
}

const DEADLINE_MARGIN_MS = 500;

export const DELETED_MESSAGE = 'Merchant and all its business data deleted';

/** The services that must acknowledge: all six, marketplace included. */
export const DELETION_PARTICIPANTS: readonly ComponentName[] = COMPONENTS;

export function pendingServices(record: MerchantDeletionRecord): ComponentName[] {
  return DELETION_PARTICIPANTS.filter((s) => !record.acknowledged.includes(s));
}

/** The response from the stored outcome, so a retry answers exactly what the first call would have. */
export function deletionResult(record: MerchantDeletionRecord): MerchantDeletionResult {
  const g = record.gateway;
  if (!g.found || !g.available || !g.pending) {
    return { gateway_skipped: false, gateway_balance: null, message: DELETED_MESSAGE };
  }
  const total = addMoney(g.available, g.pending);
  const gateway_balance = { amount: Number(toMajorUnitString(total)), currency: total.currency };
  if (g.closed) return { gateway_skipped: false, gateway_balance, message: DELETED_MESSAGE };
  return {
    gateway_skipped: true,
    gateway_balance,
    message:
      `Merchant business data deleted. The gateway account was kept because it still holds ` +
      `${toMajorUnitString(g.available)} ${g.available.currency} available and ` +
      `${toMajorUnitString(g.pending)} ${g.pending.currency} pending; it is closed once paid out.`,
  };
}

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
    await this.operator(operatorId);
    const earlier = await this.deps.deletions.find(merchantId, mode);
    if (earlier) {
      // Another operator's deletion is indistinguishable from no merchant at all (spec 7.6).
      if (earlier.requested_by !== operatorId) throw new PlatformError('MERCHANT_RELATIONSHIP_NOT_FOUND');
      return this.finish(earlier, true, deadline);
    }
    // 1. The relationship, in the key's mode, whatever its status (3.5: "active or any").
    const rel = await this.deps.relationships.findByMerchant(merchantId, mode);
    if (!rel || rel.marketplace_id !== operatorId) throw new PlatformError('MERCHANT_RELATIONSHIP_NOT_FOUND');
    const merchant = await this.deps.merchants.fresh(merchantId).catch((err: unknown) => {
      if (err instanceof PlatformError && err.code === 'MERCHANT_NOT_FOUND') return null;
      throw err;
    });
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
      id: `${merchantId}:${mode}`,
      deletion_id: prefixedId('del', 24),
      merchant_id: merchantId,
      mode,
      every_mode: everyMode,
      requested_by: operatorId,
      gateway,
      acknowledged: [],
      requested_at: this.now(),
    };
    const stored = await this.deps.deletions.create(record, this.requestEvent(record));
    if (stored.requested_by !== operatorId) throw new PlatformError('MERCHANT_RELATIONSHIP_NOT_FOUND');
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
      await this.deps.deletions.requestAgain(current.id, this.requestEvent(current));
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
      current = (await this.deps.deletions.find(record.merchant_id, record.mode)) ?? current;
    }
    return deletionResult(current);
  }

  private requestEvent(r: MerchantDeletionRecord): OutboxEntry {
    return outboxEvent(
      SUBJECTS.merchantDeletionRequested,
      { deletion_id: r.deletion_id, merchant_id: r.merchant_id, mode: r.mode, every_mode: r.every_mode },
      { merchantId: r.merchant_id, mode: r.mode },
    );
  }

  private async operator(operatorId: number): Promise<void> {
    const operator = await this.deps.merchants.fresh(operatorId).catch((err: unknown) => {
      if (err instanceof PlatformError && err.code === 'MERCHANT_NOT_FOUND') {
        throw new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
      }
      throw err;
    });
    if (!operator.is_marketplace_operator) throw new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
  }
}
