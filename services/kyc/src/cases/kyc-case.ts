import {
  type Money,
  outboxEvent,
  SUBJECTS,
  type EncryptedSecret,
  type KycCaseFacts,
  type KycPayoutAccountUpdated,
  type KycStatus,
  type KycSubmissionUpdated,
  type Mode,
  type OutboxEntry,
} from '@ppay/kernel';
import type { AccountNumberType } from '../payout-accounts/banks';
import { isPayoutEligible, type KycActionType } from './kyc-status';
import type { NameEnquiryEvidence } from '../submissions/auto-approval';
import type { KycRoute } from '../submissions/routing';
import type { AccountType, BankAccount } from '../submissions/submission';
import {
  openBusiness,
  openOwner,
  type BusinessIdentifiers,
  type OpensText,
  type OwnerPersonal,
  type StoredBusiness,
  type StoredOwner,
} from './personal-data';

/**
 * A sub-merchant's KYC case in one mode: one document per (merchant, mode) holding the current
 * submission and its evidence, the review outcome, the connected account and its hosted onboarding
 * link, the payout set-up and account, a capped history (case-history.ts) and the outbox. Every change is one
 * conditional write on `version`, so "approved", "has a payout account" and the events saying so can
 * never disagree (no multi-document transaction anywhere).
 *
 * Account and ID numbers are stored sealed (AES-256-GCM, kernel SecretBox) next to a masked form; no
 * use case ever needs them in clear, so nothing here opens them.
 */

export type Actor = 'operator' | 'auto' | 'admin' | 'sandbox' | 'gateway';

export interface HistoryEntry {
  action:
    | KycActionType
    | 'payout_account_created'
    | 'payout_account_updated'
    | 'payout_account_detached'
    | 'payout_change_pending'
    | 'payout_change_rejected';
  from_status: KycStatus;
  to_status: KycStatus;
  actor: Actor;
  actor_id: string | null;
  reason: string | null;
  at: Date;
}

/** The history entries folded out of a case's capped history (case-history.ts). */
export interface HistorySummary {
  /** Entries folded into this summary (the oldest ones). */
  dropped: number;
  first_at: Date;
  last_at: Date;
  /** How many of the dropped entries were of each action (a fixed set, so bounded too). */
  actions: Partial<Record<HistoryEntry['action'], number>>;
}

/** The submission's bank account as stored: the account number sealed, next to its masked form. */
export interface StoredBankAccount extends Omit<BankAccount, 'account_number'> {
  account_number_sealed: EncryptedSecret;
  account_number_masked: string;
}

export interface ReviewEvidence {
  decision: 'auto_approve' | 'manual_review';
  /** Every failed auto-approval condition (auto-approval.ts); empty when auto-approved. */
  reasons: string[];
  name_match_score: number;
  /** The verification provider's name enquiry; null on submissions stored before it existed. */
  name_enquiry?: NameEnquiryEvidence | null;
}

export interface ConnectedAccount {
  gateway_account_id: string;
  gateway_region: 'EU' | 'US';
  country: string;
  preferred_currency: string | null;
  /**
   * Sandbox only: what the sandbox card gateway holds for this account (it moves no money, so this
   * is zero unless a test sets it). Absent = zero. See SandboxConnectedAccountProvider.
   */
  sandbox_balance?: ConnectedAccountBalance | null;
  /** Set once the account was closed at the gateway (delete merchant with a zero balance). */
  closed_at?: Date | null;
  /**
   * When the gateway made the newest account event applied to this case (gateway-accounts/
   * account-status.ts): an older one arriving late is stale. Absent until the first.
   */
  status_event_at?: Date | null;
}

/** A connected account's balance at the gateway, in the account's currency (integer minor units). */
export interface ConnectedAccountBalance {
  available: Money;
  pending: Money;
}

/** The hosted onboarding link (connected-account route): its token is the page's capability. */
export interface OnboardingLink {
  /** SHA-256 of the token; the token itself is only ever in the onboarding_url handed out. */
  token_hash: string;
  /** onboarding: completing it approves a pending_onboarding submission; update: payout details only. */
  purpose: 'onboarding' | 'update';
  return_url: string;
  refresh_url: string;
  created_at: Date;
  expires_at: Date;
  /** Set when the page was completed or abandoned: the link is single-use. */
  used_at: Date | null;
  outcome: 'complete' | 'reject' | 'abandon' | null;
  client_secret_hash: string;
}

export type PayoutMethod = 'bank_transfer' | 'mobile_money' | 'connected_account';

