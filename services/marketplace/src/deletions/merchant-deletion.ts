import {
  addMoney,
  COMPONENTS,
  outboxEvent,
  SUBJECTS,
  toMajorUnitString,
  type ComponentName,
  type Mode,
  type Money,
  type OutboxEntry,
} from '@ppay/kernel';

/** What kyc answered about the sub-merchant's connected gateway account (steps 2–3 of spec 4.9). */
export interface GatewayAccountOutcome {
  found: boolean;
  closed: boolean;
  available: Money | null;
  pending: Money | null;
  /** Kept with the deletion, so a kept account (money left on it) can still be found and paid out. */
  gateway_account_id: string | null;
}

/**
 * One delete-merchant request (spec 3.5, 4.9): a single document per deleted relationship that carries
 * the request event in its outbox and collects every service's acknowledgement. It is the deletion's
 * own bookkeeping (ids, the gateway outcome, who acknowledged), none of the business's data. A business
 * that joins a marketplace again after a deletion is a new relationship, deleted by a new deletion.
 */
export interface MerchantDeletionRecord {
  /**
   * `<merchant_id>:<mode>:r<relationship_id>`: one deletion per relationship, so concurrent calls share
   * it (deletionKeyOf). Deletions stored before Hardening 2 have `<merchant_id>:<mode>`.
   */
  id: string;
  deletion_id: string;
  merchant_id: number;
  mode: Mode;
  /** The relationship it deleted; null on deletions stored before Hardening 2 (item 7). */
  relationship_id: number | null;
  /** Whole business (every mode and the data with no mode), or only `mode`'s documents. */
  every_mode: boolean;
  /** The operator that asked: a retry by anyone else is answered 404 like any other merchant. */
  requested_by: number;
  gateway: GatewayAccountOutcome;
  acknowledged: ComponentName[];
  requested_at: Date;
}

/** The document id of the deletion of one relationship. */
export const deletionKeyOf = (merchantId: number, mode: Mode, relationshipId: number) =>
  `${merchantId}:${mode}:r${relationshipId}`;

/** deletions.merchant.requested, carried in the deletion's outbox (again on a retried call). */
export function deletionRequestedEvent(r: MerchantDeletionRecord): OutboxEntry {
  return outboxEvent(
    SUBJECTS.merchantDeletionRequested,
    { deletion_id: r.deletion_id, merchant_id: r.merchant_id, mode: r.mode, every_mode: r.every_mode },
    { merchantId: r.merchant_id, mode: r.mode },
  );
}

/** The services that must acknowledge: all six, marketplace included. */
export const DELETION_PARTICIPANTS: readonly ComponentName[] = COMPONENTS;

export function pendingServices(record: MerchantDeletionRecord): ComponentName[] {
  return DELETION_PARTICIPANTS.filter((s) => !record.acknowledged.includes(s));
}

/** The spec 4.9 delete response `data`. */
export interface MerchantDeletionResult {
  gateway_skipped: boolean;
  /**
   * available + pending (ppay.marketplace.v1.GatewayBalance); null when the merchant has no connected
   * account. The REST answer shows it in standard units (spec 4.9): the gateway's schema converts.
   */
  gateway_balance: { amount: Money } | null;
  message: string;
}

export const DELETED_MESSAGE = 'Merchant and all its business data deleted';

/** The response from the stored outcome, so a retry answers exactly what the first call would have. */
export function deletionResult(record: MerchantDeletionRecord): MerchantDeletionResult {
  const g = record.gateway;
  if (!g.found || !g.available || !g.pending) {
    return { gateway_skipped: false, gateway_balance: null, message: DELETED_MESSAGE };
  }
  const gateway_balance = { amount: addMoney(g.available, g.pending) };
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
