import { prefixedId } from '@ppay/kernel';
import type { ConnectedAccountProvider } from '../domain/ports';

/**
 * The sandbox card gateway's connected accounts: an account id is all it hands back, and the hosted
 * onboarding page (served by the platform gateway) plays the gateway's onboarding. A live provider
 * plugs in by implementing ConnectedAccountProvider and being registered for `live` in main.ts.
 */
export class SandboxConnectedAccountProvider implements ConnectedAccountProvider {
  async createAccount(): Promise<{ gateway_account_id: string }> {
    return { gateway_account_id: prefixedId('acct', 16) };
  }
}