export interface PayoutAccountRecord {
  kind: 'bank_account' | 'connected_account';
  currency: string;
  country: string;
  payment_gateway: string;
  payout_method: PayoutMethod;
  institution_id: string | null;
  bank_name: string | null;
  account_number_type: AccountNumberType | null;
  account_number_sealed: EncryptedSecret | null;
  account_number_masked: string | null;
  account_name: string | null;
  gateway_account_id: string | null;
  /** nameMatchScore(KYC legal name, account name): evidence for whoever pays out; null for connected. */
  name_match_score: number | null;
  /**
   * What the bank answered about this account's number when an operator named it (holder-check.ts); absent
   * on accounts adopted from the KYC submission (its own enquiry is in `review`) or stored before.
   */
  name_enquiry?: NameEnquiryEvidence | null;
  /** The account number's salted digest (payout-destination.ts); null for connected accounts. */
  account_number_digest?: string | null;
  /** Changes whenever the destination does (payout-destination.ts); absent on accounts stored before it. */
  fingerprint?: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * An operator's change of the payout account that a reviewer must confirm before it goes live: its holder
 * name does not match the KYC legal name, or its new number was not confirmed by the bank (holder-check.ts).
 */
export interface PendingPayoutChange {
  account: PayoutAccountRecord;
  requested_at: Date;
  requested_by: string;
  /** Every reason, comma-separated: `name_mismatch:<score>`, `bank_name_mismatch:<score>`, … (holder-check.ts). */
  reason: string;
}

export interface PayoutRecord {
  set_up_at: Date;
  updated_at: Date;
  /** Null when detached: a KYC resubmission moved the settlement currency or route away from it. */
  account: PayoutAccountRecord | null;
  /** The secret salt of this case's destination fingerprints (made at the first payout write since). */
  fingerprint_salt?: string;
  /** A change waiting for review; null or absent when there is none. */
  pending_change?: PendingPayoutChange | null;
}

export interface KycCaseRecord {
  /** The submission id (spec 2.7 `id`), kept across resubmissions. */
  id: number;
  merchant_id: number;
  mode: Mode;
  /** Operator of the latest partner call; events about this case are delivered to it. */
  marketplace_id: number;
  business_name: string;
  status: KycStatus;
  route: KycRoute;
  provider: 'service' | 'gateway';
  business_type: AccountType;
  /** In house: "first last" or the registered name; null on the connected route (the gateway collects it). */
  legal_name: string | null;
  /** In house: the ID document's country; connected: the account's country. */
  id_country: string;
  settlement_currency: string;
  country_mismatch: boolean;
  format: 'structured' | 'flat' | 'connected';
  /** Names in clear; the ID number and every personal field sealed (personal-data.ts). */
  owner: StoredOwner | null;
  business: StoredBusiness | null;
  bank_account: StoredBankAccount | null;
  review: ReviewEvidence | null;
  connected: ConnectedAccount | null;
  /** The current hosted onboarding link, and the hashes of earlier ones (they lead to their refresh_url). */
  link: OnboardingLink | null;
  superseded_links: { token_hash: string; refresh_url: string }[];
  payout: PayoutRecord | null;
  submitted_at: Date;
  reviewed_at: Date | null;
  rejection_reason: string | null;
  additional_info_request: string | null;
  /** The newest entries (at most MAX_HISTORY, case-history.ts); older ones are in history_summary. */
  history: HistoryEntry[];
  /** The entries folded out of `history`; null or absent while none were. */
  history_summary?: HistorySummary | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** `******6789`: everything but the last four characters hidden (a leading + of a phone number kept). */
export function maskNumber(value: string): string {
  const plus = value.startsWith('+') ? '+' : '';
  const body = plus ? value.slice(1) : value;
  const shown = body.length > 4 ? body.slice(-4) : '';
  return `${plus}${'*'.repeat(Math.max(body.length - shown.length, 4))}${shown}`;
}

/** Approved KYC and a payout account in the locked settlement currency. */
export function payoutEligible(c: Pick<KycCaseRecord, 'status' | 'payout' | 'settlement_currency'>): boolean {
  const account = c.payout?.account;
  return isPayoutEligible(c.status) && !!account && account.currency === c.settlement_currency;
}

/** Spec 2.7 as the operator sees it (GET …/kyc, decision helpers); the POST response is its 4.9 subset. */
export function submissionResource(c: KycCaseRecord | null, merchantId: number) {
  if (!c) {
    return {
      merchant_id: merchantId,
      status: 'not_started' as KycStatus,
      country_mismatch: false,
      payouts_enabled: false,
    };
  }
  return {
    merchant_id: c.merchant_id,
    provider: c.provider,
    id: c.id,
    status: c.status,
    business_type: c.business_type,
    legal_name: c.legal_name,
    id_country: c.id_country,
    bank_name: c.bank_account?.bank_name ?? null,
    bank_account_number: c.bank_account?.account_number_masked ?? null,
    bank_account_name: c.bank_account?.account_name ?? null,
    bank_sort_code: null,
    settlement_currency: c.settlement_currency,
    country_mismatch: c.country_mismatch,
    submitted_at: c.submitted_at,
    reviewed_at: c.reviewed_at,
    rejection_reason: c.rejection_reason,
    gateway_account_id: c.connected?.gateway_account_id ?? null,
    gateway_region: c.connected?.gateway_region ?? null,
    additional_info_request: c.additional_info_request,
    payouts_enabled: payoutEligible(c),
  };
}

/**
 * The personal data a reviewer reads, opened from the case; `unavailable` when any of it is sealed under
 * a key no longer in the ring (it shows null then, never a failed read).
 */
export function personalDataOf(c: KycCaseRecord, opener: OpensText) {
  const owner: OwnerPersonal | null = c.owner && openOwner(c.owner, opener);
  const business: BusinessIdentifiers | null = c.business && openBusiness(c.business, opener);
  return { owner, business, unavailable: (!!c.owner && !owner) || (!!c.business && !business) };
}

/** The platform reviewer's view: the submission, its evidence (numbers masked) and its history. */
export function reviewResource(c: KycCaseRecord, personal: ReturnType<typeof personalDataOf>) {
  return {
    ...submissionResource(c, c.merchant_id),
    marketplace_id: c.marketplace_id,
    institution_id: c.bank_account?.institution_id ?? null,
    review: c.review && { ...c.review, name_enquiry: c.review.name_enquiry ?? null },
    owner: c.owner && {
      first_name: c.owner.first_name,
      last_name: c.owner.last_name,
      date_of_birth: personal.owner?.date_of_birth ?? null,
      phone_number: personal.owner?.phone_number ?? null,
      email: personal.owner?.email ?? null,
      id_type: c.owner.id_type,
      id_number: c.owner.id_number_masked,
      id_document_url: personal.owner?.id_document_url ?? null,
      selfie_url: personal.owner?.selfie_url ?? null,
    },
    business: c.business && {
      registered_name: c.business.registered_name,
      registration_number: personal.business?.registration_number ?? null,
      tax_id: personal.business?.tax_id ?? null,
    },
    personal_data_unavailable: personal.unavailable,
    history: c.history.map((h) => ({ ...h, from_status: h.from_status, to_status: h.to_status })),
    history_summary: historySummaryResource(c.history_summary ?? null),
    payout_change: pendingChangeResource(c.payout?.pending_change ?? null),
  };
}

/** The entries folded out of the capped history, their actions counted (most frequent first). */
function historySummaryResource(s: HistorySummary | null) {
  return (
    s && {
      dropped: s.dropped,
      first_at: s.first_at,
      last_at: s.last_at,
      actions: Object.entries(s.actions)
        .map(([action, count]) => ({ action, count: count ?? 0 }))
        .sort((a, b) => b.count - a.count || a.action.localeCompare(b.action)),
    }
  );
}

/** A payout account change waiting for review, as the reviewer sees it (the number masked). */
function pendingChangeResource(p: PendingPayoutChange | null) {
  return (
    p && {
      bank_name: p.account.bank_name,
      account_number_masked: p.account.account_number_masked,
      account_name: p.account.account_name,
      name_match_score: p.account.name_match_score,
      name_enquiry: p.account.name_enquiry ?? null,
      reason: p.reason,
      requested_at: p.requested_at,
      requested_by: p.requested_by,
    }
  );
}

function facts(c: KycCaseRecord): KycCaseFacts {
  return {
    submission_id: c.id,
    merchant_id: c.merchant_id,
    marketplace_id: c.marketplace_id,
    mode: c.mode,
    status: c.status,
    provider: c.provider,
    settlement_currency: c.settlement_currency,
    payout_eligible: payoutEligible(c),
    version: c.version,
  };
}

const CHANGE_OF: Record<KycActionType, KycSubmissionUpdated['change']> = {
  submit: 'submitted',
  auto_approve: 'auto_approved',
  approve: 'approved',
  reject: 'rejected',
  request_info: 'info_requested',
  resubmit: 'resubmitted',
  revoke: 'revoked',
  start_onboarding: 'onboarding_started',
  complete_onboarding: 'onboarding_completed',
  gateway_approve: 'approved',
  gateway_request_info: 'info_requested',
  gateway_reject: 'rejected',
  gateway_revoke: 'revoked',
};

/** kyc.submission.updated for the case as it is after the change (delivered to the operator). */
export function submissionUpdated(c: KycCaseRecord, previous: KycStatus, action: KycActionType): OutboxEntry {
  return outboxEvent(
    SUBJECTS.kycSubmissionUpdated,
    {
      ...facts(c),
      previous_status: previous,
      change: CHANGE_OF[action],
      business_type: c.business_type,
      country_mismatch: c.country_mismatch,
      rejection_reason: c.rejection_reason,
    },
    { merchantId: c.marketplace_id, mode: c.mode },
  );
}

export function payoutAccountUpdated(c: KycCaseRecord, change: KycPayoutAccountUpdated['change']): OutboxEntry {
  const a = c.payout?.account ?? null;
  return outboxEvent(
    SUBJECTS.kycPayoutAccountUpdated,
    {
      ...facts(c),
      change,
      account: a && {
        currency: a.currency,
        country: a.country,
        payment_gateway: a.payment_gateway,
        payout_method: a.payout_method,
        bank_name: a.bank_name,
        account_number_masked: a.account_number_masked,
      },
    },
    { merchantId: c.marketplace_id, mode: c.mode },
  );
}
