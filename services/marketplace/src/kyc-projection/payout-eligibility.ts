import type { KycCaseFacts, KycStatus, Mode } from '@ppay/kernel';

/**
 * Whether a sub-merchant can be paid out in one mode, as marketplace last heard from kyc (kyc.* events).
 * kyc owns the KYC case and the payout account; this is marketplace's record of the outcome, so payout
 * operations can refuse an ineligible sub-merchant without asking kyc. `version` is the KYC case
 * version: an older event never overwrites a newer one. Kept on the merchant document, per mode.
 */
export interface PayoutEligibility {
  kyc_status: KycStatus;
  payouts_enabled: boolean;
  settlement_currency: string;
  submission_id: number;
  version: number;
  updated_at: Date;
}

export type PayoutEligibilityByMode = Partial<Record<Mode, PayoutEligibility>>;

/** A kyc event's case facts as marketplace records them. */
export function payoutEligibilityOf(facts: KycCaseFacts, occurredAt: Date): PayoutEligibility {
  return {
    kyc_status: facts.status,
    payouts_enabled: facts.payout_eligible,
    settlement_currency: facts.settlement_currency,
    submission_id: facts.submission_id,
    version: facts.version,
    updated_at: occurredAt,
  };
}

/** What partners see of it in one mode: not_started and no payouts until kyc's first event. */
export function payoutStatusIn(eligibility: PayoutEligibilityByMode | null | undefined, mode: Mode) {
  const inMode = eligibility?.[mode];
  return {
    kyc_status: inMode?.kyc_status ?? 'not_started',
    payouts_enabled: inMode?.payouts_enabled ?? false,
  };
}
