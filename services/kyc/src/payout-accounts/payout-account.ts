import { PlatformError, processorGroupOf, type OutboxEntry } from '@ppay/kernel';
import {
  payoutAccountUpdated,
  payoutEligible,
  type Actor,
  type HistoryEntry,
  type KycCaseRecord,
  type PayoutAccountRecord,
  type PayoutRecord,
} from '../cases/kyc-case';
import { appendHistory } from '../cases/case-history';
import type { OperatorCaller } from '../ports';
import { destinationFingerprint, newFingerprintSalt } from './payout-destination';
import type { KycRoute } from '../submissions/routing';

/**
 * A KYC case's payout account (spec 4.9 payout): the gateway that pays it, how it changes the case, and
 * the views of it other services and partners read.
 */

export interface MerchantFacts {
  id: number;
  country: string;
  baseline_currency: string;
}

/**
 * What a payout set-up or update answers: the bank account (live, or `pending_review` when its holder name
 * needs a reviewer), or the connected account's onboarding link.
 */
export type PayoutAccountResult =
  | {
      kind: 'bank_account';
      kyc: KycCaseRecord;
      account: PayoutAccountRecord;
      merchant: MerchantFacts;
      change_status: 'applied' | 'pending_review';
    }
  | {
      kind: 'connected_account';
      kyc: KycCaseRecord;
      merchant: MerchantFacts;
      token: string;
      publishable_key: string;
      client_secret: string;
      expires_at: Date;
    };

export function payoutGatewayFor(currency: string): string {
  const group = processorGroupOf(currency);
  return group ? `${group}_gateway` : 'card_gateway';
}

/**
 * The payout account of a connected-account case: its gateway account, in the locked settlement currency.
 * A case that went through in-house review has none (its payouts go to a bank account).
 */
export function connectedPayoutAccount(c: KycCaseRecord, salt: string, now: Date): PayoutAccountRecord {
  if (c.route !== 'connected_account' || !c.connected) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `callback_url cannot be used: this merchant's KYC went through in-house review, so its payouts settle in ` +
        `${c.settlement_currency} to a bank account (settlement_bank, account_number, account_name)`,
      { param: 'callback_url' },
    );
  }
  const account: PayoutAccountRecord = {
    kind: 'connected_account',
    currency: c.settlement_currency,
    country: c.connected.country,
    payment_gateway: 'card_gateway',
    payout_method: 'connected_account',
    institution_id: null,
    bank_name: null,
    account_number_type: null,
    account_number_sealed: null,
    account_number_masked: null,
    account_name: null,
    gateway_account_id: c.connected.gateway_account_id,
    name_match_score: null,
    account_number_digest: null,
    created_at: now,
    updated_at: now,
  };
  return { ...account, fingerprint: destinationFingerprint(salt, { ...account, account_number_digest: null }) };
}

/** The operator of a partner call, as history records it. */
export const operatorActor = (caller: OperatorCaller) => ({
  actor: 'operator' as const,
  actorId: `operator:${caller.operatorId}`,
});

/** The case's fingerprint salt, made at its first payout write since fingerprints exist. */
export const fingerprintSaltOf = (c: Pick<KycCaseRecord, 'payout'>) =>
  c.payout?.fingerprint_salt ?? newFingerprintSalt();

/** The case with `account` waiting for review (the live account, if any, unchanged). */
export function withPendingChange(
  c: KycCaseRecord,
  account: PayoutAccountRecord,
  salt: string,
  reason: string,
  now: Date,
  caller: OperatorCaller,
): KycCaseRecord {
  const requestedBy = `operator:${caller.operatorId}`;
  return {
    ...c,
    payout: {
      set_up_at: c.payout?.set_up_at ?? now,
      updated_at: now,
      account: c.payout?.account ?? null,
      fingerprint_salt: salt,
      pending_change: { account, requested_at: now, requested_by: requestedBy, reason },
    },
    ...appendHistory(c, {
      action: 'payout_change_pending',
      from_status: c.status,
      to_status: c.status,
      actor: 'operator',
      actor_id: requestedBy,
      reason,
      at: now,
    }),
    version: c.version + 1,
    updated_at: now,
  };
}

/** The case with `account` as its payout account, the operator's change in its history. */
export function withPayoutAccount(
  c: KycCaseRecord,
  account: PayoutAccountRecord,
  now: Date,
  action: 'payout_account_created' | 'payout_account_updated',
  by: { actor: Actor; actorId: string },
  salt: string,
): KycCaseRecord {
  return {
    ...c,
    // A change that goes live replaces whatever was waiting for review.
    payout: {
      set_up_at: c.payout?.set_up_at ?? now,
      updated_at: now,
      account,
      fingerprint_salt: salt,
      pending_change: null,
    },
    ...appendHistory(c, {
      action,
      from_status: c.status,
      to_status: c.status,
      actor: by.actor,
      actor_id: by.actorId,
      reason: null,
      at: now,
    }),
    version: c.version + 1,
    updated_at: now,
  };
}

