import { prefixedId, randomBase62 } from '@ppay/kernel';
import type { ConnectedAccount, ConnectedAccountBalance } from '../cases/kyc-case';
import type { ConnectedAccountProvider, GatewayAccountRef } from '../ports';

/**
 * The sandbox card gateway's connected accounts: an account id is all it hands back, and the hosted
 * onboarding page (served by the platform gateway) plays the gateway's onboarding. A live provider
 * plugs in by implementing ConnectedAccountProvider and being registered for `live` in main.ts.
 *
 * Balances: the sandbox gateway moves no money, so an account's balance is what is recorded on it
 * (`sandbox_balance`, zero when absent; tests set it to exercise delete merchant with money left),
 * and closing one is only the record kyc keeps (`closed_at`).
 */
export class SandboxConnectedAccountProvider implements ConnectedAccountProvider {
  async createAccount(): Promise<{ gateway_account_id: string }> {
    return { gateway_account_id: prefixedId('acct', 16) };
  }

  /** The sandbox card gateway's (payments' CARD_PUBLISHABLE_KEY default): there is no embedded component. */
  publishableKey(): string {
    return 'pk_sandbox_cardgateway_platform';
  }

  /** Shaped like Stripe's Account Session secrets; the sandbox has no embedded component to open with it. */
  async clientSecret(account: GatewayAccountRef): Promise<string> {
    return `${account.gateway_account_id}_secret_${randomBase62(24)}`;
  }

  /** Our hosted page is the sandbox gateway's onboarding: onboarding_url leads there, not elsewhere. */
  async gatewayLink(): Promise<null> {
    return null;
  }

  async balance(account: ConnectedAccount, settlementCurrency: string): Promise<ConnectedAccountBalance> {
    const zero = { amount: 0, currency: settlementCurrency };
    return account.sandbox_balance ?? { available: zero, pending: zero };
  }

  async closeAccount(): Promise<void> {
    // Nothing to call: the account exists only as kyc's record of it.
  }
}
