import { PlatformError, processorGroupOf } from '@ppay/kernel';
import {
  payoutEligible,
  type HistoryEntry,
  type KycCaseRecord,
  type PayoutAccountRecord,
  type PayoutRecord,
} from '../cases/kyc-case';
import type { OperatorCaller } from '../ports';
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

/** What a payout set-up or update answers: the bank account, or the connected account's onboarding link. */
export type PayoutAccountResult =
  | { kind: 'bank_account'; kyc: KycCaseRecord; account: PayoutAccountRecord; merchant: MerchantFacts }
  | {
      kind: 'connected_account';
      kyc: KycCaseRecord;
      merchant: MerchantFacts;
      token: string;
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
export function connectedPayoutAccount(c: KycCaseRecord, now: Date): PayoutAccountRecord {
  if (c.route !== 'connected_account' || !c.connected) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `callback_url cannot be used: this merchant's KYC went through in-house review, so its payouts settle in ` +
        `${c.settlement_currency} to a bank account (settlement_bank, account_number, account_name)`,
      { param: 'callback_url' },
    );
  }
  return {
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
    created_at: now,
    updated_at: now,
  };
}

/** The case with `account` as its payout account, the operator's change in its history. */
export function withPayoutAccount(
  c: KycCaseRecord,
  account: PayoutAccountRecord,
  now: Date,
  action: 'payout_account_created' | 'payout_account_updated',
  caller: OperatorCaller,
): KycCaseRecord {
  return {
    ...c,
    payout: { set_up_at: c.payout?.set_up_at ?? now, updated_at: now, account },
    history: [
      ...c.history,
      {
        action,
        from_status: c.status,
        to_status: c.status,
        actor: 'operator',
        actor_id: `operator:${caller.operatorId}`,
        reason: null,
        at: now,
      },
    ],
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
    return { ...base, client_secret: r.client_secret, onboarding_token: r.token, expires_at: r.expires_at };
  }
  return {
    ...base,
    bank_name: r.account.bank_name,
    bank_account_number: r.account.account_number_masked,
    bank_account_name: r.account.account_name,
    institution_id: r.account.institution_id,
    account_number_type: r.account.account_number_type,
  };
}
