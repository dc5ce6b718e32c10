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

export interface PayoutAccountFacts {
  kyc_status: string;
  payout_eligible: boolean;
  currency: string;
  payment_gateway: string;
  payout_method: string;
}

export interface PayoutAccounts {
  /** kyc's answer: KYC_NOT_SUBMITTED / PAYOUT_NOT_SET_UP / PAYOUT_ACCOUNT_NOT_FOUND when there is none. */
  account(merchantId: number, mode: Mode): Promise<PayoutAccountFacts>;
}
