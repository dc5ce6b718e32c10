import type { Mode, Money } from '@ppay/kernel';

/**
 * What marketplace's money operations need from payments (wallets, staged payouts) and kyc (the
 * payout account); platform-clients.adapter.ts implements them over gRPC.
 */

/**
 * A wallet balance (spec 2.9, ppay.payments.v1.WalletBalance) as payments answers it: marketplace
 * passes it through to the partner without reading it.
 */
export interface BalanceView {
  formatted_balance: unknown;
}

/** Spec 2.10 payout request (ppay.payments.v1.Payout) as payments answers it (passed through to the partner). */
export interface PayoutView {
  payout_request_id: unknown;
}

export interface WalletPayouts {
  balances(merchantId: number, mode: Mode): Promise<BalanceView[]>;
  createPayout(input: {
    merchant_id: number;
    mode: Mode;
    amount: Money;
    reference: string;
    marketplace_id: number;
    payment_gateway: string;
    payout_method: string;
    /** Where the payout pays, as kyc answered it now: kept with the request (Hardening 2 item 5). */
    destination: PayoutDestinationFacts;
  }): Promise<PayoutView>;
  approvePayout(merchantId: number, mode: Mode, reference: string, operatorId: number): Promise<PayoutView>;
  rejectPayout(
    merchantId: number,
    mode: Mode,
    reference: string,
    operatorId: number,
    reason: string,
  ): Promise<PayoutView>;
}

/** The payout account's destination, masked, with its fingerprint (ppay.payments.v1.PayoutDestination). */
export interface PayoutDestinationFacts {
  kind: 'bank_account' | 'connected_account';
  bank_name: string | null;
  institution_id: string | null;
  account_number_masked: string | null;
  account_name: string | null;
  gateway_account_id: string | null;
  fingerprint: string | null;
}

export interface PayoutAccountFacts {
  kyc_status: string;
  payout_eligible: boolean;
  currency: string;
  payment_gateway: string;
  payout_method: string;
  destination: PayoutDestinationFacts;
}

export interface PayoutAccounts {
  /** kyc's answer: KYC_NOT_SUBMITTED / PAYOUT_NOT_SET_UP / PAYOUT_ACCOUNT_NOT_FOUND when there is none. */
  account(merchantId: number, mode: Mode): Promise<PayoutAccountFacts>;
}