/**
 * The payout account no longer fits when a resubmission moves the settlement currency or the route: it
 * is detached (kept in history), so payouts stop until the operator sets up an account again.
 */
export function reconcilePayout(
  payout: PayoutRecord | null,
  route: KycRoute,
  settlementCurrency: string,
  now: Date,
): { payout: PayoutRecord | null; detached: boolean } {
  const account = payout?.account;
  if (!payout || !account) return { payout, detached: false };
  const kind = route === 'in_house' ? 'bank_account' : 'connected_account';
  if (account.kind === kind && account.currency === settlementCurrency) return { payout, detached: false };
  return { payout: { ...payout, account: null, updated_at: now }, detached: true };
}

/** The history entry of a payout account detached by a resubmission (reconcilePayout). */
export function payoutDetachedEntry(status: KycCaseRecord['status'], now: Date): HistoryEntry {
  return {
    action: 'payout_account_detached',
    from_status: status,
    to_status: status,
    actor: 'operator',
    actor_id: null,
    reason: 'the resubmission changed the settlement currency or route',
    at: now,
  };
}
/** What marketplace (payouts) reads: never the clear account number. */
export function payoutAccountResource(c: KycCaseRecord, account: PayoutAccountRecord) {
  return {
    merchant_id: c.merchant_id,
    mode: c.mode,
    submission_id: c.id,
    kyc_status: c.status,
    payout_eligible: payoutEligible(c),
    settlement_currency: c.settlement_currency,
    currency: account.currency,
    country: account.country,
    payment_gateway: account.payment_gateway,
    payout_method: account.payout_method,
    bank_name: account.bank_name,
    institution_id: account.institution_id,
    account_number_masked: account.account_number_masked,
    account_name: account.account_name,
    account_number_type: account.account_number_type,
    gateway_account_id: account.gateway_account_id,
    updated_at: account.updated_at,
    destination_fingerprint: account.fingerprint ?? null,
  };
}

/** Spec 4.9 payout response of either branch (the gateway sends the fields of `kind`). */
export function payoutSettingsResource(r: PayoutAccountResult) {
  const base = {
    kind: r.kind,
    merchant_id: r.merchant.id,
    baseline_currency: r.merchant.baseline_currency,
    country: r.merchant.country,
    settlement_currency: r.kyc.settlement_currency,
  };
  if (r.kind === 'connected_account') {
    return {
      ...base,
      publishable_key: r.publishable_key,
      client_secret: r.client_secret,
      onboarding_token: r.token,
      expires_at: r.expires_at,
    };
  }
  return {
    ...base,
    bank_name: r.account.bank_name,
    bank_account_number: r.account.account_number_masked,
    bank_account_name: r.account.account_name,
    institution_id: r.account.institution_id,
    account_number_type: r.account.account_number_type,
    change_status: r.change_status,
  };
}

/**
 * A reviewer's decision on the payout account change waiting for review: approved, it becomes the live
 * account (with its event, as an operator's change would); rejected, it is dropped (the reason in
 * history). 409 PAYOUT_CHANGE_NOT_PENDING when nothing waits.
 */
export function payoutChangeDecided(
  c: KycCaseRecord,
  action: 'approve_payout_change' | 'reject_payout_change',
  by: { actor: Actor; actorId: string },
  reason: string | undefined,
  now: Date,
): { kyc: KycCaseRecord; events: OutboxEntry[] } {
  const pending = c.payout?.pending_change;
  if (!c.payout || !pending) throw new PlatformError('PAYOUT_CHANGE_NOT_PENDING');
  if (action === 'approve_payout_change') {
    const change = c.payout.account ? 'updated' : 'created';
    const account = { ...pending.account, updated_at: now };
    const kyc = withPayoutAccount(c, account, now, `payout_account_${change}`, by, fingerprintSaltOf(c));
    return { kyc, events: [payoutAccountUpdated(kyc, change)] };
  }
  const kyc: KycCaseRecord = {
    ...c,
    payout: { ...c.payout, pending_change: null, updated_at: now },
    ...appendHistory(c, {
      action: 'payout_change_rejected',
      from_status: c.status,
      to_status: c.status,
      actor: by.actor,
      actor_id: by.actorId,
      reason: reason?.trim() || pending.reason,
      at: now,
    }),
    version: c.version + 1,
    updated_at: now,
  };
  return { kyc, events: [] };
}
