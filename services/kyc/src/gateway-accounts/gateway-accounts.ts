import { PlatformError, type Mode } from '@ppay/kernel';
import type { ConnectedAccountBalance } from '../cases/kyc-case';
import { retryLostWrites } from '../cases/lost-writes';
import { withDefaults, type UseCaseExtras, type ConnectedAccountProviders, type KycCaseRepository } from '../ports';

/** What delete merchant learns about the sub-merchant's connected gateway account (spec 4.9). */
export interface GatewayAccountClosure {
  /** False when the merchant has no connected account in this mode (nothing to read or close). */
  found: boolean;
  /** True when the balance was zero and the account is closed (now or by an earlier attempt). */
  closed: boolean;
  balance: ConnectedAccountBalance | null;
  gateway_account_id: string | null;
}

export interface GatewayAccountServiceDeps extends UseCaseExtras {
  cases: KycCaseRepository;
  providers: ConnectedAccountProviders;
}

const isZero = (b: ConnectedAccountBalance) => b.available.amount === 0 && b.pending.amount === 0;

/**
 * Delete merchant, steps 2–3 (spec 4.9): read the connected account's available and pending balance
 * at the gateway of the mode, and close the account only if both are zero. A repeat (the operator
 * retrying the delete) answers the same: a closed account stays closed and reads as zero.
 */
export class GatewayAccountService {
  private readonly deps: Required<GatewayAccountServiceDeps>;

  constructor(deps: GatewayAccountServiceDeps) {
    this.deps = withDefaults(deps);
  }

  closeForDeletion(merchantId: number, mode: Mode): Promise<GatewayAccountClosure> {
    // A write that lost its race (e.g. onboarding finished meanwhile) reads the case again; closing is idempotent.
    return retryLostWrites(async () => {
      const c = await this.deps.cases.findByMerchant(merchantId, mode);
      const account = c?.connected;
      if (!c || !account) return { found: false, closed: false, balance: null, gateway_account_id: null };
      const currency = c.settlement_currency;
      const id = account.gateway_account_id;
      if (account.closed_at) {
        const zero = { amount: 0, currency };
        return { found: true, closed: true, balance: { available: zero, pending: zero }, gateway_account_id: id };
      }
      const provider = this.deps.providers[mode];
      if (!provider) throw new PlatformError('GATEWAY_NOT_CONFIGURED');
      const balance = await provider.balance(account, currency);
      if (!isZero(balance)) return { found: true, closed: false, balance, gateway_account_id: id };
      await provider.closeAccount(account);
      const next = { ...c, connected: { ...account, closed_at: this.deps.now() }, version: c.version + 1 };
      if (!(await this.deps.cases.save(c.version, next, []))) return undefined;
      return { found: true, closed: true, balance, gateway_account_id: id };
    });
  }
}
