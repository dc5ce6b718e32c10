import type { Mode } from '../caller';

// Payloads of the KYC stream (subjects in catalogue.ts).

/** KYC submission statuses (spec 3.3 plus pending_onboarding on the connected-account route). */
export const KYC_STATUSES = [
  'not_started',
  'pending_review',
  'approved',
  'rejected',
  'additional_info_requested',
  'revoked',
  'pending_onboarding',
] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

/**
 * Facts about a sub-merchant's KYC case and payout set-up that both KYC events carry, so a consumer
 * of either knows whether the sub-merchant can be paid out. `version` grows with every change of the
 * case (one document in kyc), so a consumer that sees events out of order keeps the newest.
 * Delivered to the operator (`envelope.merchant_id` = `marketplace_id`); account numbers only masked.
 */
export interface KycCaseFacts {
  submission_id: number;
  /** The sub-merchant. */
  merchant_id: number;
  /** The operator whose call (or whose sub-merchant's review) caused the event. */
  marketplace_id: number;
  mode: Mode;
  status: KycStatus;
  /** `service` = in-house review, `gateway` = connected-account onboarding (spec 2.7). */
  provider: 'service' | 'gateway';
  settlement_currency: string;
  /** Approved KYC and a payout account in the settlement currency. */
  payout_eligible: boolean;
  version: number;
}

/** kyc.submission.updated: every status change of a KYC submission (spec 3.3). */
export interface KycSubmissionUpdated extends KycCaseFacts {
  previous_status: KycStatus;
  change:
    | 'submitted'
    | 'auto_approved'
    | 'approved'
    | 'rejected'
    | 'info_requested'
    | 'resubmitted'
    | 'revoked'
    | 'onboarding_started'
    | 'onboarding_completed';
  business_type: 'individual' | 'registered_business';
  country_mismatch: boolean;
  rejection_reason: string | null;
}

/** kyc.payout_account.updated: the payout account was set up, changed or detached (spec 4.9 payout). */
export interface KycPayoutAccountUpdated extends KycCaseFacts {
  change: 'created' | 'updated' | 'detached';
  /** Null once detached. */
  account: {
    currency: string;
    country: string;
    payment_gateway: string;
    payout_method: 'bank_transfer' | 'mobile_money' | 'connected_account';
    bank_name: string | null;
    account_number_masked: string | null;
  } | null;
}
